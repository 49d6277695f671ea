"""A loopback Telegram Bot API, as python-telegram-bot speaks to it.

Requests are ``POST /bot{token}/{method}`` with form-encoded (every value a string, lists and
objects as JSON text), JSON or multipart bodies; method names are case-insensitive, as on the
real server. Answers have the real shapes: ``{"ok": true, "result": ...}`` or
``{"ok": false, "error_code": 400, "description": "Bad Request: ..."}``.

``getUpdates`` honours ``offset`` (updates below it are confirmed and forgotten), ``limit``,
``allowed_updates`` and ``timeout`` (a long poll is held until an update is queued or the
timeout passes); a second poll ends the first with 409, and polling while a webhook is set is
a 409 as well. ``sendMessage``/``editMessageText`` parse HTML and MarkdownV2 the way Telegram
does (only its tags, every other ``<``, ``>``, ``&`` escaped; reserved MarkdownV2 characters
escaped) and answer 400 "can't parse entities" otherwise.

Files: ``getFile`` answers a stored file's ``file_path`` (400 "file is too big" past the
20 MB bots may fetch) and ``GET /file/bot{token}/{file_path}`` serves its bytes, in 64 kB
writes, with a true ``Content-Length`` or chunked. ``sendVoice`` takes a multipart upload.

Tests drive it with :meth:`push_message`, :meth:`push_update` (anything, malformed included),
:meth:`push_file` (a photo, album, voice note or document, built with :meth:`file` and
:meth:`photo`), :meth:`deliver_webhook`, :meth:`fail_next` (answer with an HTTP error such as
502), :meth:`fail_download`, :meth:`drop_next` (close the connection without answering),
:meth:`flood_next` (429 with ``retry_after``) and :meth:`reject_entities`,
and read ``sent``, ``voices``, ``served``, ``edits``, ``actions``, ``commands`` and
``requests``.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import re
import time
from typing import Any

import aiohttp
from aiohttp import web

from tests.fakes.files import StoredFile, Upload, serve, upload
from tests.fakes.lifecycle import ServerContext

__all__ = ["FakeTelegram"]

Json = dict[str, Any]
_JSON_FIELDS = {"allowed_updates", "commands", "reply_parameters", "scope", "entities"}
#: the largest file getFile hands a bot
MAX_BOT_DOWNLOAD = 20 * 1024 * 1024


def _ok(result: Any) -> web.Response:
    return web.json_response({"ok": True, "result": result})


def _error(code: int, description: str, **parameters: Any) -> web.Response:
    body: Json = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=code)


class _ApiError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


class FakeTelegram(ServerContext):
    """One bot account with its update queue, the chats it talks in and what it sent."""

    def __init__(self, *, token: str = "123456:TEST-token", username: str = "persona_bot") -> None:
        self.token = token
        self.bot_user: Json = {
            "id": int(token.split(":")[0]),
            "is_bot": True,
            "first_name": "Persona",
            "username": username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.port = 0
        self.requests: list[tuple[str, Json]] = []
        self.sent: list[Json] = []
        self.edits: list[Json] = []
        self.actions: list[tuple[str, str]] = []
        self.commands: list[Json] = []
        self.webhook: Json = {"url": "", "secret_token": ""}
        self.messages: dict[tuple[str, int], Json] = {}
        self.files: dict[str, StoredFile] = {}
        #: bytes written of each file path, once its download ended (finished or cut off)
        self.served: dict[str, int] = {}
        #: voice messages the bot sent: chat_id, message_id, duration and the upload
        self.voices: list[Json] = []
        #: chats whose user forbids voice messages (a Telegram privacy setting)
        self.voice_forbidden: set[str] = set()
        #: documents the bot sent: chat_id, message_id and the upload
        self.documents: list[Json] = []
        self._fail_downloads: list[int] = []
        self._file_ids = itertools.count(1)
        self._updates: list[Json] = []
        self._update_ids = itertools.count(10_001)
        self._message_ids = itertools.count(501)
        self._arrived = asyncio.Condition()
        self._poller: asyncio.Future[None] | None = None
        self._fail: list[int] = []
        #: while set, sendMessage and editMessageText answer 502 (polling still works)
        self.refusing_sends = False
        #: sendMessage calls still answered before the queued refusals (fail_sends)
        self._sends_before_failing: int | None = None
        self._failing_sends = 0
        #: chats whose user blocked the bot (403) and chats that no longer exist (400)
        self.blocked: set[str] = set()
        self.vanished: set[str] = set()
        self._drop = 0
        self._flood: list[int] = []
        self._reject_entities = 0
        self._closing = False
        self._runner: web.AppRunner | None = None

    # ---------------------------------------------------------------- lifecycle
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._dispatch)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._closing = False

    async def stop(self) -> None:
        self._closing = True
        async with self._arrived:
            self._arrived.notify_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- test controls
    def fail_next(self, count: int = 1, status: int = 502) -> None:
        """Answer the next ``count`` requests with HTTP ``status`` (502 Bad Gateway)."""
        self._fail.extend([status] * count)

    def recover(self) -> None:
        """Forget every queued failure: the next request is answered normally."""
        self._fail.clear()
        self._drop = 0
        self._flood.clear()

    def flood_next(self, count: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``count`` requests with 429 flood control."""
        self._flood.extend([retry_after] * count)

    def drop_next(self, count: int = 1) -> None:
        """Close the connection of the next ``count`` requests without answering."""
        self._drop += count

    def fail_sends(self, *, after: int, count: int = 1) -> None:
        """Let ``after`` more sendMessage calls through, then answer ``count`` with 502."""
        self._sends_before_failing = after
        self._failing_sends = count

    def reject_entities(self, count: int = 1) -> None:
        """Refuse the markup of the next ``count`` formatted messages, as on a parse error."""
        self._reject_entities += count

    def fail_download(self, count: int = 1, status: int = 404) -> None:
        """Answer the next ``count`` file downloads with HTTP ``status``."""
        self._fail_downloads.extend([status] * count)

    def file(
        self, data: bytes, *, size: int | None = -1, chunked: bool = False, **fields: Any
    ) -> Json:
        """Store ``data`` as a file a user sent; the Bot API object describing it.

        ``size`` is the ``file_size`` Telegram declares (by default the true one; None leaves
        it out; a wrong one tests that it is not believed); ``chunked`` serves the bytes with
        no ``Content-Length``. ``fields`` are the object's others (``width``, ``duration``...).
        """
        number = next(self._file_ids)
        declared = len(data) if size == -1 else size
        file_id = f"AgAD-file-{number}"
        self.files[file_id] = StoredFile(f"documents/file_{number}", data, declared, chunked)
        described: Json = {"file_id": file_id, "file_unique_id": f"unique-{number}", **fields}
        if declared is not None:
            described["file_size"] = declared
        return described

    def photo(self, data: bytes, width: int, height: int, **kwargs: Any) -> list[Json]:
        """A photo's sizes as Telegram sends them: a small thumbnail, then ``data`` itself."""
        small = {"width": max(1, width // 4), "height": max(1, height // 4)}
        thumbnail = self.file(b"\xff\xd8 thumbnail", **small)
        return [thumbnail, self.file(data, width=width, height=height, **kwargs)]

    def push_file(
        self,
        chat_id: int,
        field: str,
        media: Json | list[Json],
        *,
        caption: str | None = None,
        album: str | None = None,
        **kwargs: Any,
    ) -> Json:
        """Queue a media message: ``field`` is ``photo``, ``voice``, ``document``...; ``album``
        is the ``media_group_id`` the photos of one album share."""
        extra: Json = {field: media, **kwargs.pop("extra", {})}
        if caption is not None:
            _put_text(extra, caption, "caption")
        if album is not None:
            extra["media_group_id"] = album
        return self.push_message(chat_id, None, extra=extra, **kwargs)

    def user(self, user_id: int, first_name: str = "Scott", username: str | None = None) -> Json:
        user: Json = {"id": user_id, "is_bot": False, "first_name": first_name}
        if username:
            user["username"] = username
        return user

    def chat(self, chat_id: int, kind: str = "private", title: str = "A group") -> Json:
        if kind == "private":
            return {"id": chat_id, "type": "private", "first_name": "Scott"}
        return {"id": chat_id, "type": kind, "title": title}

    def message(
        self,
        chat_id: int,
        text: str | None,
        *,
        from_id: int | None = None,
        chat_type: str = "private",
        reply_to: int | None = None,
        extra: Json | None = None,
    ) -> Json:
        """A user's message as Telegram would deliver it, with mention/command entities.

        In a private chat the sender is the chat's own user unless ``from_id`` says otherwise.
        """
        if from_id is None:
            from_id = chat_id if chat_type == "private" else 4242
        message: Json = {
            "message_id": next(self._message_ids),
            "from": self.user(from_id),
            "chat": self.chat(chat_id, chat_type),
            "date": int(time.time()),
        }
        if text is not None:
            _put_text(message, text, "text")
        if reply_to is not None:
            message["reply_to_message"] = self.messages[(str(chat_id), reply_to)]
        message.update(extra or {})
        self.messages[(str(chat_id), message["message_id"])] = message
        return message

    def push_message(self, chat_id: int, text: str | None, **kwargs: Any) -> Json:
        """Queue a new message update; returns the update."""
        return self.push_update({"message": self.message(chat_id, text, **kwargs)})

    def push_update(self, update: Json) -> Json:
        """Queue any update (a copy of one already delivered, or a malformed one)."""
        update = {"update_id": next(self._update_ids), **update}
        self._updates.append(update)
        asyncio.get_running_loop().create_task(self._wake())
        return update

    async def _wake(self) -> None:
        async with self._arrived:
            self._arrived.notify_all()

    async def deliver_webhook(self, update: Json, *, secret: str | None = None) -> int:
        """POST ``update`` to the registered webhook as Telegram does; returns the status."""
        headers = {"X-Telegram-Bot-Api-Secret-Token": self.webhook["secret_token"]}
        if secret is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        update = {"update_id": next(self._update_ids), **update}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.webhook["url"], json=update, headers=headers) as response,
        ):
            return response.status

    @property
    def pending(self) -> list[Json]:
        return list(self._updates)

    def texts(self, chat_id: int | str | None = None) -> list[str]:
        """The visible text of every message the bot sent (to ``chat_id``), in order."""
        return [s["visible"] for s in self.sent if chat_id is None or s["chat_id"] == str(chat_id)]

    # ---------------------------------------------------------------- the API
    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        params = await _params(request)
        method = request.match_info["method"].lower()
        self.requests.append((method, params))
        if self._drop:
            self._drop -= 1
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        if self._fail:
            status = self._fail.pop(0)
            return web.Response(status=status, text="<html>Bad Gateway</html>")
        if method == "sendmessage" and self._sends_before_failing is not None:
            if self._sends_before_failing > 0:
                self._sends_before_failing -= 1
            elif self._failing_sends > 0:
                self._failing_sends -= 1
                return web.Response(status=502, text="<html>Bad Gateway</html>")
        if self.refusing_sends and method in ("sendmessage", "editmessagetext"):
            return web.Response(status=502, text="<html>Bad Gateway</html>")
        chat = str(params.get("chat_id", ""))
        if method == "sendvoice" and chat in self.voice_forbidden:
            return _error(400, "Bad Request: VOICE_MESSAGES_FORBIDDEN")
        if method in (
            "sendmessage",
            "editmessagetext",
            "sendchataction",
            "sendvoice",
            "senddocument",
        ):
            if chat in self.blocked:
                return _error(403, "Forbidden: bot was blocked by the user")
            if chat in self.vanished:
                return _error(400, "Bad Request: chat not found")
        if self._flood:
            wait = self._flood.pop(0)
            return _error(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            return _error(404, "Not Found")
        try:
            return _ok(await handler(params))
        except _ApiError as exc:
            return _error(exc.code, exc.description)
        except (KeyError, ValueError) as exc:
            return _error(400, f"Bad Request: {exc}")

    async def _m_getme(self, params: Json) -> Any:
        return self.bot_user

    async def _m_deletewebhook(self, params: Json) -> Any:
        if str(params.get("drop_pending_updates", "")).lower() == "true":
            self._updates.clear()
        self.webhook = {"url": "", "secret_token": ""}
        return True

    async def _m_setwebhook(self, params: Json) -> Any:
        self.webhook = {"url": params["url"], "secret_token": params.get("secret_token", "")}
        return True

    async def _m_getwebhookinfo(self, params: Json) -> Any:
        return {
            "url": self.webhook["url"],
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    async def _m_getupdates(self, params: Json) -> Any:
        if self.webhook["url"]:
            raise _ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        allowed = params.get("allowed_updates") or []
        if self._poller is not None and not self._poller.done():
            self._poller.set_result(None)
        poller = self._poller = asyncio.get_running_loop().create_future()
        deadline = time.monotonic() + timeout
        while True:
            if offset:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
            if allowed:
                self._updates = [u for u in self._updates if _allowed(u, allowed)]
            if self._updates or self._closing:
                return self._updates[:limit]
            if poller.done():
                raise _ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            left = deadline - time.monotonic()
            if left <= 0:
                return []
            async with self._arrived:
                try:
                    await asyncio.wait_for(self._arrived.wait(), timeout=min(left, 0.2))
                except TimeoutError:
                    pass

    async def _m_sendmessage(self, params: Json) -> Any:
        chat_id = str(params["chat_id"])
        visible = self._check_text(params)
        reply = params.get("reply_parameters") or {}
        reply_id = reply.get("message_id") or params.get("reply_to_message_id")
        if reply_id is not None and (chat_id, int(reply_id)) not in self.messages:
            if not reply.get("allow_sending_without_reply"):
                raise _ApiError(400, "Bad Request: message to be replied not found")
        message = self._bot_message(chat_id, visible)
        self.sent.append(
            {
                "chat_id": chat_id,
                "message_id": message["message_id"],
                "text": params["text"],
                "visible": visible,
                "parse_mode": params.get("parse_mode"),
                "reply_to": int(reply_id) if reply_id is not None else None,
            }
        )
        return message

    async def _m_editmessagetext(self, params: Json) -> Any:
        chat_id = str(params["chat_id"])
        key = (chat_id, int(params["message_id"]))
        message = self.messages.get(key)
        if message is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if message["from"]["id"] != self.bot_user["id"]:
            raise _ApiError(400, "Bad Request: message can't be edited")
        visible = self._check_text(params)
        markup = (params["text"], params.get("parse_mode"))
        if message.get("_markup") == markup:
            raise _ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and "
                "reply markup are exactly the same as a current content and reply markup "
                "of the message",
            )
        message.update(text=visible, _markup=markup, edit_date=int(time.time()))
        self.edits.append(
            {
                "chat_id": chat_id,
                "message_id": key[1],
                "visible": visible,
                "text": params["text"],
                "parse_mode": params.get("parse_mode"),
            }
        )
        return {k: v for k, v in message.items() if not k.startswith("_")}

    async def _m_getfile(self, params: Json) -> Any:
        stored = self.files.get(str(params["file_id"]))
        if stored is None:
            raise _ApiError(400, "Bad Request: invalid file_id")
        if stored.size is not None and stored.size > MAX_BOT_DOWNLOAD:
            raise _ApiError(400, "Bad Request: file is too big")
        result: Json = {
            "file_id": params["file_id"],
            "file_unique_id": f"unique-{params['file_id']}",
            "file_path": stored.path,
        }
        if stored.size is not None:
            result["file_size"] = stored.size
        return result

    async def _m_sendvoice(self, params: Json) -> Any:
        chat_id = str(params["chat_id"])
        voice = params.get("voice")
        if not isinstance(voice, Upload):
            raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        duration = int(params.get("duration") or 0)
        message = self._bot_message(chat_id, None)
        message["voice"] = {
            "file_id": f"voice-{message['message_id']}",
            "file_unique_id": f"unique-voice-{message['message_id']}",
            "duration": duration,
            "mime_type": voice.content_type,
            "file_size": len(voice.data),
        }
        self.voices.append(
            {
                "chat_id": chat_id,
                "message_id": message["message_id"],
                "duration": duration,
                "upload": voice,
            }
        )
        return message

    async def _m_senddocument(self, params: Json) -> Any:
        chat_id = str(params["chat_id"])
        document = params.get("document")
        if not isinstance(document, Upload):
            raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        message = self._bot_message(chat_id, None)
        message["document"] = {
            "file_id": f"doc-{message['message_id']}",
            "file_unique_id": f"unique-doc-{message['message_id']}",
            "file_name": document.filename,
            "mime_type": document.content_type,
            "file_size": len(document.data),
        }
        self.documents.append(
            {"chat_id": chat_id, "message_id": message["message_id"], "upload": document}
        )
        return message

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """A file's bytes, as the Bot API's file server sends them."""
        path = request.match_info["path"]
        stored = next((f for f in self.files.values() if f.path == path), None)
        if request.match_info["token"] != self.token or stored is None:
            return web.Response(status=404, text="Not Found")
        if self._fail_downloads:
            return web.Response(status=self._fail_downloads.pop(0), text="Server error")
        return await serve(request, stored, self.served)

    async def _m_sendchataction(self, params: Json) -> Any:
        self.actions.append((str(params["chat_id"]), params["action"]))
        return True

    async def _m_setmycommands(self, params: Json) -> Any:
        commands = params["commands"]
        for command in commands:
            name = command.get("command", "")
            if not (1 <= len(name) <= 32) or not all(
                c.islower() or c.isdigit() or c == "_" for c in name
            ):
                raise _ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not (1 <= len(command.get("description", "")) <= 256):
                raise _ApiError(400, "Bad Request: command description is empty")
        self.commands = commands
        return True

    async def _m_getmycommands(self, params: Json) -> Any:
        return self.commands

    # ---------------------------------------------------------------- helpers
    def _check_text(self, params: Json) -> str:
        text = params.get("text") or ""
        mode = (params.get("parse_mode") or "").lower()
        if mode and self._reject_entities:
            self._reject_entities -= 1
            raise _ApiError(400, "Bad Request: can't parse entities: can't find end of the entity")
        try:
            visible = parse_markup(text, mode)
        except MarkupError as exc:
            raise _ApiError(400, f"Bad Request: can't parse entities: {exc}") from exc
        if not visible.strip():
            raise _ApiError(400, "Bad Request: message text is empty")
        if utf16_len(visible) > 4096:
            raise _ApiError(400, "Bad Request: message is too long")
        return visible

    def _bot_message(self, chat_id: str, visible: str | None) -> Json:
        message: Json = {
            "message_id": next(self._message_ids),
            "from": self.bot_user,
            "chat": {
                "id": int(chat_id),
                "type": "private" if int(chat_id) > 0 else "group",
                "first_name": "Scott",
            },
            "date": int(time.time()),
        }
        if visible is not None:
            message["text"] = visible
        self.messages[(chat_id, message["message_id"])] = message
        return message


def _allowed(update: Json, allowed: list[str]) -> bool:
    kinds = set(update) - {"update_id"}
    return not kinds or bool(kinds & set(allowed))


def _put_text(message: Json, text: str, field: str) -> None:
    """``message[field] = text``, with the entities Telegram finds in it (a text's
    ``entities``, a caption's ``caption_entities``)."""
    message[field] = text
    entities = _entities(text)
    if entities:
        message["entities" if field == "text" else f"{field}_entities"] = entities


def _entities(text: str) -> list[Json]:
    """Mention and command entities as Telegram computes them (UTF-16 offsets)."""
    entities: list[Json] = []
    for match in re.finditer(r"(?<![\w/])(/[A-Za-z0-9_]+(?:@\w+)?)|(?<!\w)(@\w{5,32})", text):
        kind = "bot_command" if match.group(1) else "mention"
        if kind == "bot_command" and match.start() != 0:
            continue
        entities.append(
            {
                "type": kind,
                "offset": utf16_len(text[: match.start()]),
                "length": utf16_len(match.group(0)),
            }
        )
    return entities


async def _params(request: web.Request) -> Json:
    params: Json = dict(request.query)
    if request.can_read_body:
        if request.content_type == "application/json":
            params.update(await request.json())
        else:
            for name, value in (await request.post()).items():
                if isinstance(value, web.FileField):
                    params[name] = upload(value)
                else:
                    params[name] = value
    for name in _JSON_FIELDS & params.keys():
        if isinstance(params[name], str):
            params[name] = json.loads(params[name])
    return params


# ---------------------------------------------------------------- Telegram's markup rules
_HTML_TAGS = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "code",
    "pre",
    "a",
    "blockquote",
    "tg-spoiler",
    "span",
    "tg-emoji",
}
_HTML_TOKEN = re.compile(
    r"<(/?)([a-zA-Z][\w-]*)((?:\s+[\w-]+=\"[^\"<>]*\")*)\s*>|&(#\d+|#x[\da-fA-F]+|lt|gt|amp|quot);|[<>&]"
)
_V2_RESERVED = set("_*[]()~`>#+-=|{}.!")


