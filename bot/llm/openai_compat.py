"""A backend for any OpenAI-compatible ``/v1/chat/completions`` server (Ollama, llama.cpp,
vLLM), spoken over aiohttp directly.

The system prompt is one ``system`` message (``SystemPrompt.joined()``); tools are OpenAI
function tools; tool results go back as ``role: tool`` messages. With ``on_text`` the request
streams (SSE ``data: {...}`` lines up to ``data: [DONE]``), tool-call fragments included.
Tool arguments that are not valid JSON never crash a turn: the raw text is kept under
``_raw_arguments`` so the tool reports the problem back to the model.

Errors are translated here::

    429, 408, 5xx, time-out, refused or lost connection   -> LLMTransientError (retry_after)
    a 400/413 about the context length                     -> ContextOverflow
    401, 403                                               -> LLMError (the key was refused)
    another 4xx (400, 422 ...)                             -> RequestRejected (not replayed)
    anything else, or an answer that is not JSON           -> LLMError
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiohttp
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

__all__ = ["OpenAICompatBackend", "parse_arguments", "to_wire_messages"]

log = structlog.get_logger(__name__)

_STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "context size",
    "context window",
    "exceed_context",
    "prompt is too long",
    "too many tokens",
)
_UNREADABLE = "My language model sent an answer I could not read."


def to_wire_messages(system: SystemPrompt, messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    if joined := system.joined():
        wire.append({"role": "system", "content": joined})
    for message in messages:
        for result in message.tool_results:
            content = f"ERROR: {result.content}" if result.is_error else result.content
            wire.append({"role": "tool", "tool_call_id": result.call_id, "content": content})
        if message.tool_calls:
            calls = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
            wire.append(
                {"role": message.role, "content": message.text or None, "tool_calls": calls}
            )
        elif message.pictures:
            wire.append({"role": message.role, "content": _with_pictures(message)})
        elif message.text:
            wire.append({"role": message.role, "content": message.text})
    return wire


def _with_pictures(message: Message) -> list[dict[str, Any]]:
    """A user message's words and pictures as content parts (pictures as data URIs)."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.text}] if message.text else []
    for picture in message.pictures:
        encoded = base64.b64encode(picture.data).decode("ascii")
        parts.append(
            {
                "type": "image_url",
                "image_url": {"url": f"data:{picture.media_type};base64,{encoded}"},
            }
        )
    return parts


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool arguments as a dict, whatever the server sent (a JSON string, a dict, junk)."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        log.warning("llm.bad_tool_arguments", chars=len(raw))
        return {"_raw_arguments": raw}
    return value if isinstance(value, dict) else {"value": value}


def _error_text(body: Any) -> tuple[str, str]:
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


async def _sse_data(response: aiohttp.ClientResponse) -> AsyncIterator[str]:
    """The ``data:`` payloads of an SSE body, whatever size its lines are."""
    buffer = b""
    async for block in response.content.iter_any():
        buffer += block
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("data:"):
                yield line[5:].strip()
    line = buffer.decode("utf-8", "replace").strip()
    if line.startswith("data:"):
        yield line[5:].strip()


