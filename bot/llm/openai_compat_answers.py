"""How :class:`~bot.llm.openai_compat.OpenAICompatBackend` reads an answer into a
:class:`~bot.llm.base.Completion`: a whole JSON body, or a stream.

With ``on_text`` the request streams (SSE ``data: {...}`` lines up to ``data: [DONE]``),
tool-call fragments included: each piece of text goes to ``on_text`` as it arrives, and a tool
call's fragments are put together by their ``index``. A stream that carries an error or ends
before it is finished is a transient failure. Tool arguments that are not valid JSON never
crash a turn: the raw text is kept under ``_raw_arguments`` so the tool reports the problem
back to the model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import structlog

from bot.daemon.errors import LLMError, LLMTransientError
from bot.llm.base import Completion, TextSink, ToolCall, Usage
from bot.llm.openai_compat_errors import UNREADABLE, error_text
from bot.llm.retry import unreachable

__all__ = ["OpenAICompatAnswers", "parse_arguments"]

log = structlog.get_logger(__name__)

_STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


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


class OpenAICompatAnswers:
    """The backend's reading of answers (a part of
    :class:`~bot.llm.openai_compat.OpenAICompatBackend`)."""

    # what it uses of the backend
    name: str
    model: str

    def _completion(self, data: Any) -> Completion:
        if not isinstance(data, dict) or not data.get("choices"):
            if isinstance(data, dict) and "error" in data:
                detail, kind = error_text(data)
                raise LLMError(f"{self.name}: {kind} {detail}", user_message=UNREADABLE)
            raise LLMError(f"{self.name}: no choices in the answer", user_message=UNREADABLE)
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
                detail, kind = error_text(chunk)
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
