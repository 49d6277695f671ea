"""A message the session did not answer, and the same message given again.

A turn can end without an answer: cut off (a stop, an adapter restart) or failed. Either way
what the user said is kept in the session log, unless it was said Off The Record. One cut
off also stays the last entry of its room's conversation, so the redelivery that answers it
neither repeats it to the model nor logs it twice; one whose turn failed does not (the user
was told and sends it again if they want), and an event line says it was not answered. A
redelivery of a message whose answer got as far as the conversation before it was cut off is
given that answer again, without asking the model a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo

import structlog

from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.turn.conversation import Conversation, Entry
from bot.turn.rooms import Room
from bot.turn.session_types import SessionDeps, TurnOutcome

__all__ = ["Unanswered"]

log = structlog.get_logger(__name__)


class Unanswered:
    """A session's unanswered messages (a part of :class:`~bot.turn.session.Session`)."""

    # what it uses of the session
    user: str
    deps: SessionDeps
    log: SessionLog
    conversation: Callable[[Room], Conversation]

    def has_answered(self, room: Room, event_id: str, *, otr: bool) -> bool:
        """Whether the conversation in ``room`` already holds the answer to ``event_id`` (an
        attempt cut off before delivering it), by the rule a turn goes by, on the event
        id alone: a retry delivers that answer again, without reading the message's files a
        second time."""
        conversation = self.conversation(room)
        return bool(event_id) and (
            self._answered(conversation, room, "", event_id, False, otr) is not None
        )

    @staticmethod
    def _answered(
        conversation: Conversation, room: Room, text: str, event_id: str, retry: bool, otr: bool
    ) -> TurnOutcome | None:
        """This message and its answer, if an attempt cut off before delivering the answer
        got as far as the conversation (restored from the log, on a retry: the same text):
        the answer is delivered again, not asked for a second time."""
        exchange = _last_exchange(conversation)
        if exchange is None or exchange[0].otr != otr:
            return None
        asked, answer = exchange
        same = asked.event_id == event_id or (retry and not asked.event_id and asked.text == text)
        return TurnOutcome(answer.text, asked, answer, answer.otr, room) if same else None

    @staticmethod
    def _take_unanswered(
        conversation: Conversation, text: str, event_id: str, otr: bool
    ) -> Entry | None:
        """The conversation's last entry, taken out, if it is this message kept unanswered
        by an attempt that was cut off (restored from the log it has no event id, so the
        same text counts): answered again, it is neither repeated nor logged twice."""
        entries = conversation.entries
        last = entries[-1] if entries else None
        if last is None or last.role != "user" or last.kind != "turn" or last.otr != otr:
            return None
        if last.event_id != event_id and (last.event_id or last.text != text):
            return None
        return entries.pop()

    async def _no_answer(
        self,
        room: Room,
        user_entry: Entry,
        kept: Entry | None,
        zone: ZoneInfo,
        *,
        otr: bool,
        cut_off: bool,
    ) -> None:
        """The turn of ``user_entry`` ended without an answer (``kept``: the entry an earlier
        attempt left, taken out for this one)."""
        # no answer came, but what the user said is kept in the log; only a message cut
        # off stays in the conversation, for the redelivery that answers it
        if kept is None:
            await self._keep_unanswered(self.conversation(room), user_entry, zone, cut_off=cut_off)
        elif cut_off:
            self.conversation(room).entries.append(kept)
        elif not otr:
            await self._mark_unanswered(kept, zone)

    async def _keep_unanswered(
        self, conversation: Conversation, user_entry: Entry, zone: ZoneInfo, *, cut_off: bool
    ) -> None:
        """Log a message that got no answer. One cut off (a stop, an adapter restart) stays the
        last entry of the conversation: it is answered again without being repeated. One whose
        turn failed is not: the user was told so and sends it again if they want, so it is not
        sent along with the next requests; an event line says it was not answered (a restart
        does not bring it back into the conversation either)."""
        if cut_off:
            conversation.entries.append(user_entry)
        if user_entry.otr:
            return
        try:
            await self.log.append([LoggedTurn(self.user, user_entry)], zone)
            if not cut_off:
                await self.log.mark_unanswered(self.deps.clock(), zone, user_entry.room)
        except Exception as exc:
            log.error("sessionlog.append_failed", error=str(exc))

    async def _mark_unanswered(self, entry: Entry, zone: ZoneInfo) -> None:
        try:
            await self.log.mark_unanswered(self.deps.clock(), zone, entry.room)
        except Exception as exc:
            log.error("sessionlog.append_failed", error=str(exc))


def _last_exchange(conversation: Conversation) -> tuple[Entry, Entry] | None:
    """The conversation's last message and its answer, when it ends with one."""
    entries = conversation.entries
    if len(entries) < 2 or entries[-2].role != "user" or entries[-1].role != "assistant":
        return None
    return entries[-2], entries[-1]
