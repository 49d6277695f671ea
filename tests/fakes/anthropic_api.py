"""A loopback Anthropic Messages API (``POST /v1/messages``) for tests.

The real ``anthropic`` SDK talks to it unchanged: plain JSON answers and SSE streams with the
seven event types (``message_start``, ``ping``, ``content_block_start``,
``content_block_delta`` with ``text_delta`` and ``input_json_delta``, ``content_block_stop``,
``message_delta``, ``message_stop``), ``tool_use`` blocks, errors in Anthropic's shape, and
a simulated prompt cache (a repeated prefix up to the last ``cache_control`` mark is reported
as ``cache_read_input_tokens``; the first time as ``cache_creation_input_tokens``)::

    async with FakeAnthropic() as fake:
        fake.script(Text("hi"), ToolUse("scratch_write", {"text": "x"}),
                    Error(529, "overloaded_error", "Overloaded"))
        client = AsyncAnthropic(base_url=fake.base_url, api_key="k")

Queued replies are used in order; with the queue empty, ``fake.responder(body)`` answers
(by default ``"echo: <text of the last user message>"``). ``Hang()`` holds the request open
until the fake stops; ``Drop(text)`` streams part of an answer and then cuts the connection
(or, given ``error=``, sends an SSE ``error`` event). From synchronous code use
``with FakeAnthropic.run_in_thread() as fake:``.

The script vocabulary (``Reply``, ``Text``, ``ToolUse``, ``Error``, ``Hang``, ``Drop``) and
the server lifecycle (:class:`FakeLLMServer`) are shared with :mod:`tests.fakes.openai_api`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import itertools
import json
import re
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import web

__all__ = [
    "Drop",
    "Error",
    "FakeAnthropic",
    "FakeLLMServer",
    "Hang",
    "RecordedRequest",
    "Reply",
    "ScriptItem",
    "Text",
    "ToolUse",
    "estimate_tokens",
    "split_json",
    "split_text",
]


# -- the script vocabulary -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call in a reply; alone in ``script()`` it is a reply holding just that call."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    #: arguments sent verbatim instead of ``input`` (the OpenAI fake; for malformed JSON)
    raw: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: text, tool calls, or both (text first)."""

    text: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    stop_reason: str | None = None


def Text(text: str) -> Reply:
    return Reply(text=text)


@dataclass(frozen=True, slots=True)
class Error:
    """An HTTP error in the provider's JSON shape, with an optional ``retry-after`` header."""

    status: int
    type: str
    message: str
    retry_after: float | None = None


@dataclass(frozen=True, slots=True)
class Hang:
    """Hold the request open for ``seconds`` (forever when None) or until the fake stops."""

    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Drop:
    """Stream ``text`` (a plain request gets nothing), then cut the connection; with
    ``error`` the stream ends with an SSE error event instead."""

    text: str = ""
    error: Error | None = None


ScriptItem = Reply | ToolUse | Error | Hang | Drop


