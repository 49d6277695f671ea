"""A backend built on first use, its library imported in a thread meanwhile.

The ``anthropic`` library takes seconds to import on a small machine, longer than the whole
rest of start-up. :class:`DeferredBackend` lets the daemon answer ``/healthz`` and the chat
prompt show first: :meth:`warm` (called once the daemon is serving) builds the real backend
in a worker thread, and a request that comes before it is done waits for that same build.
Configuration errors (a missing key) are found before, when the factory checks the keys.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence

from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolSpec

__all__ = ["DeferredBackend"]


class DeferredBackend(LLMBackend):
    def __init__(self, name: str, model: str, build: Callable[[], LLMBackend]) -> None:
        self.name = name
        self.model = model
        self._build = build
        self._building: asyncio.Future[LLMBackend] | None = None

    def warm(self) -> None:
        if self._building is None:
            self._building = asyncio.ensure_future(asyncio.to_thread(self._build))

    async def backend(self) -> LLMBackend:
        """The real backend, once built."""
        self.warm()
        assert self._building is not None
        return await asyncio.shield(self._building)

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        inner = await self.backend()
        return await inner.complete(
            system=system, messages=messages, tools=tools, max_tokens=max_tokens, on_text=on_text
        )

    async def close(self) -> None:
        if self._building is None:
            return
        with contextlib.suppress(Exception):
            inner = await self._building
            await inner.close()
