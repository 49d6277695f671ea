"""A loopback Discord: the REST API and the gateway websocket, as discord.py speaks to them.

REST answers under ``/api/v10`` with ``Content-Type: application/json`` exactly (discord.py
reads any other content type as text). The gateway at ``/gateway`` speaks the real opcodes in
text frames: HELLO on connect, READY (then GUILD_CREATE) in answer to IDENTIFY, HEARTBEAT_ACK,
and RESUMED in answer to RESUME after replaying the events the client missed.

Files: an attachment made with :meth:`FakeDiscord.attachment` is served at its ``url`` on the
same loopback port (``/attachments/{id}/{filename}``, as Discord's CDN, no token needed). A
message post may be multipart (``payload_json`` and ``files[n]``): the uploads are kept with
the message in ``sent``, and the message Discord answers lists them as attachments, with
``duration_secs`` and ``waveform`` where the post gave them.

Tests drive it with :meth:`FakeDiscord.dispatch_message`, :meth:`FakeDiscord.dispatch_interaction`,
:meth:`FakeDiscord.redeliver`, :meth:`FakeDiscord.dispatch` (any payload, malformed included),
:meth:`FakeDiscord.drop_connection` and :meth:`FakeDiscord.fail_cdn`, and read what the bot put on
the wire from ``sent``, ``edits``, ``typing``, ``callbacks``, ``commands`` and ``served``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.files import StoredFile, serve, upload
from tests.fakes.lifecycle import ServerContext

__all__ = ["FakeDiscord"]

Json = dict[str, Any]
ADMINISTRATOR = 1 << 3


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(
        status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
    )


def _now() -> str:
    return datetime.now(UTC).isoformat()


class FakeDiscord(ServerContext):
    """One bot account, its application, its guilds, and one gateway session at a time."""

    def __init__(self, *, token: str = "fake-bot-token", heartbeat_ms: int = 41250) -> None:
        self.token = token
        self.heartbeat_ms = heartbeat_ms
        self._ids = itertools.count(1_200_000_000_000_000_001)
        self.bot_user = self.user("personad", bot=True)
        self.application_id = self.snowflake()
        self.owner = self.user("owner")
        self.guilds: dict[str, Json] = {}
        self.messages: dict[str, Json] = {}
        self.sent: list[Json] = []
        self.edits: list[Json] = []
        self.typing: list[str] = []
        self.callbacks: list[Json] = []
        self.deleted: list[str] = []
        self.commands: list[Json] = []
        self.command_puts = 0
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0
        self._interactions: dict[str, Json] = {}
        #: the files users attached, by attachment id, and the bytes served of each path
        self.cdn: dict[str, StoredFile] = {}
        self.served: dict[str, int] = {}
        self._fail_cdn: list[int] = []
        self.silent = False
        #: how many message posts to refuse with 503 before accepting again
        self.refuse_posts = 0
        #: channels the bot lost access to (403 Missing Access) and deleted ones (404)
        self.no_access: set[str] = set()
        self.deleted_channels: set[str] = set()
        #: channels that do not allow voice messages (400, code 50173)
        self.no_voice: set[str] = set()
        #: every POST of a message, answered or not: (channel id, HTTP status)
        self.posts: list[tuple[str, int]] = []
        #: a close code to answer IDENTIFY with (4014: a privileged intent is not enabled)
        self.refuse_identify: int | None = None
        self._ws: web.WebSocketResponse | None = None
        self._session_id = ""
        self._seq = 0
        self._log: list[Json] = []
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_get("/attachments/{id}/{filename}", self._cdn)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def connected(self) -> bool:
        return self._ws is not None and not self._ws.closed

    # ----------------------------------------------------------------- building blocks
    def snowflake(self) -> str:
        return str(next(self._ids))

    def user(self, name: str, *, bot: bool = False) -> Json:
        return {
            "id": self.snowflake(),
            "username": name,
            "discriminator": "0",
            "global_name": name.title(),
            "avatar": None,
            "bot": bot,
            "flags": 0,
        }

    def add_guild(self, name: str = "home") -> tuple[str, str]:
        """A guild with one text channel; returns ``(guild_id, channel_id)``."""
        guild_id, channel_id = self.snowflake(), self.snowflake()
        self.guilds[guild_id] = {
            "id": guild_id,
            "name": name,
            "icon": None,
            "owner_id": self.owner["id"],
            "roles": [
                {
                    "id": guild_id,
                    "name": "@everyone",
                    "permissions": "0",
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "member_count": 2,
            "large": False,
            "members": [],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "channels": [
                {
                    "id": channel_id,
                    "type": 0,
                    "guild_id": guild_id,
                    "name": "general",
                    "position": 0,
                    "permission_overwrites": [],
                    "nsfw": False,
                }
            ],
        }
        return guild_id, channel_id

    def _message(self, channel_id: str, author: Json, content: str, **extra: Any) -> Json:
        message = {
            "id": self.snowflake(),
            "channel_id": channel_id,
            "author": author,
            "content": content,
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
        }
        message.update(extra)
        self.messages[message["id"]] = message
        return message

    def attachment(
        self,
        data: bytes,
        filename: str,
        *,
        content_type: str | None = None,
        size: int | None = None,
        chunked: bool = False,
        voice_duration: float | None = None,
    ) -> Json:
        """An attachment payload whose ``url`` serves ``data``; ``size`` is the size Discord
        declares (the true one unless given), ``voice_duration`` makes it a voice message."""
        attachment_id = self.snowflake()
        path = f"/attachments/{attachment_id}/{filename}"
        declared = len(data) if size is None else size
        self.cdn[attachment_id] = StoredFile(path, data, declared, chunked)
        url = f"http://127.0.0.1:{self.port}{path}?ex=67a1b2c3&is=67a06143&hm=00ff"
        payload: Json = {
            "id": attachment_id,
            "filename": filename,
            "size": declared,
            "url": url,
            "proxy_url": url,
        }
        if content_type is not None:
            payload["content_type"] = content_type
        if voice_duration is not None:
            payload.update(duration_secs=voice_duration, waveform="AAAA", flags=0)
        return payload

    def fail_cdn(self, count: int = 1, status: int = 404) -> None:
        """Answer the next ``count`` attachment downloads with HTTP ``status``."""
        self._fail_cdn.extend([status] * count)

    # ----------------------------------------------------------------- test controls
    async def dispatch_message(
        self,
        content: str,
        *,
        author: Json,
        channel_id: str,
        guild_id: str | None = None,
        mention_bot: bool = False,
        reply_to: str | None = None,
        attachments: tuple[str | Json, ...] = (),
        stickers: tuple[str, ...] = (),
        flags: int = 0,
    ) -> Json:
        """Deliver MESSAGE_CREATE for a message ``author`` wrote; returns its payload.

        ``attachments`` are file names (served empty) or payloads from :meth:`attachment`.
        """
        extra: Json = {}
        if mention_bot:
            extra["mentions"] = [self.bot_user]
        if reply_to is not None:
            extra["type"] = 19
            extra["message_reference"] = {"message_id": reply_to, "channel_id": channel_id}
            if reply_to in self.messages:
                extra["referenced_message"] = self.messages[reply_to]
        extra["attachments"] = [
            self.attachment(b"", item) if isinstance(item, str) else item for item in attachments
        ]
        extra["flags"] = flags
        extra["sticker_items"] = [
            {"id": self.snowflake(), "name": name, "format_type": 1} for name in stickers
        ]
        if guild_id is not None:
            extra["guild_id"] = guild_id
            extra["member"] = {
                "roles": [],
                "joined_at": _now(),
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        message = self._message(channel_id, author, content, **extra)
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    async def redeliver(self, message: Json) -> None:
        """Deliver the same MESSAGE_CREATE again, under a new sequence number."""
        await self.dispatch("MESSAGE_CREATE", message)

    async def dispatch_interaction(
        self,
        name: str,
        options: list[Json] | None = None,
        *,
        user: Json,
        channel_id: str,
        guild_id: str | None = None,
        admin: bool = False,
    ) -> Json:
        """Deliver INTERACTION_CREATE for a slash command; returns its payload."""
        interaction_id = self.snowflake()
        data: Json = {
            "id": interaction_id,
            "application_id": self.application_id,
            "type": 2,
            "token": f"itoken-{interaction_id}",
            "version": 1,
            "locale": "en-US",
            "attachment_size_limit": 8_388_608,
            "entitlements": [],
            "app_permissions": "0",
            "authorizing_integration_owners": {"0": guild_id or "0"},
            "data": {"id": self.snowflake(), "name": name, "type": 1, "options": options or []},
        }
        if guild_id is None:
            data.update(
                user=user, context=1, channel={"id": channel_id, "type": 1, "recipients": [user]}
            )
        else:
            data.update(
                guild_id=guild_id,
                context=0,
                channel={
                    "id": channel_id,
                    "type": 0,
                    "guild_id": guild_id,
                    "name": "general",
                    "position": 0,
                    "permission_overwrites": [],
                },
                member={
                    "user": user,
                    "roles": [],
                    "joined_at": _now(),
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                    "permissions": str(ADMINISTRATOR if admin else 0),
                },
            )
        self._interactions[data["token"]] = data
        await self.dispatch("INTERACTION_CREATE", data)
        return data

    async def dispatch(self, event: str, data: Any) -> None:
        """Record a dispatch in the session's log and send it if a client is connected."""
        self._seq += 1
        payload = {"op": 0, "t": event, "s": self._seq, "d": data}
        self._log.append(payload)
        await self._send(payload)

    async def send_text(self, text: str) -> None:
        """Put a raw text frame on the gateway (to test garbage)."""
        if self._ws is not None and not self._ws.closed:
            await self._ws.send_str(text)

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the gateway socket as a network failure would; the session stays resumable."""
        if self._ws is not None:
            await self._ws.close(code=code)

    async def wait_for(self, check: Callable[[], bool], seconds: float = 10.0) -> None:
        """Wait until ``check()`` holds; fail the test after ``seconds``."""
        async with asyncio.timeout(seconds):
            while not check():  # noqa: ASYNC110 (checks may read any object, not only ours)
                await asyncio.sleep(0.01)

    # ----------------------------------------------------------------- gateway
    def go_silent(self) -> None:
        """Keep the socket open but send nothing (no ACKs either) until the next connection."""
        self.silent = True

    async def _send(self, payload: Json) -> None:
        if self._ws is not None and not self._ws.closed and not self.silent:
            await self._ws.send_str(json.dumps(payload))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        if self._ws is not None and not self._ws.closed:
            await self._ws.close(code=4000)
        self._ws = ws
        self.silent = False
        await self._send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}})
        async for frame in ws:
            if frame.type is not WSMsgType.TEXT:
                continue
            message = json.loads(frame.data)
            await self._gateway_op(message.get("op"), message.get("d"))
        return ws

    async def _gateway_op(self, op: int | None, data: Any) -> None:
        if op == 1:
            self.heartbeats += 1
            await self._send({"op": 11})
        elif op == 2:
            refusal = 4004 if data.get("token") != self.token else self.refuse_identify
            if refusal is not None and self._ws is not None:
                await self._ws.close(code=refusal)
                return
            await self._identify()
        elif op == 6:
            if data.get("session_id") != self._session_id or data.get("token") != self.token:
                await self._send({"op": 9, "d": False})
                return
            self.resumes += 1
            for payload in self._log:
                if payload["s"] > (data.get("seq") or 0):
                    await self._send(payload)
            await self.dispatch("RESUMED", {})

    async def _identify(self) -> None:
        self.identifies += 1
        self._session_id = self.snowflake()
        self._log = []
        await self.dispatch(
            "READY",
            {
                "v": 10,
                "user": self.bot_user,
                "session_id": self._session_id,
                "resume_gateway_url": self.gateway_url,
                "shard": [0, 1],
                "guilds": [{"id": guild_id, "unavailable": True} for guild_id in self.guilds],
                "application": {"id": self.application_id, "flags": 0},
            },
        )
        for guild in self.guilds.values():
            await self.dispatch("GUILD_CREATE", guild)

    # ----------------------------------------------------------------- REST
    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        parts = path.strip("/").split("/")
        body: Any = await _body(request)
        if parts[0] in ("interactions", "webhooks"):
            return await self._webhook(request.method, parts, body)
        if request.headers.get("Authorization") != f"Bot {self.token}":
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        route = (request.method, *["{}" if p.isdigit() else p for p in parts])
        if route == ("GET", "users", "@me"):
            return _json(self.bot_user)
        if route == ("GET", "oauth2", "applications", "@me"):
            return _json(
                {
                    "id": self.application_id,
                    "name": "personad",
                    "icon": None,
                    "description": "",
                    "bot_public": False,
                    "bot_require_code_grant": False,
                    "owner": self.owner,
                    "verify_key": "00" * 32,
                    "flags": 0,
                    "interactions_endpoint_url": None,
                    "bot": self.bot_user,
                }
            )
        if route in (("GET", "gateway"), ("GET", "gateway", "bot")):
            return _json(
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 1000,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        if route == ("POST", "users", "@me", "channels"):
            user_id = str(body["recipient_id"])
            recipient = {"id": user_id, "username": "someone", "discriminator": "0", "avatar": None}
            return _json({"id": user_id + "1", "type": 1, "recipients": [recipient]})
        if route == ("PUT", "applications", "{}", "commands"):
            self.command_puts += 1
            self.commands = [self._registered(command, parts[1]) for command in body]
            return _json(self.commands)
        if route == ("POST", "channels", "{}", "typing"):
            self.typing.append(parts[1])
            return web.Response(status=204)
        if route == ("POST", "channels", "{}", "messages"):
            return self._post_message(parts[1], body)
        if route == ("PATCH", "channels", "{}", "messages", "{}"):
            return self._edit_message(parts[3], body, via="channel")
        return _json({"message": f"404: Not Found {request.method} {path}", "code": 0}, 404)

    def _registered(self, command: Json, application_id: str) -> Json:
        """A command as Discord answers it: with ids, permissions as a string."""
        permissions = command.get("default_member_permissions")
        return {
            **command,
            "id": self.snowflake(),
            "application_id": application_id,
            "version": self.snowflake(),
            "default_member_permissions": None if permissions is None else str(permissions),
        }

    def _post_message(self, channel_id: str, body: Json, via: str = "channel") -> web.Response:
        response = self._post_refused(channel_id)
        if response is None and channel_id in self.no_voice and body.get("flags", 0) & 8192:
            message = "Cannot send voice messages in this channel"
            response = _json({"message": message, "code": 50173}, 400)
        self.posts.append((channel_id, 200 if response is None else response.status))
        return response or self._posted(channel_id, body, via)

    def _post_refused(self, channel_id: str) -> web.Response | None:
        if self.refuse_posts > 0:
            self.refuse_posts -= 1
            return _json({"message": "503: Service Unavailable", "code": 0}, 503)
        if channel_id in self.no_access:
            return _json({"message": "Missing Access", "code": 50001}, 403)
        if channel_id in self.deleted_channels:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        return None

    def _posted(self, channel_id: str, body: Json, via: str) -> web.Response:
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            for earlier in self.sent:  # Discord answers a repeated nonce with the first message
                if earlier.get("nonce") == str(nonce) and earlier["channel_id"] == channel_id:
                    return _json({k: v for k, v in earlier.items() if k not in ("via", "uploads")})
        extra: Json = {}
        if nonce is not None:
            extra["nonce"] = str(nonce)
        if body.get("flags"):
            extra["flags"] = body["flags"]
        uploads = body.get("_uploads") or []
        if uploads:
            extra["attachments"] = [
                self._uploaded(entry, uploads) for entry in body.get("attachments") or []
            ]
        reference = body.get("message_reference")
        if reference:
            ids = {key: str(value) for key, value in reference.items() if key.endswith("_id")}
            extra.update(type=19, message_reference={**ids, "channel_id": channel_id})
        message = self._message(channel_id, self.bot_user, body.get("content") or "", **extra)
        self.sent.append({**message, "via": via, "uploads": uploads})
        return _json(message)

    def _uploaded(self, entry: Json, uploads: list[Any]) -> Json:
        """An uploaded file as Discord lists it on the new message."""
        sent = uploads[int(entry["id"])]
        attachment = self.attachment(
            sent.data, entry.get("filename") or sent.filename, content_type=sent.content_type
        )
        for field in ("duration_secs", "waveform"):
            if field in entry:
                attachment[field] = entry[field]
        return attachment

    def _edit_message(self, message_id: str, body: Json, *, via: str) -> web.Response:
        message = self.messages.get(message_id)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        message.update(content=body.get("content", message["content"]), edited_timestamp=_now())
        self.edits.append({"id": message_id, "content": message["content"], "via": via})
        return _json(message)

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        stored = self.cdn.get(request.match_info["id"])
        if stored is None or not stored.path.endswith("/" + request.match_info["filename"]):
            return web.Response(status=404, text="Not Found")
        if self._fail_cdn:
            return web.Response(status=self._fail_cdn.pop(0), text="upstream error")
        return await serve(request, stored, self.served)

    async def _webhook(self, method: str, parts: list[str], body: Json) -> web.Response:
        token = parts[2] if len(parts) > 2 else ""
        interaction = self._interactions.get(token)
        if interaction is None:
            return _json({"message": "Unknown Webhook", "code": 10015}, 404)
        channel_id = interaction["channel"]["id"]
        if parts[0] == "interactions" and method == "POST":
            self.callbacks.append({"interaction_id": parts[1], **body})
            original = self._message(channel_id, self.bot_user, "")
            interaction["original"] = original["id"]
            return _json(
                {
                    "interaction": {
                        "id": parts[1],
                        "type": 2,
                        "response_message_id": original["id"],
                        "response_message_loading": body.get("type") == 5,
                        "response_message_ephemeral": False,
                    },
                    "resource": {"type": body.get("type"), "message": original},
                }
            )
        if method == "POST" and len(parts) == 3:
            return self._post_message(channel_id, body, via="followup")
        if method == "DELETE" and parts[3:] == ["messages", "@original"]:
            self.deleted.append(interaction.get("original", ""))
            return web.Response(status=204)
        if method == "PATCH" and len(parts) == 5:
            target = interaction.get("original", "") if parts[4] == "@original" else parts[4]
            via = "original" if parts[4] == "@original" else "followup"
            if via == "original" and target and target not in {m["id"] for m in self.sent}:
                self.sent.append(
                    {**self.messages[target], "content": body.get("content"), "via": via}
                )
                self.messages[target]["content"] = body.get("content")
                return _json(self.messages[target])
            return self._edit_message(target, body, via=via)
        return _json({"message": "404: Not Found", "code": 0}, 404)


async def _body(request: web.Request) -> Any:
    """A JSON body, or a multipart one: ``payload_json`` with the ``files[n]`` uploads under
    ``_uploads``, in order."""
    if not request.can_read_body:
        return None
    if request.content_type != "multipart/form-data":
        return await request.json()
    form = await request.post()
    raw = form.get("payload_json")
    body: Json = json.loads(raw) if isinstance(raw, str) else {}
    body["_uploads"] = [
        upload(value) for name, value in form.items() if isinstance(value, web.FileField)
    ]
    return body
