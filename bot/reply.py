"""Delivering one answer to a room: typing while the model works, streaming by edits.

While the turn runs, a typing indicator is refreshed every few seconds, from
:data:`TYPING_DELAY` after the start on: an answer quicker than that (a command, a short
local model's reply) goes out without the indicator flickering on and off. When the adapter can
edit messages, the growing answer is sent once and then edited at most every
``interval`` seconds, only while it fits one message. At the end the final text replaces
the streamed one; an answer longer than one message is split and the rest sent after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import structlog

from adapters.base import Adapter
from bot.formatting import split_markdown

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
    ) -> None:
        """``before_send`` is awaited before the first message goes out (if it raises,
        nothing is sent)."""
        self.adapter = adapter
        self.room = room
        self.reply_to = reply_to
        self.interval = interval
        self.stream = stream and adapter.supports_edit
        self.text = ""
        self.message_id: str | None = None
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
            await self._push(self.text)

    async def _push(self, text: str) -> None:
        if not text.strip() or text == self._shown:
            return
        self._last_push = time.monotonic()
        try:
            if self.message_id is None:
                await self._ready()
                self.message_id = await self.adapter.send(self.room, text, reply_to=self.reply_to)
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

    async def finish(self, final: str) -> None:
        """Deliver ``final`` as the whole answer."""
        await self._stop_typing()
        async with self._push_lock:
            if self.message_id is None:
                await self._ready()
                await self.adapter.send(self.room, final, reply_to=self.reply_to)
            else:
                limit = self.adapter.max_message_chars
                parts = [final] if len(final) <= limit else split_markdown(final, limit)
                if parts[0] != self._shown:
                    try:
                        await self.adapter.edit(self.room, self.message_id, parts[0])
                    except Exception as exc:
                        log.warning("reply.final_edit_failed", error=str(exc))
                        await self.adapter.send(self.room, parts[0])
                for part in parts[1:]:
                    await self.adapter.send(self.room, part, reply_to=self.reply_to)
        await self.adapter.reply_done(self.room)
