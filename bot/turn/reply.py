"""Delivering one answer to a room: typing while the model works, streaming by edits.

While the turn runs, a typing indicator is refreshed every few seconds, from
:data:`TYPING_DELAY` after the start on: an answer quicker than that (a command, a short
local model's reply) goes out without the indicator flickering on and off. When the adapter can
edit messages, the growing answer is sent once and then edited at most every
``interval`` seconds, only while it fits one message. At the end the final text replaces
the streamed one; an answer longer than one message is split and the rest sent after it.

Exactly once: every message carries an idempotency key derived from the event (``key``);
the first streamed message is reported to ``on_first_message`` (the delivery ledger) so a
later attempt, given it as ``message_id``, edits it instead of sending another. A final
delivery the platform does not take raises :class:`~bot.delivery.steps.Undelivered` with the steps
left, for the outbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable

import structlog

from adapters.base import Adapter
from bot.delivery.steps import Step, Undelivered, perform_all
from bot.turn.formatting import split_markdown, well_formed

__all__ = ["TYPING_DELAY", "ReplyStream"]

log = structlog.get_logger(__name__)

_TYPING_REFRESH = 4.0
#: seconds from the start of a turn to the first typing indicator
TYPING_DELAY = 0.3


class ReplyStream:
    def __init__(
        self,
        adapter: Adapter,
        room: str,
        *,
        reply_to: str | None = None,
        interval: float = 1.0,
        stream: bool = True,
        before_send: Callable[[], Awaitable[None]] | None = None,
        typing_delay: float = TYPING_DELAY,
        key: Callable[[str], str] | None = None,
        message_id: str | None = None,
        retry: bool = False,
        on_first_message: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        """``before_send`` is awaited before the first message goes out (if it raises,
        nothing is sent). ``key(part)`` names each message (``"0"`` the first, ``"final"``
        the final edit); ``message_id`` is a first message an earlier attempt left in the
        room; ``retry`` says an earlier attempt may have sent with the first key."""
        self.adapter = adapter
        self.room = room
        self.reply_to = reply_to
        self.interval = interval
        self.stream = stream and adapter.supports_edit
        self.text = ""
        self.message_id: str | None = message_id
        self._key = key or _random_key
        #: a send with the first key may have made a message whose text is not known
        self._first_tried = retry
        self._on_first_message = on_first_message
        self._shown = ""
        self._last_push = 0.0
        self.typing_delay = typing_delay
        self._typing_timer: asyncio.TimerHandle | None = None
        self._typing_task: asyncio.Task[None] | None = None
        self._push_lock = asyncio.Lock()
        self._before_send = before_send

    async def __aenter__(self) -> ReplyStream:
        loop = asyncio.get_running_loop()
        self._typing_timer = loop.call_later(self.typing_delay, self._start_typing)
        return self

    def _start_typing(self) -> None:
        self._typing_timer = None
        self._typing_task = asyncio.create_task(self._keep_typing())

    async def __aexit__(self, *exc: object) -> None:
        await self._stop_typing()

    async def _keep_typing(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.adapter.typing(self.room, True)
            await asyncio.sleep(_TYPING_REFRESH)

    async def _stop_typing(self) -> None:
        if self._typing_timer is not None:
            self._typing_timer.cancel()  # never shown: nothing to turn off
            self._typing_timer = None
        if self._typing_task is not None:
            self._typing_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._typing_task
            self._typing_task = None
            with contextlib.suppress(Exception):
                await self.adapter.typing(self.room, False)

    async def on_text(self, delta: str) -> None:
        """The model produced ``delta``; show it if enough time has passed."""
        self.text += delta
        if not self.stream or len(self.text) > self.adapter.max_message_chars:
            return
        now = time.monotonic()
        if self.message_id is not None and now - self._last_push < self.interval:
            return
        if self._push_lock.locked():
            return
        async with self._push_lock:
            await self._push(well_formed(self.text))

    async def _push(self, text: str) -> None:
        if not text.strip() or text == self._shown:
            return
        self._last_push = time.monotonic()
        try:
            if self.message_id is None:
                await self._ready()
                self._first_tried = True
                self.message_id = await self.adapter.send(
                    self.room, text, reply_to=self.reply_to, key=self._key("0")
                )
                if self._on_first_message is not None:
                    await self._on_first_message(self.message_id)
            else:
                await self.adapter.edit(self.room, self.message_id, text)
            self._shown = text
        except Exception as exc:
            # streaming is a nicety: the final delivery below still carries the answer
            log.warning("reply.stream_failed", error=str(exc))
            self.stream = False

    async def _ready(self) -> None:
        if self._before_send is not None:
            await self._before_send()
            self._before_send = None

    def plan(self, final: str) -> list[Step]:
        """The steps that deliver ``final`` from where the room stands now."""
        first_key = self._key("0")
        # a send with the first key may have made a message (with a beginning of the
        # answer): where the platform finds it again by its key, it is edited to the end
        found = self.adapter.supports_edit and self.adapter.idempotent
        if self.message_id is None and not (self._first_tried and found):
            # nothing of this answer is in the room: one send, split by the adapter
            return [Step("send", self.room, final, first_key, reply_to=self.reply_to)]
        limit = self.adapter.max_message_chars
        parts = [final] if len(final) <= limit else split_markdown(final, limit)
        steps = []
        if self.message_id is None:  # sent before, its id unknown: the key finds it
            steps.append(
                Step("send", self.room, parts[0], first_key, reply_to=self.reply_to, confirm=True)
            )
        elif parts[0] != self._shown:
            steps.append(
                Step("edit", self.room, parts[0], self._key("final"), message_id=self.message_id)
            )
        steps.extend(
            Step("send", self.room, part, self._key(str(index)), reply_to=self.reply_to)
            for index, part in enumerate(parts[1:], start=1)
        )
        return steps

    async def finish(
        self, final: str, *, behind: str | None = None, spoken: str | None = None
    ) -> None:
        """Deliver ``final`` as the whole answer; :class:`~bot.delivery.steps.Undelivered` with
        the steps left if the platform does not take one. ``behind`` (why earlier answers
        to the room still wait) sends nothing: every step is left to go after them.
        ``spoken`` is said as a voice message after the text, as the last step."""
        await self._stop_typing()
        async with self._push_lock:
            await self._ready()
            steps = self.plan(final)
            if spoken:
                steps.append(Step("voice", self.room, spoken, self._key("voice")))
            if behind is not None:
                raise Undelivered(steps, behind)
            await perform_all(self.adapter, steps)
        await self.adapter.reply_done(self.room)


def _random_key(part: str) -> str:
    """Without a key from the caller every message is its own."""
    return uuid.uuid4().hex[:24]
