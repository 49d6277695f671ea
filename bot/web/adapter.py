"""The web console as a chat platform: an :class:`Adapter` whose rooms are browser feeds.

A message typed in the browser becomes an :class:`Incoming` for the router, like any
platform's, so a web turn goes through the same router, sessions, Off The Record and logs.
What the core sends or edits lands in the room's :class:`RoomFeed`, which every open page of
that conversation reads as a stream of server-sent events. Each conversation is its own
direct room, ``web:<user>:<persona>:<id>``; the sender is the signed-in user's name.

Files sent with a message (pictures, documents, a voice note recorded in the page) are held
in memory while their message is handled, then dropped; a spoken answer is a message with
its audio inline, in memory like every message of the feed. The feeds of the
:data:`FEEDS_KEPT` conversations used last are kept; an older one no page reads is let go,
and opened again it shows what the session keeps of the conversation.
"""

from __future__ import annotations

import asyncio
import base64
import html
import itertools
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from adapters.base import Adapter, AdapterContext, Attachment, Incoming, Speech
from bot.daemon.errors import MediaError
from bot.media.fetch import too_large
from bot.web.markup import render_message
from bot.web.uploads import Upload

__all__ = ["FEEDS_KEPT", "FEED_LIMIT", "RoomFeed", "WebAdapter"]

log = structlog.get_logger(__name__)

#: messages a feed keeps for pages opened later (older ones are in the session log)
FEED_LIMIT = 200
#: conversations whose feeds are kept, the ones used last (a feed a page reads is never let go)
FEEDS_KEPT = 64

Event = dict[str, Any]


@dataclass(slots=True)
class RoomFeed:
    """One conversation's messages since the daemon started, and the pages reading them."""

    messages: dict[str, Event] = field(default_factory=dict)
    listeners: set[asyncio.Queue[Event | None]] = field(default_factory=set)

    def publish(self, event: Event) -> None:
        if event["type"] == "msg":
            self.messages[event["id"]] = event
            while len(self.messages) > FEED_LIMIT:
                self.messages.pop(next(iter(self.messages)))
        for queue in self.listeners:
            queue.put_nowait(event)

    def say(self, message_id: str, role: str, text: str) -> None:
        """Publish a message (new, or the next version of ``message_id``): its markdown
        source and the safe HTML the page shows."""
        html = render_message(text)
        self.publish({"type": "msg", "id": message_id, "role": role, "text": text, "html": html})


class WebAdapter(Adapter):
    platform = "web"
    supports_edit = True
    supports_voice = True
    max_message_chars = 100_000

    def __init__(self, context: AdapterContext) -> None:
        super().__init__(context)
        self.feeds: dict[str, RoomFeed] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        #: the bytes of files sent with messages being handled, by attachment ref
        self._uploads: dict[str, bytes] = {}

    def feed(self, room: str) -> RoomFeed:
        """The room's feed, made on first use; the one used last goes to the end of
        :attr:`feeds`, and beyond :data:`FEEDS_KEPT` the ones used longest ago that no page
        reads are let go (every conversation ever opened would otherwise stay in memory)."""
        feed = self.feeds.pop(room, None) or RoomFeed()
        self.feeds[room] = feed
        if len(self.feeds) > FEEDS_KEPT:
            unread = [n for n, kept in self.feeds.items() if not kept.listeners and n != room]
            for name in unread[: len(self.feeds) - FEEDS_KEPT]:
                del self.feeds[name]
        return feed

    async def start(self) -> None:
        self.health.running = True
        self.health.touch("serving the web console")

    async def stop(self) -> None:
        self.health.running = False
        for task in list(self._tasks):
            await asyncio.wait([task], timeout=30)
        for feed in self.feeds.values():  # open event streams end
            for queue in feed.listeners:
                queue.put_nowait(None)

    def _message(self, room: str, role: str, text: str, message_id: str | None = None) -> str:
        message_id = message_id or f"m{next(self._ids)}"
        self.feed(room).say(message_id, role, text)
        self.health.touch()
        return message_id

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        return self._message(room, "persona", text)

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        self._message(room, "persona", text, message_id)

    async def typing(self, room: str, on: bool) -> None:
        self.feed(room).publish({"type": "typing", "on": on})

    async def reply_done(self, room: str) -> None:
        self.feed(room).publish({"type": "done"})

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        message_id = f"m{next(self._ids)}"
        source = f"data:{speech.mime};base64,{base64.b64encode(speech.audio).decode('ascii')}"
        player = f'<audio controls preload="none" src="{html.escape(source)}"></audio>'
        self.feed(room).publish(
            {"type": "msg", "id": message_id, "role": "persona", "text": "", "html": player}
        )
        self.health.touch()
        return message_id

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        data = self._uploads.get(attachment.ref)
        if data is None:
            raise MediaError(
                "upload gone",
                user_message="The file you sent is no longer here (I restarted); please send"
                " it again.",
            )
        if len(data) > limit:
            raise too_large(limit, attachment.name)
        return data

    def submit(self, user: str, room: str, text: str, uploads: Sequence[Upload] = ()) -> str:
        """Show the user's message in the room and hand it to the router in the background;
        the answer arrives through the feed. Returns the event id. ``uploads`` are held in
        memory until the message is handled."""
        event_id = uuid.uuid4().hex
        attachments = []
        for upload in uploads:
            ref = uuid.uuid4().hex
            self._uploads[ref] = upload.data
            attachments.append(
                Attachment(
                    ref,
                    name=upload.name,
                    mime=upload.mime,
                    size=len(upload.data),
                    voice=upload.voice,
                )
            )
        self._message(room, "user", _shown(text, uploads), f"u{event_id}")
        incoming = Incoming(
            platform=self.platform,
            sender=user,
            room=room,
            text=text,
            event_id=event_id,
            is_direct=True,
            kind="attachment" if attachments else "text",
            attachments=tuple(attachments),
        )
        task: asyncio.Task[None] = asyncio.ensure_future(self.context.handler(incoming))
        self._tasks.add(task)

        def handled(done: asyncio.Task[None]) -> None:
            self._tasks.discard(done)
            for attachment in attachments:
                self._uploads.pop(attachment.ref, None)

        task.add_done_callback(handled)
        return event_id

    async def listen(self, room: str) -> AsyncIterator[Event]:
        """Every message the room holds, then each event as it happens, until the adapter
        stops or the reader goes away."""
        feed = self.feed(room)
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        feed.listeners.add(queue)
        try:
            for message in list(feed.messages.values()):
                yield message
            while self.health.running:
                event = await queue.get()
                if event is None:
                    return
                yield event
        finally:
            feed.listeners.discard(queue)


def _shown(text: str, uploads: Sequence[Upload]) -> str:
    """The user's message as the page shows it: the text, then a line for each file."""
    lines = ["🎙 voice note" if u.voice else f"📎 {u.name or 'file'}" for u in uploads]
    return "\n\n".join(part for part in (text, "  \n".join(lines)) if part)
