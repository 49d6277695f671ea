"""How :class:`~bot.llm.openai_compat.OpenAICompatBackend` turns a failed request into
personad's errors: an HTTP status with the error body the server sent, or a transport failure.

Errors are translated here::

    429, 408, 5xx, time-out, refused or lost connection   -> LLMTransientError (retry_after)
    a 400/413 about the context length                     -> ContextOverflow
    401, 403                                               -> LLMError (the key was refused)
    another 4xx (400, 422 ...)                             -> RequestRejected (not replayed)
    anything else, or an answer that is not JSON           -> LLMError

:func:`error_text` reads the error shapes servers use, in a failed response and in an error an
answer carries.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from bot.daemon.errors import ContextOverflow, LLMError, LLMTransientError
from bot.llm.retry import refused, unreachable

__all__ = ["UNREADABLE", "OpenAICompatErrors", "error_text"]

_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "context size",
    "context window",
    "exceed_context",
    "prompt is too long",
    "too many tokens",
)
UNREADABLE = "My language model sent an answer I could not read."


def error_text(body: Any) -> tuple[str, str]:
    """(message, type) from the error shapes servers use."""
    if not isinstance(body, dict):
        return str(body)[:300], ""
    error = body.get("error", body)
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or ""
        return str(message)[:300], str(error.get("type") or error.get("code") or "")
    return str(error)[:300], ""


def _retry_after(headers: Any) -> float | None:
    try:
        raw = headers.get("retry-after")
        return max(0.0, float(raw)) if raw is not None else None
    except (TypeError, ValueError):
        return None


class OpenAICompatErrors:
    """The backend's translation of failures (a part of
    :class:`~bot.llm.openai_compat.OpenAICompatBackend`)."""

    # what it uses of the backend
    name: str
    model: str

    def _transport_error(self, exc: BaseException) -> LLMError:
        kind = type(exc).__name__
        if isinstance(exc, TimeoutError):
            return LLMTransientError(
                f"{self.name}: timed out", user_message=unreachable("it timed out")
            )
        if isinstance(exc, aiohttp.ClientConnectorError):
            return LLMTransientError(
                f"{self.name}: cannot connect ({kind})",
                user_message=unreachable("the connection failed"),
            )
        if isinstance(exc, aiohttp.ClientError):
            return LLMTransientError(
                f"{self.name}: connection lost ({kind})",
                user_message=unreachable("the connection dropped"),
            )
        return LLMError(f"{self.name}: unreadable answer ({kind})", user_message=UNREADABLE)

    async def _status_error(self, response: aiohttp.ClientResponse) -> LLMError:
        status = response.status
        try:
            body: Any = json.loads(await response.text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = ""
        detail, kind = error_text(body)
        where = f"{self.name}: HTTP {status} {kind}".rstrip()
        lowered = f"{detail} {kind}".lower()
        if status in (400, 413) and any(hint in lowered for hint in _OVERFLOW_HINTS):
            return ContextOverflow(
                f"{where}: {detail}",
                user_message="Our conversation has grown too long for my language model.",
            )
        if status == 429:
            reason = "it is rate-limited"
        elif status == 503:
            reason = "it is overloaded"
        elif status >= 500 or status == 408:
            reason = "it had a server error"
        else:
            reason = ""
        if reason:
            return LLMTransientError(
                where, user_message=unreachable(reason), retry_after=_retry_after(response.headers)
            )
        if status in (401, 403):
            return LLMError(where, user_message="My language model server refused my API key.")
        if status == 404:
            return LLMError(
                f"{where}: {detail}",
                user_message=f"My language model {self.model!r} is not available on its server.",
            )
        return refused(f"{where}: {detail}", status)
