"""Retries for any backend: full-jitter exponential backoff on transient failures.

:class:`RetryingBackend` wraps an :class:`~bot.llm.base.LLMBackend` and tries again when it
raises :class:`~bot.daemon.errors.LLMTransientError` (rate limit, overload, server error, time-out,
lost connection). The wait before try ``n`` is uniform in ``[0, min(max_delay,
base_delay * 2**(n-1))]``, and never shorter than the server's ``retry-after``. Two cases
are never retried:

- text has already reached ``on_text``: the user has seen it and it cannot be unsaid;
- the server asks to wait longer than ``max_delay``: the user would wait for nothing;
- the next try would begin after ``deadline`` seconds (the backend's configured
  ``timeout``) from the first: the user hears that the model cannot be reached within the
  time they were promised, not after a series of backoffs.

When it gives up it raises a plain :class:`~bot.daemon.errors.LLMError` (so no outer layer retries
again) whose ``user_message`` is one sentence such as :func:`unreachable` builds.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence

import structlog

from bot.daemon.errors import LLMError, LLMTransientError, RequestRejected
from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolSpec

__all__ = ["CUT_OFF", "RetryingBackend", "SinkFailed", "guard_sink", "refused", "unreachable"]

log = structlog.get_logger(__name__)

CUT_OFF = "My answer was cut off because my language model stopped responding. Please ask again."


def unreachable(reason: str) -> str:
    """The sentence a user reads when the model cannot be reached, e.g. ``"it is overloaded"``."""
    return f"I can't reach my language model right now ({reason}). Please try again in a minute."


def refused(message: str, status: int) -> LLMError:
    """The error for a 4xx that is not about the key, the model name, the load or the length:
    the request itself was refused, and sending the same conversation again would be too, so
    it is a :class:`~bot.daemon.errors.RequestRejected` (the session sets the message aside)."""
    if 400 <= status < 500 and status not in (401, 403, 404, 408, 409, 429):
        return RequestRejected(
            message,
            user_message=(
                f"My language model refused that message (HTTP {status}), so I have set it"
                " aside: it is in today's log, but I won't send it to the model again."
                " Please rephrase it or send something else."
            ),
        )
    return LLMError(
        message, user_message=f"My language model rejected the request (HTTP {status})."
    )


class SinkFailed(Exception):
    """Carries an error raised by the caller's ``on_text`` through a backend untranslated."""

    def __init__(self, error: Exception) -> None:
        super().__init__(repr(error))
        self.error = error


def guard_sink(sink: TextSink) -> TextSink:
    """``sink`` whose own failures arrive as :class:`SinkFailed`, so a backend does not
    mistake (say) a chat platform's network error for its model's."""

    async def guarded(text: str) -> None:
        try:
            await sink(text)
        except Exception as exc:
            raise SinkFailed(exc) from exc

    return guarded


class _WatchedSink:
    """Passes text on and remembers whether any was delivered."""

    def __init__(self, sink: TextSink) -> None:
        self._sink = sink
        self.delivered = False

    async def __call__(self, text: str) -> None:
        if text:
            self.delivered = True
        await self._sink(text)


class RetryingBackend(LLMBackend):
    """``inner`` with up to ``attempts`` tries per call (``attempts=1``: no retry)."""

    def __init__(
        self,
        inner: LLMBackend,
        *,
        attempts: int,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
        deadline: float | None = None,
        url: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner = inner
        #: no try begins later than this many seconds after the first
        self.deadline = deadline
        #: where the backend sends its requests, for the log lines
        self.url = url
        self._clock = clock
        self.name = inner.name
        self.model = inner.model
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._jitter = jitter

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The wait after failed try number ``attempt`` (1-based)."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        wait = self._jitter() * ceiling
        if retry_after is not None:
            wait = max(wait, retry_after)
        return wait

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        sink = _WatchedSink(on_text) if on_text is not None else None
        began = self._clock()
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self.inner.complete(
                    system=system,
                    messages=messages,
                    tools=tools,
                    max_tokens=max_tokens,
                    on_text=sink,
                )
            except LLMTransientError as exc:
                if sink is not None and sink.delivered:
                    log.warning("llm.cut_off", backend=self.name, attempt=attempt, reason=str(exc))
                    raise LLMError(f"{exc} after text was streamed", user_message=CUT_OFF) from exc
                too_long = exc.retry_after is not None and exc.retry_after > self.max_delay
                wait = self.delay(attempt, exc.retry_after)
                late = self.deadline is not None and (self._clock() - began + wait > self.deadline)
                if attempt >= self.attempts or too_long or late:
                    log.warning(
                        "llm.gave_up",
                        backend=self.name,
                        url=self.url,
                        attempts=attempt,
                        reason=str(exc),
                        retry_after=exc.retry_after,
                        waited=round(self._clock() - began, 1),
                    )
                    raise self._give_up(exc, attempt) from exc
                log.info(
                    "llm.retry",
                    backend=self.name,
                    url=self.url,
                    attempt=attempt,
                    delay=round(wait, 3),
                    reason=str(exc),
                )
                await self._sleep(wait)

    def _give_up(self, exc: LLMTransientError, attempts: int) -> LLMError:
        # a backend that wrote no sentence of its own leaves its technical message there
        sentence = exc.user_message
        if not sentence or sentence == str(exc):
            sentence = unreachable("it keeps failing")
        return LLMError(
            f"{self.name}: gave up after {attempts} attempt(s): {exc}", user_message=sentence
        )

    def warm(self) -> None:
        self.inner.warm()

    async def close(self) -> None:
        await self.inner.close()
