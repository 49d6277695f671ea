"""An answer on its way into its room: the router's last step, for a turn's answer and for
a short reply of the daemon's own (a command's answer, a refusal) alike.

Every message of an answer is keyed by its event (:func:`~bot.delivery.steps.answer_key`), and
the first one sent is recorded in the delivery ledger, so an answer cut off and given again
edits the message the first attempt left. What the platform does not take goes to the outbox
(:mod:`bot.delivery.outbox`): on disk with its secrets withheld (:mod:`bot.memory.secrets.door`),
in memory only when Off The Record, and the event is finished once the outbox delivers it.
An answer the platform refused for good is recorded as refused and never retried; a spoken
copy that did not arrive is best-effort and waits apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Literal

import structlog

from adapters.base import Adapter, Incoming
from bot.delivery.outbox import Outbox
from bot.delivery.parcel import Parcel
from bot.delivery.state import StateStore
from bot.delivery.steps import Step, Undelivered, answer_key, spoken_only
from bot.memory.secrets.detector import redact_secrets
from bot.memory.secrets.door import withhold
from bot.setup.config import Config
from bot.turn.reply import ReplyStream
from bot.turn.rooms import OffTheRecord, Room

__all__ = ["DELIVERED", "QUEUED", "REFUSED", "AnswerDelivery"]

log = structlog.get_logger(__name__)

#: why an answer goes to the outbox untried: earlier answers to its room wait there
BEHIND = "earlier answers to this room wait in the outbox"
#: the session log's event lines around an answer the outbox delivers later
QUEUED = "answer queued"
DELIVERED = "answer delivered"
#: ... and the line of an answer the platform refused for good (its reason: ``/status``)
REFUSED = "answer refused by the platform"
#: ... and of an answer written for a direct conversation that became a group before it
#: could be delivered: a note that it was not sent went in its place
WITHHELD = "answer withheld: the room became a group"


def _withheld_step(step: Step, values: Sequence[tuple[str, str]] = ()) -> Step:
    """A step as the outbox keeps it on disk: every secret withheld, the turn's own values
    (in whatever shape the reply repeats them) among them."""
    text = withhold(redact_secrets(step.text), values=values)
    return step if text == step.text else replace(step, text=text)


class AnswerDelivery:
    """The router's delivery of answers (a part of :class:`~bot.turn.router.Router`)."""

    # what it uses of the router
    config: Config
    state: StateStore
    otr: OffTheRecord
    outbox: Outbox | None
    _retrying: set[tuple[str, str]]
    _queued: set[tuple[str, str]]
    _said_off_record: dict[tuple[str, str], str]
    identify: Callable[[Incoming], str | None]
    room_of: Callable[[Incoming], Room]

    def _reply(
        self, adapter: Adapter, incoming: Incoming, *, stream: bool, first: str | None = None
    ) -> ReplyStream:
        """The answer to ``incoming``, its messages keyed by the event."""
        platform, event_id = incoming.platform, incoming.event_id

        async def record(message_id: str) -> None:
            await self.state.record_message(platform, event_id, incoming.room, message_id)

        return ReplyStream(
            adapter,
            incoming.room,
            reply_to=event_id,
            interval=self.config.daemon.stream_edit_seconds,
            stream=stream,
            before_send=partial(self.state.event_recorded, platform, event_id),
            key=partial(answer_key, platform, event_id),
            message_id=first,
            retry=(platform, event_id) in self._retrying,
            on_first_message=record,
        )

    async def _deliver(
        self,
        reply: ReplyStream,
        incoming: Incoming,
        text: str,
        *,
        owner: tuple[str, str] = ("", ""),
        otr: bool = False,
        secrets: Sequence[tuple[str, str]] = (),
        spoken: str | None = None,
        private: bool = False,
    ) -> Literal["delivered", "queued", "refused"]:
        """Deliver ``text`` as the whole answer (then ``spoken`` as a voice message); what
        the platform does not take goes to the outbox (in memory only when Off The Record),
        unless the platform refused it for good: then the outbox records the refusal and
        nothing retries it. ``private``: the answer was written for a direct conversation
        (the outbox does not say it in a room that became a group meanwhile)."""
        outbox = self.outbox
        behind = outbox is not None and outbox.waiting_in(incoming.platform, incoming.room)
        try:
            await reply.finish(text, behind=BEHIND if behind else None, spoken=spoken)
            return "delivered"
        except Undelivered as exc:
            if spoken_only(exc.steps):  # the written answer arrived; its voice is best-effort
                if outbox is not None:
                    voice = Parcel(incoming.platform, incoming.event_id, *owner, exc.steps, False)
                    voice.private = private
                    outbox.speak_later(voice, exc.error, permanent=exc.permanent)
                return "delivered"
            if outbox is None:
                raise
            # kept on disk, an answer waits with its secrets withheld (and is delivered so)
            steps = exc.steps if otr else [_withheld_step(step, secrets) for step in exc.steps]
            parcel = Parcel(incoming.platform, incoming.event_id, *owner, steps, not otr)
            parcel.private = private
            if exc.permanent:
                await outbox.refuse(parcel, exc.error)
                return "refused"
            if not behind:
                log.warning("reply.undelivered", error=exc.error, steps=len(exc.steps))
            await outbox.put(parcel, tried=not behind)
            self._queued.add((incoming.platform, incoming.event_id))
            if parcel.durable:
                self.state.event_queued(incoming.platform, incoming.event_id)
            return "queued"

    def said_off_record(self, incoming: Incoming) -> bool:
        """Whether ``incoming`` came while its room was Off The Record and is not finished
        (the mode may have ended since)."""
        return (incoming.platform, incoming.event_id) in self._said_off_record

    def _off_record(self, user: str, room: Room, incoming: Incoming) -> bool:
        """Whether ``incoming`` is answered Off The Record: the mode is on in ``room``, or
        it was when the message came (the mode ended before its turn, or before a redelivery
        of a turn cut off): what was said off the record stays so."""
        return self.otr.is_on(user, room) or self.said_off_record(incoming)

    async def _say(self, adapter: Adapter, incoming: Incoming, text: str) -> None:
        """Deliver a short reply of the daemon's own (a command's answer, a refusal): Off
        The Record it waits in memory only, like a turn's answer, since it may quote what
        the user typed (``/search WORDS``, an unknown ``/WORD``), also when the mode ended
        after the message came; said in a direct room, it is private as an answer is (a
        search there shows every room's turns)."""
        user, room = self.identify(incoming), self.room_of(incoming)
        otr = user is not None and self._off_record(user, room, incoming)
        reply = self._reply(adapter, incoming, stream=False)
        await self._deliver(reply, incoming, text, otr=otr, private=room.audience.private)

    async def _finish(self, event: tuple[str, str]) -> None:
        """The event answered: finished now, or by the outbox once its answer is delivered."""
        self._said_off_record.pop(event, None)
        if event in self._queued:
            self._queued.discard(event)  # the outbox finishes it on delivery
        else:
            await self.state.finish_event(*event)
