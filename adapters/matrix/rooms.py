"""What the Matrix adapter does with one sync response: invites, then new room messages.

Invites are accepted only from ``allowed_inviters`` and rejected otherwise. In joined rooms every
new message is turned into an :class:`~adapters.base.Incoming` and handed to the core's handler,
one at a time and in order. A room is direct when it has two joined members (asked from the
homeserver once and again after membership changes). In a group room a message is addressed to
the bot only when it names the bot or replies to one of the bot's messages.

Each message is handed over in its own task so a long answer never holds up the sync. The
tasks start in the order the messages were sent, and the core keeps that order from there: it
answers one sender's messages in a room one turn after another, and those that arrive while
a turn runs together (:mod:`bot.turn.burst`), so a message does not wait here for the answer
to the one before it.

A sync gives at most a few dozen timeline events a room. After a long gap (the bot down or cut
off from the homeserver while people talked) the timeline is marked ``limited``: the events it
left out are paged back from the homeserver, down to where the previous sync ended, so no
message is skipped.

When the bot has just joined a room, the messages from before its invitation are history, not
questions, and are skipped; messages sent between the invitation and the join are answered.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from nio import (
    AsyncClient,
    InviteMemberEvent,
    JoinedMembersResponse,
    JoinError,
    MessageDirection,
    RoomGetEventResponse,
    RoomMessagesResponse,
    SyncResponse,
)

from adapters.base import Handler, Incoming
from adapters.matrix.events import BotIdentity, find_mention, parse_event
from adapters.matrix.render import ReplyTarget
from bot.daemon.errors import AdapterError
from bot.daemon.newest import keep_newest

__all__ = ["RoomEvents"]

log = structlog.get_logger(__name__)

_REMEMBERED = 4096
#: events one page of a gap fills, and the most pages read for one room in one sync
_GAP_PAGE = 100
_GAP_PAGES = 50


def _member_change(source: dict[str, Any]) -> bool:
    return source.get("type") == "m.room.member"


def _first_new(sources: list[dict[str, Any]], user_id: str) -> int:
    """Index of the first timeline event to answer: after our invite if we just joined."""
    for index in range(len(sources) - 1, -1, -1):
        source = sources[index]
        content = source.get("content") or {}
        unsigned = source.get("unsigned") or {}
        previous = (unsigned.get("prev_content") or {}).get("membership")
        if (
            _member_change(source)
            and source.get("state_key") == user_id
            and content.get("membership") == "join"
            and previous != "join"
        ):
            for earlier in range(index - 1, -1, -1):
                candidate = sources[earlier]
                if (
                    _member_change(candidate)
                    and candidate.get("state_key") == user_id
                    and (candidate.get("content") or {}).get("membership") == "invite"
                ):
                    return earlier + 1
            return index + 1
    return 0


class RoomEvents:
    """Turns sync responses into invites handled and ``Incoming`` events delivered."""

    def __init__(
        self,
        client: AsyncClient,
        bot: BotIdentity,
        handler: Handler,
        allowed_inviters: list[str],
    ) -> None:
        self.client = client
        self.bot = bot
        self.handler = handler
        self.allowed_inviters = {user.lower() for user in allowed_inviters}
        self._direct: dict[str, bool] = {}
        self._handled_invites: set[str] = set()
        #: the bot's own events (event id -> room) and the messages it may reply to, newest
        self.own_events: dict[str, str] = {}
        self.reply_targets: dict[str, ReplyTarget] = {}

    def own(self, event_id: str, room_id: str) -> None:
        """Remember ``event_id`` as the bot's own message in ``room_id`` (the newest kept)."""
        keep_newest(self.own_events, event_id, room_id, _REMEMBERED)

    async def handle(
        self, response: SyncResponse, *, deliver: bool, since: str | None = None
    ) -> list[asyncio.Task[None]]:
        """Act on one sync and return the tasks handing its messages to the core.

        ``deliver`` False (the very first sync of a new installation) skips old messages.
        ``since`` is the token the sync started from: a limited timeline is filled in from
        the events after it.
        """
        await self._invites(response)
        for room_id in response.rooms.leave:
            self._direct.pop(room_id, None)
        tasks: list[asyncio.Task[None]] = []
        if not deliver:
            return tasks
        for room_id, info in response.rooms.join.items():
            sources: list[dict[str, Any]] = [
                event.source
                for event in info.timeline.events
                if isinstance(getattr(event, "source", None), dict)
            ]
            if info.timeline.limited and since and info.timeline.prev_batch:
                sources = await self._gap(room_id, info.timeline.prev_batch, since) + sources
            state = [getattr(event, "source", {}) for event in info.state]
            if any(_member_change(s) for s in sources + state):
                self._direct.pop(room_id, None)
            for source in sources[_first_new(sources, self.bot.user_id) :]:
                try:
                    incoming = await self._incoming(room_id, source)
                except Exception as exc:  # one bad event must not stall the whole sync
                    log.exception(
                        "matrix.event_failed",
                        room=room_id,
                        event_id=source.get("event_id"),
                        error=repr(exc),
                    )
                    continue
                if incoming is not None:
                    tasks.append(self._dispatch(incoming))
        return tasks

    async def _gap(self, room_id: str, prev_batch: str, since: str) -> list[dict[str, Any]]:
        """The events a limited timeline left out (after ``since``, before ``prev_batch``),
        oldest first. A homeserver that refuses raises, so the sync is tried again."""
        events: list[dict[str, Any]] = []
        start = prev_batch
        for _ in range(_GAP_PAGES):
            page = await self.client.room_messages(
                room_id, start=start, end=since, direction=MessageDirection.back, limit=_GAP_PAGE
            )
            if not isinstance(page, RoomMessagesResponse):
                raise AdapterError(f"reading the gap in {room_id} failed: {page}")
            events.extend(
                e.source for e in page.chunk if isinstance(getattr(e, "source", None), dict)
            )
            if not page.chunk or not page.end or page.end == start:
                break
            start = page.end
        else:
            log.warning("matrix.gap_truncated", room=room_id, events=len(events))
        log.info("matrix.gap_filled", room=room_id, events=len(events))
        return list(reversed(events))

    def _dispatch(self, incoming: Incoming) -> asyncio.Task[None]:
        # tasks start in the order they are made: the core's handler sees the messages in
        # the order they were sent, before it awaits anything
        return asyncio.create_task(self._run(incoming), name=f"matrix-event {incoming.event_id}")

    async def _run(self, incoming: Incoming) -> None:
        try:
            await self.handler(incoming)
        except Exception as exc:  # the core's handler should not raise; if it does, go on
            log.exception("matrix.handler_failed", event_id=incoming.event_id, error=repr(exc))

    async def _invites(self, response: SyncResponse) -> None:
        for room_id, info in response.rooms.invite.items():
            if room_id in self._handled_invites:
                continue
            inviter = None
            for event in info.invite_state:
                if (
                    isinstance(event, InviteMemberEvent)
                    and event.state_key == self.bot.user_id
                    and event.membership == "invite"
                ):
                    inviter = event.sender
            self._handled_invites.add(room_id)
            if isinstance(inviter, str) and inviter.lower() in self.allowed_inviters:
                answer = await self.client.join(room_id)
                if isinstance(answer, JoinError):
                    self._handled_invites.discard(room_id)  # try again on the next sync
                    log.warning("matrix.join_failed", room=room_id, error=answer.message)
                else:
                    log.info("matrix.invite_accepted", room=room_id, inviter=inviter)
            else:
                await self.client.room_leave(room_id)
                log.info("matrix.invite_refused", room=room_id, inviter=inviter)

    async def _incoming(self, room_id: str, source: dict[str, Any]) -> Incoming | None:
        message = parse_event(source)
        if message is None:
            return None
        if message.sender == self.bot.user_id:
            self.own(message.event_id, room_id)
            return None
        target = ReplyTarget(message.event_id, message.sender, message.thread_root)
        keep_newest(self.reply_targets, message.event_id, target, _REMEMBERED)
        direct = await self.is_direct(room_id)
        bot = BotIdentity(self.bot.user_id, set(self.bot.display_names))
        room = self.client.rooms.get(room_id)
        if room is not None and self.bot.user_id in room.users:
            bot.display_names.add(room.users[self.bot.user_id].display_name or "")
        bot.display_names.discard("")
        mentioned, text = find_mention(message, bot)
        if not mentioned and message.reply_to and not direct:
            mentioned = await self.is_own_event(room_id, message.reply_to)
        sender_name = None
        if room is not None and message.sender in room.users:
            sender_name = room.user_name(message.sender)
        incoming = Incoming(
            platform="matrix",
            sender=message.sender,
            room=room_id,
            text=text if mentioned else message.text,
            event_id=message.event_id,
            is_direct=direct,
            addressed=direct or mentioned,
            kind=message.kind,
            reply_to=message.reply_to,
            attachments=message.attachments,
            sender_name=sender_name,
            # a backlog read after a restart arrives at once: the per-user rate limit judges
            # each message by when it was sent
            received_at=message.sent_at or time.time(),
        )
        log.debug(
            "matrix.incoming",
            room=room_id,
            event_id=message.event_id,
            kind=message.kind,
            attachments=len(message.attachments),
            direct=direct,
            addressed=incoming.addressed,
        )
        return incoming

    async def is_direct(self, room_id: str) -> bool:
        if room_id not in self._direct:
            answer = await self.client.joined_members(room_id)
            if isinstance(answer, JoinedMembersResponse):
                self._direct[room_id] = len(answer.members) <= 2
            else:
                room = self.client.rooms.get(room_id)
                log.warning("matrix.members_unknown", room=room_id, error=answer.message)
                return room is not None and 0 < room.joined_count <= 2
        return self._direct[room_id]

    async def is_own_event(self, room_id: str, event_id: str) -> bool:
        if event_id in self.own_events:
            return True
        answer = await self.client.room_get_event(room_id, event_id)
        if isinstance(answer, RoomGetEventResponse) and answer.event.sender == self.bot.user_id:
            self.own(event_id, room_id)
            return True
        return False
