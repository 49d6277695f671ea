"""A loopback Nextcloud Talk server for tests: it delivers webhooks and serves the bot API.

Both directions follow Talk's ``docs/bots.md`` and ``BotService``/``BotController``:

* Webhooks: the body is PHP-style JSON (no spaces, ``/`` escaped as ``\\/``) and is signed
  with ``X-Nextcloud-Talk-Random`` (64 characters of ``[A-Za-z0-9+/]``),
  ``X-Nextcloud-Talk-Signature`` = hex HMAC-SHA256(secret, random + body) and
  ``X-Nextcloud-Talk-Backend`` = the server URL with one trailing slash.
* ``POST /ocs/v2.php/apps/spreed/api/v1/bot/{token}/message``: 412 without
  ``OCS-APIRequest: true``; 400 for a random shorter than 32 characters, a missing signature,
  an empty message or an unknown ``replyTo``; 401 when the signature over random + message
  does not match; 413 above ``max_length``; else 201 and the message is recorded.

::

    async with FakeTalkServer(SECRET) as talk, BotApp() as app:
        adapter = create(Settings(enabled=True, backend_url=talk.url, ...), app.context(h))
        talk.webhook_url = app.url + "/webhooks/nctalk"
        await app.start()
        result = await talk.deliver_message(actor="users/scott", room="abc", text="hi")
        await talk.deliver_file(name="scan.pdf", mimetype="application/pdf", caption="read")
        talk.fail_next(429, 500)   # the next two bot requests get these statuses
        talk.refusing = True       # every bot request gets 503 until it is cleared
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import string
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from adapters.base import AdapterContext, Handler
from tests.fakes.lifecycle import ServerContext
from tests.fakes.state import MemoryState

__all__ = ["BotApp", "Delivery", "FakeTalkServer", "PostedMessage", "php_json"]

_RANDOM_ALPHABET = string.ascii_letters + string.digits + "+/"


def php_json(value: Any) -> str:
    """JSON as PHP's ``json_encode`` writes it: compact, ASCII, slashes escaped."""
    return json.dumps(value, separators=(",", ":")).replace("/", "\\/")


