"""A loopback OpenAI-compatible chat completions server (``POST /v1/chat/completions``).

It answers the way Ollama, llama.cpp and vLLM do: plain JSON, or with ``"stream": true`` SSE
``data: {chunk}`` lines ending in ``data: [DONE]``, tool calls streamed as fragments keyed by
``index``, a final usage chunk when ``stream_options.include_usage`` is asked for, and errors
as ``{"error": {"message", "type", "code"}}``. It uses the same script vocabulary as
:mod:`tests.fakes.anthropic_api`::

    async with FakeOpenAI() as fake:
        fake.script(Text("hi"), ToolUse("scratch_write", {"text": "x"}),
                    ToolUse("scratch_write", raw='{"text": '),  # malformed arguments
                    Error(503, "server_error", "Loading model"))

With the queue empty the default responder answers ``"echo: <last user text>"``.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.fakes.anthropic_api import (
    Drop,
    Error,
    FakeLLMServer,
    Hang,
    RecordedRequest,
    Reply,
    ScriptItem,
    Text,
    ToolUse,
    estimate_tokens,
    picture_problem,
    split_text,
)

__all__ = [
    "Drop",
    "Error",
    "FakeOpenAI",
    "Hang",
    "RecordedRequest",
    "Reply",
    "ScriptItem",
    "Text",
    "ToolUse",
]


def last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content") or ""
        if isinstance(content, list):
            return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        return str(content)
    return ""


def echo(body: dict[str, Any]) -> Reply:
    return Reply(text=f"echo: {last_user_text(body)}")


class FakeOpenAI(FakeLLMServer):
    """``/v1/chat/completions`` on 127.0.0.1, on a random free port.

    ``api_key``: when set, requests must carry ``Authorization: Bearer <api_key>``; otherwise
    no key is needed, as with a local server. ``context_limit``: requests whose estimated
    input exceeds it get the usual "maximum context length" 400. ``list_models=False``: no
    ``GET /v1/models`` (a 404, as some llama.cpp builds and proxies answer), chat only.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        context_limit: int | None = None,
        list_models: bool = True,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.context_limit = context_limit
        self.list_models = list_models
        self.responder: Callable[[dict[str, Any]], ScriptItem] = echo
        self._ids = itertools.count(1)

    def routes(self) -> list[web.RouteDef]:
        routes = [web.post("/v1/chat/completions", self._completions)]
        if self.list_models:
            routes.append(web.get("/v1/models", self._models))
        return routes

    async def _models(self, request: web.Request) -> web.Response:
        """``GET /v1/models``, as Ollama and llama.cpp answer it."""
        if self.api_key is not None:
            if request.headers.get("Authorization", "") != f"Bearer {self.api_key}":
                return self.error_response(
                    Error(401, "invalid_request_error", "Incorrect API key provided.")
                )
        return web.json_response(
            {"object": "list", "data": [{"id": "llama3.1", "object": "model"}]}
        )

    def _image_parts(self, body: dict[str, Any]) -> str:
        """Check every ``image_url`` part (a ``data:`` URI); keep the pictures it carries."""
        for message in body["messages"]:
            content = message.get("content")
            for part in content if isinstance(content, list) else ():
                if not isinstance(part, dict) or part.get("type") != "image_url":
                    continue
                url = str((part.get("image_url") or {}).get("url", ""))
                head, comma, data = url.partition(",")
                if not (url.startswith("data:") and head.endswith(";base64") and comma):
                    return "image_url must be a data: URI with base64 data"
                media_type = head[len("data:") : -len(";base64")]
                problem, raw = picture_problem(media_type, data)
                if problem:
                    return problem
                self.pictures.append((media_type, raw))
        return ""

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = None
        self.record(request, body if isinstance(body, dict) else {})
        if self.api_key is not None:
            if request.headers.get("Authorization", "") != f"Bearer {self.api_key}":
                return self.error_response(
                    Error(401, "invalid_request_error", "Incorrect API key provided.")
                )
        if not isinstance(body, dict) or "messages" not in body:
            return self.error_response(Error(400, "invalid_request_error", "messages is required"))
        problem = self._image_parts(body)
        if problem:
            return self.error_response(Error(400, "invalid_request_error", problem))
        prompt_tokens = estimate_tokens(json.dumps(body["messages"]))
        if self.context_limit is not None and prompt_tokens > self.context_limit:
            message = (
                f"This model's maximum context length is {self.context_limit} tokens. "
                f"However, your messages resulted in {prompt_tokens} tokens."
            )
            return self.error_response(Error(400, "invalid_request_error", message))
        item = self.next_item(body)
        if isinstance(item, Error):
            return self.error_response(item)
        if isinstance(item, Hang):
            await self.hang(item)
            return self.error_response(Error(504, "timeout", "the fake stopped waiting"))
        if body.get("stream"):
            return await self._stream(request, body, item, prompt_tokens)
        if isinstance(item, Drop):
            return await self.drop_connection(request)
        return web.json_response(self._completion(body, item, prompt_tokens))

    def _tool_calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [
            {
                "id": use.id or f"call_fake_{next(self._ids):04d}",
                "type": "function",
                "function": {
                    "name": use.name,
                    "arguments": use.raw if use.raw is not None else json.dumps(use.input),
                },
            }
            for use in reply.tool_uses
        ]

    def _finish(self, reply: Reply) -> str:
        return reply.stop_reason or ("tool_calls" if reply.tool_uses else "stop")

    def _usage(self, prompt_tokens: int, reply: Reply) -> dict[str, int]:
        completion = estimate_tokens(reply.text + json.dumps(self._tool_calls(reply)))
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
        }

    def _completion(self, body: dict[str, Any], reply: Reply, prompt_tokens: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_uses:
            message["tool_calls"] = self._tool_calls(reply)
        return {
            "id": f"chatcmpl-fake{next(self._ids):04d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}],
            "usage": self._usage(prompt_tokens, reply),
        }

    async def _stream(
        self, request: web.Request, body: dict[str, Any], item: Reply | Drop, prompt_tokens: int
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        base = {
            "id": f"chatcmpl-fake{next(self._ids):04d}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", ""),
        }

        async def send(delta: dict[str, Any], finish: str | None = None) -> None:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            chunk = {**base, "choices": [choice]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        reply = item if isinstance(item, Reply) else Reply(text=item.text)
        await send({"role": "assistant", "content": ""})
        for piece in split_text(reply.text):
            await send({"content": piece})
        if isinstance(item, Drop):
            if item.error is None:
                return await self.drop_connection(request)
            await response.write(f"data: {json.dumps(self.error_body(item.error))}\n\n".encode())
            await response.write_eof()
            return response
        for index, call in enumerate(self._tool_calls(reply)):
            head = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
            await send({"tool_calls": [{"index": index, **head}]})
            arguments = call["function"]["arguments"]
            for start in range(0, len(arguments), 6):
                fragment = {"index": index, "function": {"arguments": arguments[start : start + 6]}}
                await send({"tool_calls": [fragment]})
        await send({}, self._finish(reply))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage_chunk = {**base, "choices": [], "usage": self._usage(prompt_tokens, reply)}
            await response.write(f"data: {json.dumps(usage_chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    def error_body(self, error: Error) -> dict[str, Any]:
        code: str | int | None = error.status
        if "maximum context length" in error.message:
            code = "context_length_exceeded"
        return {
            "error": {"message": error.message, "type": error.type, "param": None, "code": code}
        }