class MarkupError(ValueError):
    """The text is not valid in its parse mode."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_markup(text: str, mode: str) -> str:
    """The visible text of ``text`` in parse mode ``mode``; MarkupError where Telegram fails."""
    if mode == "html":
        return _parse_html(text)
    if mode == "markdownv2":
        return _parse_markdown_v2(text)
    if mode:
        raise MarkupError(f"unsupported parse_mode {mode!r}")
    return text


def _parse_html(text: str) -> str:
    visible: list[str] = []
    stack: list[str] = []
    last = 0
    for match in _HTML_TOKEN.finditer(text):
        visible.append(text[last : match.start()])
        last = match.end()
        token = match.group(0)
        where = len(text[: match.start()].encode())
        if match.group(2):
            closing, tag = match.group(1) == "/", match.group(2).lower()
            if tag not in _HTML_TAGS:
                raise MarkupError(f'Unsupported start tag "{tag}" at byte offset {where}')
            if closing:
                if not stack or stack.pop() != tag:
                    raise MarkupError(
                        f'Unmatched end tag at byte offset {where}, expected "</{tag}>"'
                    )
            else:
                if tag in ("code", "pre") and stack and stack[-1] == "code":
                    raise MarkupError(f"Can't nest {tag} in code at byte offset {where}")
                stack.append(tag)
        elif match.group(4):
            visible.append(html.unescape(token))
        else:
            raise MarkupError(f"Unsupported character {token!r} at byte offset {where}")
    visible.append(text[last:])
    if stack:
        raise MarkupError(f"Can't find end tag corresponding to start tag {stack[-1]!r}")
    return "".join(visible)


def _unescaped(text: str, char: str, start: int) -> int:
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == char:
            return i
        i += 1
    return -1


def _parse_markdown_v2(text: str) -> str:
    visible: list[str] = []
    open_marks: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 >= len(text):
                raise MarkupError("Character '\\' is reserved and must be escaped")
            visible.append(text[i + 1])
            i += 2
            continue
        if text.startswith("```", i):
            end = text.find("```", i + 3)
            if end < 0:
                raise MarkupError("Can't find end of Pre entity")
            body = text[i + 3 : end]
            body = body.split("\n", 1)[1] if "\n" in body else body
            visible.append(re.sub(r"\\([`\\])", r"\1", body))
            i = end + 3
            continue
        if char == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise MarkupError("Can't find end of Code entity")
            visible.append(re.sub(r"\\([`\\])", r"\1", text[i + 1 : end]))
            i = end + 1
            continue
        if char in "*_~":
            if open_marks and open_marks[-1] == char:
                open_marks.pop()
            else:
                open_marks.append(char)
            i += 1
            continue
        if char == "[":
            close = text.find("](", i)
            end = _unescaped(text, ")", close + 2) if close >= 0 else -1
            if close < 0 or end < 0:
                raise MarkupError("Character '[' is reserved and must be escaped")
            visible.append(_parse_markdown_v2(text[i + 1 : close]))
            i = end + 1
            continue
        if char == ">" and (i == 0 or text[i - 1] == "\n"):
            i += 1
            continue
        if char in _V2_RESERVED:
            raise MarkupError(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        visible.append(char)
        i += 1
    if open_marks:
        raise MarkupError(f"Can't find end of the entity starting with {open_marks[-1]!r}")
    return "".join(visible)