def _sign(secret: str, random: str, payload: bytes) -> str:
    return hmac.new(secret.encode(), random.encode() + payload, hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the bot answered to one webhook."""

    status: int
    body: str


@dataclass(frozen=True, slots=True)
class PostedMessage:
    token: str
    message: str
    reply_to: int | None
    reference_id: str
    silent: bool
    id: int


@dataclass(slots=True)
class BotRequest:
    """Every request to the bot API, accepted or not, with the status it got."""

    token: str
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


class FakeTalkServer(ServerContext):
    def __init__(self, secret: str, *, max_length: int = 32000) -> None:
        self.secret = secret
        self.max_length = max_length
        self.webhook_url = ""
        self.messages: list[PostedMessage] = []
        self.requests: list[BotRequest] = []
        #: room tokens that exist; None means every token exists
        self.rooms: set[str] | None = None
        #: conversations the bot was removed from: a post there is refused (403)
        self.forbidden: set[str] = set()
        #: while set, every bot request is answered 503, as a server that is down for a while
        self.refusing = False
        self._failures: list[int] = []
        self._known_ids: dict[str, set[int]] = {}
        self._next_id = 1000
        self._posted = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None
        self.url = ""

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/ocs/v2.php/apps/spreed/api/v1/bot/{token}/message", self._post)
        app.router.add_get("/ocs/v2.php/cloud/capabilities", self._capabilities)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        self._client = aiohttp.ClientSession()

    async def _capabilities(self, request: web.Request) -> web.Response:
        """The public capabilities document, with Talk's part, as Nextcloud answers it."""
        if request.headers.get("OCS-APIRequest", "").lower() != "true":
            return web.json_response({"message": "CSRF check failed"}, status=412)
        spreed = {"features": ["bots-v1", "chat-v2"], "config": {"chat": {"max-length": 32000}}}
        data = {
            "version": {"string": "30.0.0", "major": 30},
            "capabilities": {"spreed": spreed},
        }
        meta = {"status": "ok", "statuscode": 200, "message": "OK"}
        return web.json_response({"ocs": {"meta": meta, "data": data}})

    async def stop(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- webhooks to the bot ----------------------------------------------------------------

    @property
    def backend_header(self) -> str:
        return self.url.rstrip("/") + "/"

    def signed_headers(
        self, body: bytes, *, secret: str | None = None, backend: str | None = None
    ) -> dict[str, str]:
        random = "".join(secrets.choice(_RANDOM_ALPHABET) for _ in range(64))
        return {
            "Content-Type": "application/json",
            "X-Nextcloud-Talk-Random": random,
            "X-Nextcloud-Talk-Signature": _sign(secret or self.secret, random, body),
            "X-Nextcloud-Talk-Backend": self.backend_header if backend is None else backend,
            "OCS-APIRequest": "true",
        }

    async def deliver_raw(self, body: bytes, headers: Mapping[str, str]) -> Delivery:
        """POST ``body`` with exactly ``headers`` to the webhook URL."""
        assert self._client is not None and self.webhook_url, "start() and set webhook_url"
        async with self._client.post(
            self.webhook_url,
            data=body,
            headers=dict(headers),
            timeout=aiohttp.ClientTimeout(total=5),  # Talk's own webhook timeout
        ) as response:
            return Delivery(response.status, await response.text())

    async def deliver(
        self,
        payload: Mapping[str, Any],
        *,
        secret: str | None = None,
        backend: str | None = None,
    ) -> Delivery:
        """Sign and POST one payload as Talk does."""
        body = php_json(payload).encode()
        return await self.deliver_raw(
            body, self.signed_headers(body, secret=secret, backend=backend)
        )

    async def deliver_message(
        self,
        *,
        actor: str = "users/scott",
        actor_name: str = "Scott",
        room: str = "abc",
        room_name: str = "Persona",
        text: str = "hi",
        message_id: int = 17,
        parameters: Mapping[str, Any] | None = None,
        object_name: str = "message",
        in_reply_to: int | None = None,
        secret: str | None = None,
        backend: str | None = None,
    ) -> Delivery:
        """Deliver a chat message (``Create``) as ``BotService::afterChatMessageSent``."""
        self.add_message(room, message_id)
        content = php_json({"message": text, "parameters": dict(parameters or {}) or []})
        obj: dict[str, Any] = {
            "type": "Note",
            "id": str(message_id),
            "name": object_name,
            "content": content,
            "mediaType": "text/markdown",
        }
        if in_reply_to is not None:
            obj["inReplyTo"] = {
                "actor": {"type": "Person", "id": actor, "name": actor_name},
                "object": {
                    "type": "Note",
                    "id": str(in_reply_to),
                    "name": "message",
                    "content": php_json({"message": "...", "parameters": []}),
                    "mediaType": "text/markdown",
                },
            }
        payload = {
            "type": "Create",
            "actor": {"type": "Person", "id": actor, "name": actor_name},
            "object": obj,
            "target": {"type": "Collection", "id": room, "name": room_name},
        }
        return await self.deliver(payload, secret=secret, backend=backend)

    def file_parameter(
        self, name: str, mimetype: str, size: int = 1234, *, file_id: int = 881
    ) -> dict[str, str]:
        """A shared file's rich object as Talk renders it: every value a string, ``link`` the
        file's page on the server (which needs a logged-in user to open)."""
        return {
            "type": "file",
            "id": str(file_id),
            "name": name,
            "size": str(size),
            "path": f"Talk/{name}",
            "link": f"{self.url}/f/{file_id}",
            "etag": "5a1b2c3d4e5f",
            "permissions": "27",
            "mimetype": mimetype,
            "preview-available": "yes" if mimetype.startswith("image/") else "no",
            "mtime": "1767225600",
        }

    async def deliver_file(
        self,
        *,
        name: str = "holiday.jpg",
        mimetype: str = "image/jpeg",
        size: int = 1234,
        caption: str = "",
        **kwargs: Any,
    ) -> Delivery:
        """Deliver a file shared in the chat: ``{file}``, or the caption with the file."""
        parameters = {"file": self.file_parameter(name, mimetype, size)}
        return await self.deliver_message(text=caption or "{file}", parameters=parameters, **kwargs)

    async def deliver_membership(self, kind: str, *, room: str = "abc") -> Delivery:
        """``Join`` (bot enabled in a conversation) or ``Leave`` (removed)."""
        payload = {
            "type": kind,
            "actor": {"type": "Application", "id": "bots/bot-" + "a" * 40, "name": "Persona"},
            "object": {"type": "Collection", "id": room, "name": "Persona"},
        }
        return await self.deliver(payload)

    async def deliver_reaction(
        self, *, room: str = "abc", message_id: int = 17, undo: bool = False
    ) -> Delivery:
        """``Like`` (reaction added) or ``Undo`` of a ``Like`` (reaction removed)."""
        like = {
            "type": "Like",
            "actor": {"type": "Person", "id": "users/scott", "name": "Scott"},
            "object": {
                "type": "Note",
                "id": str(message_id),
                "name": "message",
                "content": php_json({"message": "hi", "parameters": []}),
                "mediaType": "text/markdown",
            },
            "target": {"type": "Collection", "id": room, "name": "Persona"},
            "content": "\U0001f44d",
        }
        payload = (
            like
            if not undo
            else {
                "type": "Undo",
                "actor": like["actor"],
                "object": like,
                "target": like["target"],
            }
        )
        return await self.deliver(payload)

    # -- the bot API ------------------------------------------------------------------------

    def add_message(self, room: str, message_id: int) -> None:
        """Make ``message_id`` a message of ``room`` that a bot may reply to."""
        self._known_ids.setdefault(room, set()).add(message_id)

    def fail_next(self, *statuses: int) -> None:
        """Answer the next bot requests with these statuses, in order."""
        self._failures.extend(statuses)

    async def wait_for_messages(self, count: int) -> list[PostedMessage]:
        """Wait (up to five seconds) until ``count`` messages were posted."""
        async with asyncio.timeout(5.0), self._posted:
            await self._posted.wait_for(lambda: len(self.messages) >= count)
        return list(self.messages)

    async def _post(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        try:
            body = await request.json()
        except ValueError:
            body = {}
        record = BotRequest(token, 0, body if isinstance(body, dict) else {}, dict(request.headers))
        self.requests.append(record)
        record.status = self._decide(token, request, record.body)
        if record.status == 201:
            await self._record(token, record.body)
        return web.json_response(
            {
                "ocs": {
                    "meta": {
                        "status": "ok" if record.status == 201 else "failure",
                        "statuscode": record.status,
                        "message": "",
                    },
                    "data": None,
                }
            },
            status=record.status,
        )

    def _decide(self, token: str, request: web.Request, body: dict[str, Any]) -> int:
        if self._failures:
            return self._failures.pop(0)
        if self.refusing:
            return 503
        if request.headers.get("OCS-APIRequest") != "true":
            return 412
        message = body.get("message")
        random = request.headers.get("X-Nextcloud-Talk-Bot-Random", "")
        signature = request.headers.get("X-Nextcloud-Talk-Bot-Signature", "")
        if not isinstance(message, str) or not message.strip():
            return 400
        if len(random) < 32 or not signature:
            return 400
        expected = _sign(self.secret, random, message.encode())
        if not hmac.compare_digest(expected, signature.lower()):
            return 401
        if self.rooms is not None and token not in self.rooms:
            return 404
        if token in self.forbidden:
            return 403
        reply_to = body.get("replyTo", 0)
        if reply_to and reply_to not in self._known_ids.get(token, set()):
            return 400
        if len(message) > self.max_length:
            return 413
        return 201

    async def _record(self, token: str, body: dict[str, Any]) -> None:
        self._next_id += 1
        self._known_ids.setdefault(token, set()).add(self._next_id)
        message = PostedMessage(
            token=token,
            message=body["message"],
            reply_to=body.get("replyTo") or None,
            reference_id=str(body.get("referenceId", "")),
            silent=bool(body.get("silent")),
            id=self._next_id,
        )
        async with self._posted:
            self.messages.append(message)
            self._posted.notify_all()


@dataclass
class BotApp:
    """A loopback aiohttp app standing in for the daemon's HTTP server."""

    app: web.Application = field(default_factory=web.Application)
    url: str = ""
    _runner: web.AppRunner | None = None

    def context(self, handler: Handler, data_dir: Path | None = None) -> AdapterContext:
        def add_route(method: str, path: str, fn: Callable[..., Awaitable[Any]]) -> None:
            self.app.router.add_route(method, path, fn)

        return AdapterContext(
            handler=handler,
            state=MemoryState(),
            data_dir=data_dir or Path("."),
            add_route=add_route,
        )

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> BotApp:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