class _ToolCallParts:
    """Tool calls put together from streamed fragments, keyed by their ``index``."""

    def __init__(self) -> None:
        self._slots: dict[int, dict[str, str]] = {}

    def add(self, position: int, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            return
        index = fragment.get("index")
        key = index if isinstance(index, int) else position
        slot = self._slots.setdefault(key, {"id": "", "name": "", "args": ""})
        function = fragment.get("function") or {}
        slot["id"] = str(fragment.get("id") or slot["id"])
        slot["name"] = str(function.get("name") or slot["name"])
        arguments = function.get("arguments") or ""
        slot["args"] += arguments if isinstance(arguments, str) else json.dumps(arguments)

    def calls(self) -> list[ToolCall]:
        return [
            ToolCall(
                id=slot["id"] or f"call_{key}",
                name=slot["name"],
                arguments=parse_arguments(slot["args"]),
            )
            for key, slot in sorted(self._slots.items())
        ]


class OpenAICompatBackend(LLMBackend):
    """Chat completions over HTTP; streams when ``on_text`` is given."""

    name = "openai_compat"

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 1024,
        temperature: float | None = None,
        name: str = "openai_compat",
    ) -> None:
        self.name = name
        self.model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._api_key = api_key
        self._timeout = aiohttp.ClientTimeout(total=None, connect=timeout, sock_read=timeout)
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            self._session = aiohttp.ClientSession(timeout=self._timeout, headers=headers)
        return self._session

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_wire_messages(system, messages),
            "max_tokens": max_tokens or self._max_tokens,
            "stream": on_text is not None,
        }
        if on_text is not None:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.input_schema,
                    },
                }
                for t in tools
            ]
        if self._temperature is not None:
            body["temperature"] = self._temperature
        try:
            async with self._client().post(self._url, json=body) as response:
                if response.status >= 400:
                    raise await self._status_error(response)
                if on_text is None:
                    return self._completion(await response.json(content_type=None))
                return await self._stream(response, guard_sink(on_text))
        except SinkFailed as failed:
            raise failed.error from None
        except LLMError as error:
            log.warning(
                "llm.failed", backend=self.name, model=self.model, url=self._url, error=str(error)
            )
            raise
        except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError) as exc:
            translated = self._transport_error(exc)
            log.warning(
                "llm.failed",
                backend=self.name,
                model=self.model,
                url=self._url,
                error=str(translated),
            )
            raise translated from exc

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
        return LLMError(f"{self.name}: unreadable answer ({kind})", user_message=_UNREADABLE)

    async def _status_error(self, response: aiohttp.ClientResponse) -> LLMError:
        status = response.status
        try:
            body: Any = json.loads(await response.text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = ""
        detail, kind = _error_text(body)
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

    def _completion(self, data: Any) -> Completion:
        if not isinstance(data, dict) or not data.get("choices"):
            if isinstance(data, dict) and "error" in data:
                detail, kind = _error_text(data)
                raise LLMError(f"{self.name}: {kind} {detail}", user_message=_UNREADABLE)
            raise LLMError(f"{self.name}: no choices in the answer", user_message=_UNREADABLE)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        calls = [
            ToolCall(
                id=str(call.get("id") or f"call_{i}"),
                name=str((call.get("function") or {}).get("name", "")),
                arguments=parse_arguments((call.get("function") or {}).get("arguments")),
            )
            for i, call in enumerate(message.get("tool_calls") or [])
        ]
        return self._result(message.get("content") or "", calls, choice, data)

    def _result(
        self, text: str, calls: list[ToolCall], choice: dict[str, Any], data: dict[str, Any]
    ) -> Completion:
        usage = data.get("usage") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        finish = choice.get("finish_reason") or ("tool_calls" if calls else "stop")
        return Completion(
            text=text,
            tool_calls=calls,
            stop_reason=_STOP_REASONS.get(finish, finish),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cache_read_tokens=int(cached),
            ),
            model=str(data.get("model") or self.model),
        )

    async def _stream(self, response: aiohttp.ClientResponse, on_text: TextSink) -> Completion:
        texts: list[str] = []
        calls = _ToolCallParts()
        choice: dict[str, Any] = {}
        last: dict[str, Any] = {}
        finished = False
        async for payload in _sse_data(response):
            if payload == "[DONE]":
                finished = True
                break
            chunk = json.loads(payload)
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                detail, kind = _error_text(chunk)
                raise LLMTransientError(
                    f"{self.name}: error in stream: {kind} {detail}",
                    user_message=unreachable("it failed while answering"),
                )
            last.update((key, value) for key, value in chunk.items() if value is not None)
            for part in chunk.get("choices") or []:
                if part.get("finish_reason"):
                    choice, finished = part, True
                delta = part.get("delta") or {}
                if isinstance(delta.get("content"), str) and delta["content"]:
                    texts.append(delta["content"])
                    await on_text(delta["content"])
                for position, fragment in enumerate(delta.get("tool_calls") or []):
                    calls.add(position, fragment)
        if not finished:
            raise LLMTransientError(
                f"{self.name}: stream ended early",
                user_message=unreachable("the connection dropped"),
            )
        return self._result("".join(texts), calls.calls(), choice, last)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
