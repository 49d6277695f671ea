"""A slow, unreliable OpenAI-compatible model on loopback, for crash tests and the soak bench.

``POST /v1/chat/completions`` answers every request with a text that names the message it
answers, so whoever reads the room afterwards can tell a complete answer from a fragment::

    Answer to msg-7 : w1 w2 ... wN (end of msg-7)

The tag (``msg-`` and letters, digits or dashes) is the last one in the last user message;
:func:`expected_answer` builds the same text. Streamed answers start after ``lead``
seconds and then arrive one word every ``delay`` seconds (both changeable while running: a
test slows the model down, then lets it go). A
share ``failure_rate`` of requests fail, drawn from a seeded random generator, in the ways real
servers fail: 429 with ``retry-after``, 500, 529 overloaded, or a stream cut after a few words.
``StreamingModel.run_in_thread()`` serves it from its own thread and event loop, so a
synchronous script or a test can drive it.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.fakes.anthropic_api import Error, FakeLLMServer

__all__ = ["StreamingModel", "expected_answer", "tag_of"]

_TAG = re.compile(r"msg-[0-9a-z-]+")
_ERRORS = {
    "429": Error(429, "rate_limit_error", "try later", retry_after=0.2),
    "500": Error(500, "server_error", "try later"),
    "529": Error(529, "overloaded_error", "try later"),
}


def tag_of(text: str) -> str | None:
    """The last message tag in ``text``."""
    found = _TAG.findall(text)
    return found[-1] if found else None


def expected_answer(tag: str, words: int) -> str:
    """The whole answer to the message tagged ``tag``."""
    body = " ".join(f"w{n}" for n in range(1, words + 1))
    return f"Answer to {tag} : {body} (end of {tag})"


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content") or ""
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content)
    return ""


class StreamingModel(FakeLLMServer):
    """See the module docstring. ``failures`` counts the failures served, by kind. Serve it
    from a thread with ``with StreamingModel.run_in_thread(words=...) as model:``."""

    def __init__(
        self,
        *,
        words: int = 12,
        delay: float = 0.0,
        lead: float = 0.0,
        failure_rate: float = 0.0,
        seed: int = 1,
    ) -> None:
        super().__init__()
        self.words = words
        self.delay = delay
        self.lead = lead
        self.failure_rate = failure_rate
        self.failures: Counter[str] = Counter()
        self._random = random.Random(seed)

    @property
    def api_url(self) -> str:
        """The base URL an OpenAI-compatible client is given."""
        return f"{self.base_url}/v1"

    def routes(self) -> list[web.RouteDef]:
        return [web.post("/v1/chat/completions", self._completions)]

    def error_body(self, error: Error) -> dict[str, Any]:
        return {"error": {"message": error.message, "type": error.type, "code": error.status}}

    def _draw_failure(self) -> str | None:
        with self._lock:
            if self._random.random() >= self.failure_rate:
                return None
            kind = self._random.choice(["429", "500", "529", "cut"])
            self.failures[kind] += 1
            return kind

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.record(request, body)
        tag = tag_of(_last_user_text(body)) or "msg-unknown"
        text = expected_answer(tag, self.words)
        failure = self._draw_failure()
        if failure in _ERRORS:
            return self.error_response(_ERRORS[failure])
        if not body.get("stream"):
            await self._pause(lambda: self.lead + self.delay * self.words)
            return web.json_response(self._completion(text))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await self._pause(lambda: self.lead)
        pieces = re.findall(r"\S+\s*", text)
        cut_after = len(pieces) // 3 if failure == "cut" else None
        for index, piece in enumerate(pieces):
            if index == cut_after:
                if request.transport is not None:
                    request.transport.abort()
                return response
            await response.write(self._chunk({"content": piece}))
            await self._pause(lambda: self.delay)
        await response.write(self._chunk({}, "stop"))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    @staticmethod
    async def _pause(seconds: Callable[[], float]) -> None:
        """Wait ``seconds()``, read again as it passes: a test may shorten it meanwhile."""
        started = time.monotonic()
        while True:
            left = seconds() - (time.monotonic() - started)
            if left <= 0:
                return
            await asyncio.sleep(min(left, 0.05))

    @staticmethod
    def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        chunk = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "choices": [choice]}
        return f"data: {json.dumps(chunk)}\n\n".encode()

    @staticmethod
    def _completion(text: str) -> dict[str, Any]:
        message = {"role": "assistant", "content": text}
        return {
            "id": "chatcmpl-s",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
