"""The Anthropic Messages API backend, through the official ``anthropic`` SDK.

The stable persona text goes first in ``system`` with a ``cache_control`` mark, so Anthropic's
prompt cache reuses it from one request to the next; the per-request block follows, unmarked.
The SDK's own retries are off (``max_retries=0``): :mod:`bot.llm.retry` owns retrying.

Errors are translated here::

    429, 5xx, 529 overloaded, time-out, lost connection   -> LLMTransientError (retry_after)
    400 "prompt is too long", 413                          -> ContextOverflow
    401, 403                                               -> LLMError (the key was refused)
    another 4xx (400 invalid_request_error, 422 ...)       -> RequestRejected (not replayed)
    anything else                                          -> LLMError
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Sequence
from typing import Any

import anthropic
import structlog

from bot.daemon.errors import ContextOverflow, LLMError, LLMTransientError
from bot.llm.base import (
    Completion,
    LLMBackend,
    Message,
    SystemPrompt,
    TextSink,
    ToolCall,
    ToolSpec,
    Usage,
)
from bot.llm.retry import SinkFailed, guard_sink, refused, unreachable

__all__ = ["DEFAULT_BASE_URL", "AnthropicBackend", "system_blocks", "to_wire_messages"]

log = structlog.get_logger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"


def _transport_errors() -> tuple[type[Exception], ...]:
    """The HTTP library's own errors, which escape the SDK while a stream is being read."""
    found: list[type[Exception]] = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()
_FAILURES: tuple[type[Exception], ...] = (anthropic.APIError, *_TRANSPORT_ERRORS)
_TRANSIENT_TYPES = {"rate_limit_error", "overloaded_error", "api_error", "timeout_error"}


def system_blocks(system: SystemPrompt) -> list[dict[str, Any]]:
    """The cached stable prefix first, the per-request block after it; empty parts left out."""
    blocks: list[dict[str, Any]] = []
    if system.stable:
        blocks.append(
            {"type": "text", "text": system.stable, "cache_control": {"type": "ephemeral"}}
        )
    if system.dynamic:
        blocks.append({"type": "text", "text": system.dynamic})
    return blocks


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages in Anthropic's shape; a message with nothing in it is left out."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for result in message.tool_results:  # tool results must open a user turn
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": result.call_id,
                "content": result.content,
            }
            if result.is_error:
                block["is_error"] = True
            content.append(block)
        for picture in message.pictures:  # pictures before the words about them
            content.append(
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": picture.media_type,
                        "data": base64.b64encode(picture.data).decode("ascii"),
                    },
                }
            )
        if message.text:
            content.append({"type": "text", "text": message.text})
        for call in message.tool_calls:
            content.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            )
        if not content:
            continue
        if len(content) == 1 and content[0]["type"] == "text":
            wire.append({"role": message.role, "content": message.text})
        else:
            wire.append({"role": message.role, "content": content})
    return wire


def _completion(message: Any) -> Completion:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = block.input if isinstance(block.input, dict) else {"value": block.input}
            calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
    usage = message.usage
    return Completion(
        text="".join(texts),
        tool_calls=calls,
        stop_reason=message.stop_reason or "end_turn",
        usage=Usage(
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            cache_read_tokens=usage.cache_read_input_tokens or 0,
            cache_write_tokens=usage.cache_creation_input_tokens or 0,
        ),
        model=message.model or "",
    )


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    raw = exc.response.headers.get("retry-after")
    try:
        return max(0.0, float(raw)) if raw is not None else None
    except ValueError:
        return None


def translate_error(exc: BaseException, *, key_env: str, mid_stream: bool = False) -> LLMError:
    """The personad error for an SDK or transport failure; ``mid_stream`` when part of the
    answer had arrived (the SDK reports a connection lost then as one that failed, or lets
    the HTTP library's error through, by version)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return LLMTransientError("anthropic: timed out", user_message=unreachable("it timed out"))
    if isinstance(exc, anthropic.APIConnectionError) and not mid_stream:
        return LLMTransientError(
            "anthropic: connection failed", user_message=unreachable("the connection failed")
        )
    lost = isinstance(exc, anthropic.APIConnectionError)
    if lost or (_TRANSPORT_ERRORS and isinstance(exc, _TRANSPORT_ERRORS)):
        return LLMTransientError(
            f"anthropic: connection lost ({type(exc).__name__})",
            user_message=unreachable("the connection dropped"),
        )
    if not isinstance(exc, anthropic.APIStatusError):
        return LLMError(
            f"anthropic: {type(exc).__name__}",
            user_message="My language model sent an answer I could not read.",
        )
    status, kind = exc.status_code, exc.type or ""
    detail = (exc.api_message or "").lower()
    where = f"anthropic: HTTP {status} {kind}".rstrip()
    if status == 429 or kind == "rate_limit_error":
        reason = "it is rate-limited"
    elif status == 529 or kind == "overloaded_error":
        reason = "it is overloaded"
    elif status >= 500 or status == 408 or kind in _TRANSIENT_TYPES:
        reason = "it had a server error"
    else:
        reason = ""
    if reason:
        return LLMTransientError(
            where, user_message=unreachable(reason), retry_after=_retry_after(exc)
        )
    if status == 413 or "prompt is too long" in detail or "too many tokens" in detail:
        return ContextOverflow(
            f"{where}: {exc.api_message}",
            user_message="Our conversation has grown too long for my language model.",
        )
    if status in (401, 403):
        return LLMError(
            where,
            user_message=f"My Anthropic API key was refused; please check {key_env}.",
        )
    return refused(f"{where}: {exc.api_message}", status)


class AnthropicBackend(LLMBackend):
    """Claude through ``AsyncAnthropic``; streams when ``on_text`` is given."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 1024,
        temperature: float | None = None,
        key_env: str = "ANTHROPIC_API_KEY",
        name: str = "anthropic",
    ) -> None:
        self.name = name
        self.model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._key_env = key_env
        self._url = base_url or DEFAULT_BASE_URL
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=timeout,
            max_retries=0,
        )

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or self._max_tokens,
            "messages": to_wire_messages(messages),
        }
        blocks = system_blocks(system)
        if blocks:
            params["system"] = blocks
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in tools
            ]
        if self._temperature is not None:
            params["temperature"] = self._temperature
        streamed: list[str] = []
        try:
            if on_text is None:
                message = await self._client.messages.create(**params)
            else:
                message = await self._stream(params, guard_sink(on_text), streamed)
        except SinkFailed as failed:
            raise failed.error from None
        except _FAILURES as exc:
            error = translate_error(exc, key_env=self._key_env, mid_stream=bool(streamed))
            log.warning(
                "llm.failed", backend=self.name, model=self.model, url=self._url, error=str(error)
            )
            raise error from exc
        completion = _completion(message)
        log.debug(
            "llm.done",
            backend=self.name,
            model=completion.model,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            cache_read=completion.usage.cache_read_tokens,
            cache_write=completion.usage.cache_write_tokens,
        )
        return completion

    async def _stream(self, params: dict[str, Any], on_text: TextSink, streamed: list[str]) -> Any:
        """The streamed answer, each piece of text handed to ``on_text`` and kept in
        ``streamed`` (what had arrived when a stream fails)."""
        async with self._client.messages.stream(**params) as stream:
            async for event in stream:
                if event.type == "content_block_delta" and event.delta.type == "text_delta":
                    streamed.append(event.delta.text)
                    await on_text(event.delta.text)
            return await stream.get_final_message()

    async def close(self) -> None:
        await self._client.close()
