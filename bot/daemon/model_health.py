"""Whether the chat model answers, for ``/healthz`` and ``/status``.

:meth:`ModelHealth.watch` wraps the chat backend (outside its retries): a call that fails
because the model could not be reached or would not work (connection refused, time-outs
and 5xx after every retry, a refused key) makes the model a named problem, ``model
unreachable: ...``; the next call that succeeds clears it. A failure that is the message's
own (a conversation too long, a request the server refused as invalid) says nothing about
the model and changes nothing, and neither does a turn cut off by a stop.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from bot.daemon.errors import ContextOverflow, LLMError, RequestRejected
from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolSpec

__all__ = ["ModelHealth"]

log = structlog.get_logger(__name__)


@dataclass(slots=True)
class ModelHealth:
    """The chat model's last outcome: ``problem`` is None while its last call succeeded."""

    problem: str | None = None
    #: ``time.monotonic()`` of the last success and of the first failure in a row
    last_ok: float = 0.0
    failing_since: float = 0.0
    failures: int = 0

    def succeeded(self) -> None:
        if self.problem is not None:
            log.info("model.recovered", failures=self.failures)
        self.problem = None
        self.failures = 0
        self.last_ok = time.monotonic()

    def failed(self, error: LLMError) -> None:
        if self.problem is None:
            self.failing_since = time.monotonic()
            log.warning("model.unreachable", error=str(error))
        self.failures += 1
        self.problem = f"model unreachable: {error}"

    def report(self) -> dict[str, Any]:
        """What ``/status`` and ``/healthz`` show of the model."""
        now = time.monotonic()
        return {
            "state": "ok" if self.problem is None else "unreachable",
            "problem": self.problem,
            "failures": self.failures,
            "failing_s": round(now - self.failing_since, 1) if self.problem else 0.0,
            "last_ok_age": round(now - self.last_ok, 1) if self.last_ok else None,
        }

    def watch(self, backend: LLMBackend) -> LLMBackend:
        """``backend`` reporting each call's outcome here."""
        return _Watched(backend, self)


class _Watched(LLMBackend):
    def __init__(self, inner: LLMBackend, health: ModelHealth) -> None:
        self.inner = inner
        self.health = health
        self.name = inner.name
        self.model = inner.model

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        try:
            answer = await self.inner.complete(
                system=system,
                messages=messages,
                tools=tools,
                max_tokens=max_tokens,
                on_text=on_text,
            )
        except (ContextOverflow, RequestRejected):
            raise  # the message's own problem: the model answered
        except LLMError as exc:
            self.health.failed(exc)
            raise
        self.health.succeeded()
        return answer

    def warm(self) -> None:
        self.inner.warm()

    async def close(self) -> None:
        await self.inner.close()
