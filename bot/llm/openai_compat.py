"""A backend for any OpenAI-compatible ``/v1/chat/completions`` server (Ollama, llama.cpp,
vLLM), spoken over aiohttp directly.

The system prompt is one ``system`` message (``SystemPrompt.joined()``); tools are OpenAI
function tools; tool results go back as ``role: tool`` messages. With ``on_text`` the request
streams.

Layout: this module is the :class:`~bot.llm.base.LLMBackend` (its HTTP session, the request
and the conversation in the server's shape), the class built from
:mod:`bot.llm.openai_compat_answers` (an answer read into a completion, whole or streamed)
and :mod:`bot.llm.openai_compat_errors` (a failed request translated into personad's errors).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

import aiohttp
import structlog

from bot.daemon.errors import LLMError
from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolSpec
from bot.llm.openai_compat_answers import OpenAICompatAnswers
from bot.llm.openai_compat_errors import OpenAICompatErrors
from bot.llm.retry import SinkFailed, guard_sink

__all__ = ["OpenAICompatBackend", "to_wire_messages"]

log = structlog.get_logger(__name__)


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


class OpenAICompatBackend(OpenAICompatAnswers, OpenAICompatErrors, LLMBackend):
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

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
