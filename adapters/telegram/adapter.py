"""Telegram, through python-telegram-bot 22 and the Bot API.

Configuration (``[adapters.telegram]``)::

    enabled = true
    token_env = "TELEGRAM_BOT_TOKEN"     # or token = "123456:ABC..." directly
    mode = "polling"                     # or "webhook"
    parse_mode = "html"                  # or "markdownv2"

Long polling is the default (:mod:`adapters.telegram.polling`): no public URL needed, the
update offset is saved in the adapter state, network failures back off and retry. Webhook
mode (:mod:`adapters.telegram.webhook`) registers ``webhook_url`` with Telegram and receives
updates on the daemon's HTTP server at ``webhook_path``, checking the secret header.

Events are built in :mod:`adapters.telegram.updates`; answers go out through
:mod:`adapters.telegram.client`, rendered by :mod:`adapters.telegram.format`. While a turn
runs, ``typing(room, True)`` keeps "typing…" showing by repeating ``sendChatAction`` every
four seconds (Telegram clears it after five) until ``typing(room, False)``.

``send`` returns the id of the last message sent as the plain message id (``"731"``); ``edit``
and ``reply_to`` accept that or an event id (``"{chat_id}:731"``).

Media (:mod:`adapters.telegram.media`): ``download`` fetches a file through ``getFile`` and
the Bot API's file URL (derived from ``base_url``: ``…/bot`` becomes ``…/file/bot``) on an
HTTP session of the adapter's own; ``post_audio`` sends a voice message with ``sendVoice``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from typing import Any, Literal

import aiohttp
import structlog
from pydantic import Field, SecretStr, model_validator
from telegram import BotCommand, User
from telegram.ext import Application

from adapters.base import Adapter, AdapterContext, AdapterSettings, Attachment, Incoming, Speech
from adapters.telegram import media
from adapters.telegram.client import TelegramClient
from adapters.telegram.dispatch import Dispatcher
from adapters.telegram.format import MAX_MESSAGE_UTF16
from adapters.telegram.polling import Poller
from adapters.telegram.sent_parts import SentParts
from adapters.telegram.updates import bot_commands, to_incoming, update_from_json
from adapters.telegram.webhook import WebhookEndpoint, heartbeat
from bot.daemon.errors import AdapterError, ConfigError, MediaError
from bot.daemon.logs import register_secret

__all__ = ["Settings", "TelegramAdapter", "create"]

log = structlog.get_logger(__name__)

_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class Settings(AdapterSettings):
    """The ``[adapters.telegram]`` section."""

    token: SecretStr | None = None
    token_env: str = "TELEGRAM_BOT_TOKEN"
    base_url: str = "https://api.telegram.org/bot"
    mode: Literal["polling", "webhook"] = "polling"
    poll_timeout: int = Field(30, ge=0, le=50)
    webhook_url: str | None = None
    webhook_path: str = "/webhooks/telegram"
    webhook_secret: SecretStr | None = None
    webhook_secret_env: str = "TELEGRAM_WEBHOOK_SECRET"
    webhook_check_seconds: float = Field(120.0, gt=0)
    parse_mode: Literal["html", "markdownv2"] = "html"
    drain_seconds: float = Field(20.0, ge=0)
    #: tries of one send or edit before it is left to the outbox, and the first pause
    send_attempts: int = Field(4, ge=1, le=10)
    retry_base_seconds: float = Field(0.5, gt=0)

    @model_validator(mode="after")
    def _webhook_complete(self) -> Settings:
        if self.mode == "webhook" and not self.webhook_url:
            raise ValueError("webhook_url is required when mode is 'webhook'")
        if not self.webhook_path.startswith("/"):
            raise ValueError("webhook_path must start with '/'")
        return self

    def api_url(self) -> str:
        """The Bot API root as python-telegram-bot wants it: ending in ``/bot``."""
        url = self.base_url.rstrip("/")
        return url if url.endswith("/bot") else f"{url}/bot"

    def file_url(self) -> str:
        """The root files are fetched from, as python-telegram-bot wants it: the API root
        with ``/bot`` made ``/file/bot`` (``https://api.telegram.org/file/bot``)."""
        return self.api_url().removesuffix("/bot") + "/file/bot"

    def resolve_token(self) -> str:
        token = self.token.get_secret_value() if self.token else os.environ.get(self.token_env)
        if not token:
            raise ConfigError(
                f"adapters.telegram.token: not set, and ${self.token_env} is empty "
                "(create a bot with @BotFather and put its token there)"
            )
        return token.strip()

    def resolve_secret(self) -> str:
        secret = self.webhook_secret.get_secret_value() if self.webhook_secret else None
        secret = secret or os.environ.get(self.webhook_secret_env, "")
        if not _SECRET.match(secret):
            raise ConfigError(
                f"adapters.telegram.webhook_secret: set it (or ${self.webhook_secret_env}) to "
                "1-256 characters of A-Z, a-z, 0-9, _ and -"
            )
        return secret


class TelegramAdapter(Adapter):
    platform = "telegram"
    max_message_chars = MAX_MESSAGE_UTF16
    supports_edit = True
    supports_voice = True
    #: seconds between two ``sendChatAction`` calls while typing is on
    typing_every = 4.0
    #: seconds before the first retry of a failed poll (doubling up to a minute)
    poll_backoff = 1.0

    def __init__(self, settings: Settings, context: AdapterContext, token: str) -> None:
        super().__init__(context)
        self.settings = settings
        self._token = token
        self._app: Application[Any, Any, Any, Any, Any, Any] | None = None
        self._client: TelegramClient | None = None
        self._me: User | None = None
        self._files: aiohttp.ClientSession | None = None
        self._poller: Poller | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self._dispatcher: Dispatcher | None = None
        self._typing: dict[str, asyncio.Task[None]] = {}
        self._sent = SentParts(context.state)
        if settings.mode == "webhook":
            if context.add_route is None:
                raise ConfigError("adapters.telegram.mode: webhook needs the daemon's web server")
            endpoint = WebhookEndpoint(settings.resolve_secret(), self._receive_webhook)
            context.add_route("POST", settings.webhook_path, endpoint.handle)

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        if self._app is not None:
            return
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        self._app = (
            Application.builder()
            .token(self._token)
            .base_url(self.settings.api_url())
            .base_file_url(self.settings.file_url())
            .connect_timeout(10)
            .read_timeout(20)
            .write_timeout(20)
            .pool_timeout(10)
            .updater(None)
            .build()
        )
        bot = self._app.bot
        client = self._client = TelegramClient(
            bot,
            self.settings.parse_mode,
            attempts=self.settings.send_attempts,
            backoff=self.settings.retry_base_seconds,
        )
        self._files = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(sock_connect=10))
        await self._sent.load()
        await client.call("getMe", self._app.initialize)
        self._me = bot.bot
        await self._publish_commands(client)
        self._dispatcher = Dispatcher(self.context.handler)
        if self.settings.mode == "polling":
            await client.call("deleteWebhook", bot.delete_webhook)
            self._poller = Poller(
                bot,
                self.context.state,
                self.health,
                self._parse,
                self._dispatcher,
                timeout=self.settings.poll_timeout,
                backoff=self.poll_backoff,
            )
            await self._poller.load()
            self._loop_task = asyncio.create_task(self._poller.run(), name="telegram-poll")
        else:
            await self._register_webhook()
            self._loop_task = asyncio.create_task(
                heartbeat(
                    client,
                    self.health,
                    self._register_webhook,
                    self.settings.webhook_url or "",
                    self.settings.webhook_check_seconds,
                ),
                name="telegram-webhook-heartbeat",
            )
        self.health.running = True
        self.health.touch(self.settings.mode)
        log.info("telegram.started", bot=self._me.username, mode=self.settings.mode)

    async def stop(self) -> None:
        self.health.running = False
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
            self._loop_task = None
        for task in self._typing.values():
            task.cancel()
        self._typing.clear()
        if self._dispatcher is not None:
            await self._dispatcher.drain(self.settings.drain_seconds)
            self._dispatcher = None
        if self._poller is not None:
            with contextlib.suppress(Exception):
                await self._poller.save()
            self._poller = None
        if self._files is not None:
            await self._files.close()
            self._files = None
        app, self._app, self._client = self._app, None, None
        if app is not None:
            with contextlib.suppress(Exception):
                await app.shutdown()
            await app.bot.shutdown()
            log.info("telegram.stopped")

    async def _publish_commands(self, client: TelegramClient) -> None:
        commands = [
            BotCommand(name, text) for name, text in bot_commands(self.context.command_menu)
        ]
        if not commands:
            return
        try:
            await client.call("setMyCommands", lambda: client.bot.set_my_commands(commands))
        except Exception as exc:  # a missing menu is cosmetic; the commands still work
            log.warning("telegram.commands_failed", error=str(exc))

    async def _register_webhook(self) -> None:
        client = self._require_client()
        url, secret = self.settings.webhook_url or "", self.settings.resolve_secret()
        await client.call(
            "setWebhook",
            lambda: client.bot.set_webhook(
                url=url, secret_token=secret, allowed_updates=["message"]
            ),
        )
        log.info("telegram.webhook_set", url=url)

    # ---------------------------------------------------------------- incoming
    def _parse(self, raw: Any) -> Incoming | None:
        if self._app is None or self._me is None:
            return None
        update = update_from_json(raw, self._app.bot)
        if update is None:
            return None
        event = to_incoming(update, self._me)
        if event is None:
            log.debug("telegram.update_ignored", update_id=update.update_id)
        return event

    async def _receive_webhook(self, raw: Any) -> bool:
        if not self.health.running or self._dispatcher is None:
            return False
        self.health.touch("webhook")
        event = self._parse(raw)
        if event is not None:
            self._dispatcher.submit(event)
        return True

    # ---------------------------------------------------------------- outgoing
    def _require_client(self) -> TelegramClient:
        if self._client is None:
            raise AdapterError("the Telegram adapter is not running")
        return self._client

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        client = self._require_client()
        if key is None:
            return await client.send_markdown(room, text, reply_to)
        # the Bot API takes no idempotency key: the messages an earlier attempt of this key
        # sent are not sent again (a send that reached Telegram but whose answer was lost
        # may still show twice)
        sent = self._sent.count(key, text)
        write = not self.context.off_the_record(room)
        last = await client.send_markdown(
            room, text, reply_to, skip=sent, on_sent=lambda: self._sent.add(key, text, write=write)
        )
        await self._sent.finished(key)
        return last

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        await self._require_client().edit_markdown(room, message_id, text)

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        if self._client is None or self._files is None:
            raise MediaError(
                "the Telegram adapter is not running",
                user_message="I am not connected to Telegram just now; please send it again.",
            )
        return await media.download(self._client, self._files, attachment, limit)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        # no idempotency key in the Bot API: the delivery ledger keeps this from repeating
        return await media.send_voice(self._require_client(), room, speech)

    async def typing(self, room: str, on: bool) -> None:
        current = self._typing.pop(room, None)
        if current is not None:
            current.cancel()
        client = self._client
        if on and client is not None:
            await client.typing(room)
            self._typing[room] = asyncio.create_task(self._keep_typing(client, room))

    async def _keep_typing(self, client: TelegramClient, room: str) -> None:
        while True:
            await asyncio.sleep(self.typing_every)
            await client.typing(room)


def create(settings: Settings, context: AdapterContext) -> TelegramAdapter:
    """Build the adapter; the token must be there (directly or through ``token_env``)."""
    # httpx logs every request URL at INFO, and Bot API URLs carry the bot token
    httpx_log = logging.getLogger("httpx")
    httpx_log.setLevel(max(httpx_log.getEffectiveLevel(), logging.WARNING))
    token = settings.resolve_token()
    register_secret(token)  # file URLs carry it as well
    return TelegramAdapter(settings, context, token)