@dataclass(slots=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def estimate_tokens(text: str) -> int:
    return len(text) // 4 + 1


def split_text(text: str) -> list[str]:
    """Word-sized deltas that join back to ``text``."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])


def split_json(value: dict[str, Any]) -> list[str]:
    """A JSON document cut in small pieces, as streamed tool arguments arrive."""
    raw = json.dumps(value)
    return [raw[i : i + 7] for i in range(0, len(raw), 7)]


# -- the server lifecycle --------------------------------------------------------------------


#: what the providers take of one picture: its types and its largest decoded size
PICTURE_TYPES = {
    "image/jpeg": b"\xff\xd8\xff",
    "image/png": b"\x89PNG",
    "image/gif": b"GIF8",
    "image/webp": b"RIFF",
}
MAX_PICTURE_BYTES = 5 * 1024 * 1024


def picture_problem(media_type: str, data: str) -> tuple[str, bytes]:
    """Why a provider would refuse a base64 picture (``""``: it would take it), and its
    bytes: an unknown type, bad base64, bytes that are not the type said, over 5 MB."""
    if media_type not in PICTURE_TYPES:
        return f"image media_type {media_type!r} is not supported", b""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "image data is not valid base64", b""
    if not raw.startswith(PICTURE_TYPES[media_type]):
        return f"image data does not match the media type {media_type}", raw
    if len(raw) > MAX_PICTURE_BYTES:
        return "image exceeds 5 MB maximum", raw
    return "", raw


class FakeLLMServer(ABC):
    """An aiohttp server on 127.0.0.1 with a reply script; subclasses add routes.
    ``pictures`` holds every picture a request carried, as ``(media_type, bytes)``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.pictures: list[tuple[str, bytes]] = []
        self.responder: Callable[[dict[str, Any]], ScriptItem] = lambda body: Reply(text="")
        self._queue: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._runner: web.AppRunner | None = None
        self._released: asyncio.Event | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @abstractmethod
    def routes(self) -> list[web.RouteDef]:
        """The provider's endpoints."""

    def script(self, *items: ScriptItem) -> None:
        """Queue replies; each request takes the next one."""
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def next_item(self, body: dict[str, Any]) -> Reply | Error | Hang | Drop:
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        if item is None:
            item = self.responder(body)
        return Reply(tool_uses=[item]) if isinstance(item, ToolUse) else item

    def record(self, request: web.Request, body: dict[str, Any]) -> None:
        self.requests.append(RecordedRequest(request.path, dict(request.headers), body))

    async def hang(self, item: Hang) -> None:
        assert self._released is not None
        try:
            await asyncio.wait_for(self._released.wait(), item.seconds)
        except TimeoutError:
            pass

    async def drop_connection(self, request: web.Request) -> web.StreamResponse:
        if request.transport is not None:
            request.transport.abort()
        raise asyncio.CancelledError

    @abstractmethod
    def error_body(self, error: Error) -> dict[str, Any]:
        """The provider's JSON shape for ``error``."""

    def error_response(self, error: Error) -> web.Response:
        headers = {} if error.retry_after is None else {"retry-after": f"{error.retry_after:g}"}
        return web.json_response(self.error_body(error), status=error.status, headers=headers)

    async def start(self) -> None:
        self._released = asyncio.Event()
        app = web.Application(client_max_size=32 * 1024 * 1024)  # the providers' request cap
        app.add_routes(self.routes())
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._released is not None:
            self._released.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @classmethod
    @contextmanager
    def run_in_thread(cls, **kwargs: Any) -> Iterator[Self]:
        """The same fake served by its own event loop in a background thread."""
        fake = cls(**kwargs)
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name=cls.__name__, daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(fake.start(), loop).result(10)
            yield fake
        finally:
            asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            loop.close()


# -- the Anthropic Messages API --------------------------------------------------------------


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return str(block.get("text", ""))
    if block.get("type") == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return "".join(_block_text(part) for part in content)
        return str(content)
    return ""


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message; tool results count when it has no text."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content", "")
        if isinstance(content, str):
            return content
        blocks = [block for block in content if isinstance(block, dict)]
        texts = [str(block.get("text", "")) for block in blocks if block.get("type") == "text"]
        if texts:
            return "".join(texts)
        return "".join(_block_text(block) for block in content)
    return ""


def echo(body: dict[str, Any]) -> Reply:
    return Reply(text=f"echo: {last_user_text(body)}")


def _cached_prefix(body: dict[str, Any]) -> str:
    """The request text up to and including the last block marked ``cache_control``."""
    pieces: list[Any] = [*(body.get("tools") or [])]
    system = body.get("system")
    if isinstance(system, list):
        pieces.extend(system)
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            pieces.extend(content)
    marked = [
        i for i, piece in enumerate(pieces) if isinstance(piece, dict) and "cache_control" in piece
    ]
    if not marked:
        return ""
    return json.dumps(pieces[: marked[-1] + 1], sort_keys=True)


