"""One answer's way out: the idempotency keys of its messages and the steps that deliver it.

An answer is delivered as a list of :class:`Step` s (send a message, edit one), performed in
order. Every step carries a key derived from the event it answers (:func:`answer_key`), the
same in every process, so a step performed again after a failure or a restart shows no
second message on a platform that honours keys. A step that fails leaves itself and the
steps after it to the outbox (:class:`Undelivered`), marked ``permanent`` when the platform
refused it for good (:class:`~bot.daemon.errors.PermanentSendError`): the outbox gives that one up
instead of retrying it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import structlog

from adapters.base import Adapter, MessageGone, idempotency_key
from bot.daemon.errors import PermanentSendError

__all__ = [
    "WITHHELD_NOTE",
    "Step",
    "Undelivered",
    "answer_key",
    "perform_all",
    "spoken_only",
    "steps_from_json",
    "steps_to_json",
    "withheld",
]

log = structlog.get_logger(__name__)


def answer_key(platform: str, event_id: str, part: str) -> str:
    """The idempotency key of one part (``"0"``: the first message) of the answer to an
    event: 24 hex characters, the same in every process."""
    return idempotency_key(f"{platform}\n{event_id}\n{part}")


@dataclass(frozen=True, slots=True)
class Step:
    """Send ``text`` to ``room``, edit ``message_id`` to ``text``, or (``voice``) speak
    ``text`` into ``room`` as a voice message: the audio is made when the step is performed,
    so the outbox keeps words, never sound.

    ``confirm`` marks a send whose key may already have made a message holding other text
    (a streamed beginning): the message the platform answers with is edited to ``text``.
    """

    op: Literal["send", "edit", "voice"]
    room: str
    text: str
    key: str
    message_id: str | None = None
    reply_to: str | None = None
    confirm: bool = False

    async def perform(self, adapter: Adapter) -> str:
        """Carry the step out; the id of the message sent or edited."""
        if self.op == "voice":
            return await adapter.send_voice(self.room, self.text, key=self.key)
        if self.op == "edit":
            assert self.message_id is not None
            try:
                await adapter.edit(self.room, self.message_id, self.text, key=self.key)
                return self.message_id
            except MessageGone as exc:
                # nothing left to complete: the whole text goes out as a message of its own
                log.warning("delivery.edit_gone", error=str(exc))
                return await adapter.send(
                    self.room, self.text, key=answer_key("", self.key, "resend")
                )
        message_id = await adapter.send(self.room, self.text, reply_to=self.reply_to, key=self.key)
        if self.confirm and adapter.supports_edit and adapter.idempotent:
            await adapter.edit(self.room, message_id, self.text, key=answer_key("", self.key, "e"))
        return message_id


class Undelivered(Exception):
    """Delivery stopped at a step the platform did not take: ``steps`` are the ones left;
    ``permanent`` when the platform refused it for good (retrying cannot help)."""

    def __init__(self, steps: Sequence[Step], error: str, *, permanent: bool = False) -> None:
        super().__init__(error)
        self.steps = list(steps)
        self.error = error
        self.permanent = permanent


#: said in place of an answer written for a direct conversation when the room became a group
#: before the answer could be delivered
WITHHELD_NOTE = (
    "An answer written while this was a direct conversation was not sent here, now that"
    " others are in the room. Ask again if you still want it."
)


def _note(edit: Step) -> Step:
    """An edit of the answer's message to the note, keyed apart from the answer's own edit
    (which may have reached the platform already: a platform that honours keys would take
    the note for it again and leave the answer)."""
    if edit.text == WITHHELD_NOTE:
        return edit
    return replace(edit, text=WITHHELD_NOTE, key=answer_key("", edit.key, "withheld"))


def withheld(steps: Sequence[Step]) -> list[Step]:
    """The steps that say :data:`WITHHELD_NOTE` instead of the answer ``steps`` deliver:
    what a room already shows of it (the messages its edits complete) is edited to the note,
    else the note is sent in the first message's place (confirmed: the answer may already be
    behind its key); nothing is spoken. The same steps again give the same steps."""
    edits = [_note(step) for step in steps if step.op == "edit"]
    if edits:
        return edits
    first = next((step for step in steps if step.op == "send"), None)
    return [] if first is None else [replace(first, text=WITHHELD_NOTE, confirm=True)]


def spoken_only(steps: Sequence[Step]) -> bool:
    """Whether ``steps`` are only an answer's spoken copy: its text is in the room."""
    return bool(steps) and all(step.op == "voice" for step in steps)


async def perform_all(adapter: Adapter, steps: Sequence[Step]) -> None:
    """Perform ``steps`` in order; :class:`Undelivered` with the rest at the first failure."""
    for index, step in enumerate(steps):
        try:
            await step.perform(adapter)
        except Exception as exc:
            refused = isinstance(exc, PermanentSendError)
            error = f"{type(exc).__name__}: {exc}"
            raise Undelivered(steps[index:], error, permanent=refused) from exc


def steps_to_json(steps: Sequence[Step]) -> list[dict[str, Any]]:
    return [asdict(step) for step in steps]


def steps_from_json(raw: object) -> list[Step]:
    """Steps as :func:`steps_to_json` wrote them; ValueError for anything else."""
    if not isinstance(raw, list):
        raise ValueError("outbox steps must be a list")
    steps = []
    for item in raw:
        if not isinstance(item, dict) or item.get("op") not in ("send", "edit", "voice"):
            raise ValueError("an outbox step must be an object with op send, edit or voice")
        steps.append(
            Step(
                op=item["op"],
                room=str(item["room"]),
                text=str(item["text"]),
                key=str(item["key"]),
                message_id=None if item.get("message_id") is None else str(item["message_id"]),
                reply_to=None if item.get("reply_to") is None else str(item["reply_to"]),
                confirm=bool(item.get("confirm", False)),
            )
        )
    return steps