class FakeAnthropic(FakeLLMServer):
    """The Anthropic Messages API on 127.0.0.1, on a random free port.

    ``api_key``: when set, only that key is accepted (as ``x-api-key`` or
    ``Authorization: Bearer``); otherwise any non-empty key is. ``context_limit``: requests
    whose estimated input exceeds it get Anthropic's "prompt is too long" 400.
    """

    def __init__(self, *, api_key: str | None = None, context_limit: int | None = None) -> None:
        super().__init__()
        self.api_key = api_key
        self.context_limit = context_limit
        self.responder: Callable[[dict[str, Any]], ScriptItem] = echo
        self._cache: set[str] = set()
        self._ids = itertools.count(1)

    def routes(self) -> list[web.RouteDef]:
        return [web.post("/v1/messages", self._messages), web.get("/v1/models", self._models)]

    async def _models(self, request: web.Request) -> web.Response:
        """``GET /v1/models``: the list Anthropic answers, or 401 for a wrong key."""
        key = self._key(request)
        if not key or (self.api_key is not None and key != self.api_key):
            return self.error_response(Error(401, "authentication_error", "invalid x-api-key"))
        model = {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5"}
        return web.json_response({"data": [model], "has_more": False})

    # -- request handling ----------------------------------------------------------------------

    def _key(self, request: web.Request) -> str:
        key = request.headers.get("x-api-key", "")
        auth = request.headers.get("Authorization", "")
        if not key and auth.lower().startswith("bearer "):
            key = auth[7:].strip()
        return key

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = None
        self.record(request, body if isinstance(body, dict) else {})
        key = self._key(request)
        if not key or (self.api_key is not None and key != self.api_key):
            return self.error_response(Error(401, "authentication_error", "invalid x-api-key"))
        if not isinstance(body, dict) or "model" not in body or "messages" not in body:
            return self.error_response(
                Error(400, "invalid_request_error", "model and messages: field required")
            )
        problem = self._picture_blocks(body)
        if problem:
            return self.error_response(Error(400, "invalid_request_error", problem))
        input_tokens = estimate_tokens(json.dumps(body))
        if self.context_limit is not None and input_tokens > self.context_limit:
            message = f"prompt is too long: {input_tokens} tokens > {self.context_limit} maximum"
            return self.error_response(Error(400, "invalid_request_error", message))
        item = self.next_item(body)
        if isinstance(item, Error):
            return self.error_response(item)
        if isinstance(item, Hang):
            await self.hang(item)
            return self.error_response(Error(504, "timeout_error", "the fake stopped waiting"))
        usage = self._usage(body, input_tokens)
        if body.get("stream"):
            return await self._stream(request, body, item, usage)
        if isinstance(item, Drop):
            return await self.drop_connection(request)
        return web.json_response(self._message(body, item, usage))

    def _picture_blocks(self, body: dict[str, Any]) -> str:
        """Check every ``image`` block as the API does; keep the pictures it would take."""
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if not isinstance(block, dict) or block.get("type") != "image":
                    continue
                if message.get("role") != "user":
                    return "image blocks are only allowed in user messages"
                source = block.get("source") or {}
                if source.get("type") != "base64":
                    return "image source type must be base64"
                problem, raw = picture_problem(
                    str(source.get("media_type")), str(source.get("data"))
                )
                if problem:
                    return problem
                self.pictures.append((str(source["media_type"]), raw))
        return ""

    def _usage(self, body: dict[str, Any], input_tokens: int) -> dict[str, int]:
        prefix = _cached_prefix(body)
        cached = estimate_tokens(prefix) if prefix else 0
        digest = hashlib.sha256(prefix.encode()).hexdigest()
        hit = bool(prefix) and digest in self._cache
        if prefix:
            self._cache.add(digest)
        return {
            "input_tokens": max(1, input_tokens - cached),
            "cache_read_input_tokens": cached if hit else 0,
            "cache_creation_input_tokens": 0 if hit else cached,
        }

    def _blocks(self, reply: Reply) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        for use in reply.tool_uses:
            call_id = use.id or f"toolu_fake_{next(self._ids):04d}"
            blocks.append({"type": "tool_use", "id": call_id, "name": use.name, "input": use.input})
        return blocks

    def _message(self, body: dict[str, Any], reply: Reply, usage: dict[str, int]) -> dict[str, Any]:
        blocks = self._blocks(reply)
        return {
            "id": f"msg_fake_{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": blocks,
            "stop_reason": reply.stop_reason or ("tool_use" if reply.tool_uses else "end_turn"),
            "stop_sequence": None,
            "usage": {**usage, "output_tokens": estimate_tokens(json.dumps(blocks))},
        }

    async def _stream(
        self, request: web.Request, body: dict[str, Any], item: Reply | Drop, usage: dict[str, int]
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(event: str, data: dict[str, Any]) -> None:
            await response.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            await asyncio.sleep(0)

        reply = item if isinstance(item, Reply) else Reply(text=item.text)
        message = self._message(body, reply, usage)
        start = {**message, "content": [], "stop_reason": None}
        start["usage"] = {**usage, "output_tokens": 1}
        await send("message_start", {"type": "message_start", "message": start})
        await send("ping", {"type": "ping"})
        for index, block in enumerate(message["content"]):
            is_text = block["type"] == "text"
            empty = {"type": "text", "text": ""} if is_text else {**block, "input": {}}
            await send(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": empty},
            )
            if is_text:
                deltas = [
                    {"type": "text_delta", "text": part} for part in split_text(block["text"])
                ]
            else:
                deltas = [
                    {"type": "input_json_delta", "partial_json": part}
                    for part in split_json(block["input"])
                ]
            for delta in deltas:
                await send(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            if isinstance(item, Drop):
                break
            await send("content_block_stop", {"type": "content_block_stop", "index": index})
        if isinstance(item, Drop):
            if item.error is None:
                return await self.drop_connection(request)
            await send("error", self.error_body(item.error))
            await response.write_eof()
            return response
        await send(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
        await send("message_stop", {"type": "message_stop"})
        await response.write_eof()
        return response

    # -- errors --------------------------------------------------------------------------------

    def error_body(self, error: Error) -> dict[str, Any]:
        return {
            "type": "error",
            "error": {"type": error.type, "message": error.message},
            "request_id": f"req_fake_{next(self._ids):04d}",
        }
