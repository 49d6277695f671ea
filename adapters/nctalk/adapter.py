"""Nextcloud Talk, as a webhook bot.

Talk delivers every chat message of a conversation the bot is enabled in as a signed webhook
to ``POST {webhook_path}`` on the daemon's own HTTP server (:mod:`adapters.nctalk.webhook`);
the adapter answers at once and runs the turn in a background task it tracks and drains on
stop. Answers go out through the OCS bot API (:mod:`adapters.nctalk.client`), as markdown,
split at 32000 characters (smaller if the server says 413). Talk bots cannot edit messages
or show typing, so ``supports_edit`` is False and ``typing`` does nothing.

Liveness: there is no connection to watch. ``health.last_ok`` is the last verified webhook
or successful send, so the default ``stall_seconds`` is a week: a quiet week restarts the
adapter's HTTP session, nothing worse.

``send`` returns the ``referenceId`` of the last message posted: the bot API answers 201
without the new message's id.

Media: a shared file reaches the core as an attachment (:mod:`adapters.nctalk.payload`), but
the bot cannot read it. A Talk bot authenticates only by signing requests to the bot API with
its shared secret, and that API has no call for a file's contents: the file sits in the
sender's storage behind WebDAV, which needs a Nextcloud account the bot does not have. So
``download`` answers a sentence asking for the text instead. Nor can a bot upload a file or
share one into the conversation, so there are no spoken answers (``supports_voice`` is False).
"""

from __future__ import annotations

import asyncio
import os

import structlog
from pydantic import Field, SecretStr, field_validator

from adapters.base import (
    Adapter,
    AdapterContext,
    AdapterSettings,
    Attachment,
    Incoming,
    part_key,
)
from adapters.nctalk.client import MessageTooLong, RetryPolicy, TalkBotClient, TalkRejected
from adapters.nctalk.signing import reference_id
from adapters.nctalk.webhook import WebhookEndpoint
from bot.daemon.errors import AdapterError, ConfigError, MediaError, PermanentSendError
from bot.daemon.logs import register_secret
from bot.turn.formatting import split_markdown

__all__ = ["NCTalkAdapter", "Settings", "create"]

log = structlog.get_logger(__name__)

#: Talk's default ``spreed => config => chat => max-length``
TALK_MAX_CHARS = 32000
_MIN_CHUNK = 500


class Settings(AdapterSettings):
    """``[adapters.nctalk]``; the secret is the one given to ``occ talk:bot:install``."""

    stall_seconds: float = 7 * 24 * 3600.0
    backend_url: str = ""
    secret: SecretStr | None = None
    secret_env: str | None = "NCTALK_BOT_SECRET"
    webhook_path: str = "/webhooks/nctalk"
    mention_name: str = ""
    direct_rooms: list[str] = Field(default_factory=list)
    silent: bool = False
    max_body_bytes: int = Field(1 << 20, ge=1024, le=64 << 20)
    send_attempts: int = Field(5, ge=1, le=20)
    retry_base_seconds: float = Field(1.0, gt=0)
    request_timeout: float = Field(30.0, gt=0)
    drain_seconds: float = Field(30.0, ge=0)

    @field_validator("webhook_path")
    @classmethod
    def _under_webhooks(cls, value: str) -> str:
        if not value.startswith("/webhooks/") or len(value) <= len("/webhooks/"):
            raise ValueError(
                f"{value!r} must start with /webhooks/ (only those paths skip the API token)"
            )
        return value

    @field_validator("backend_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    def secret_value(self) -> str:
        """The shared secret, direct or from the environment variable ``secret_env``."""
        if self.secret is not None:
            value = self.secret.get_secret_value()
            key = "adapters.nctalk.secret"
        elif self.secret_env:
            value = os.environ.get(self.secret_env, "")
            key = f"adapters.nctalk.secret_env ({self.secret_env})"
            if not value:
                raise ConfigError(f"{key}: environment variable is not set")
        else:
            raise ConfigError("adapters.nctalk.secret: set secret or secret_env")
        if not 40 <= len(value) <= 128:
            raise ConfigError(f"{key}: Talk bot secrets are 40 to 128 characters long")
        return value


class NCTalkAdapter(Adapter):
    platform = "nctalk"
    max_message_chars = TALK_MAX_CHARS
    supports_edit = False
    # a message's referenceId is derived from its key, the same on every retry, but Talk is
    # not documented to drop a repeated one
    idempotent = False

    def __init__(self, settings: Settings, context: AdapterContext, secret: str) -> None:
        super().__init__(context)
        self.settings = settings
        self._running = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._chunk_limit = TALK_MAX_CHARS
        retry = RetryPolicy(
            attempts=settings.send_attempts, base_seconds=settings.retry_base_seconds
        )
        self._client = TalkBotClient(
            settings.backend_url, secret, retry=retry, timeout=settings.request_timeout
        )
        self.endpoint = WebhookEndpoint(
            secret=secret,
            backend_url=settings.backend_url,
            deliver=self._dispatch,
            on_verified=lambda: self.health.touch("webhook verified"),
            accepting=lambda: self._running,
            mention_name=settings.mention_name,
            direct_rooms=frozenset(settings.direct_rooms),
            max_body_bytes=settings.max_body_bytes,
        )
        self._routed = False

    def _register_route(self) -> None:
        if self._routed:
            return
        if self.context.add_route is None:
            raise AdapterError(
                "nctalk receives webhooks through the daemon's HTTP server; "
                "set http.enabled = true",
            )
        self.context.add_route("POST", self.settings.webhook_path, self.endpoint.handle)
        self._routed = True

    async def start(self) -> None:
        self._register_route()
        await self._client.open()
        self._running = True
        self.health.running = True
        self.health.touch("waiting for webhooks")
        log.info("nctalk.started", path=self.settings.webhook_path)

    async def stop(self) -> None:
        self._running = False
        if self._tasks:
            _done, pending = await asyncio.wait(
                set(self._tasks), timeout=self.settings.drain_seconds
            )
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
                log.warning("nctalk.turns_cancelled", count=len(pending))
        await self._client.close()
        self.health.running = False

    def _dispatch(self, incoming: Incoming) -> None:
        task = asyncio.create_task(self._run_handler(incoming), name=f"nctalk:{incoming.event_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_handler(self, incoming: Incoming) -> None:
        try:
            await self.context.handler(incoming)
        except Exception:
            log.exception("nctalk.handler_failed", room=incoming.room, event_id=incoming.event_id)

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if not text.strip():
            raise AdapterError("nctalk: refusing to send an empty message")
        parent = int(reply_to) if reply_to and reply_to.isdigit() else None
        last = ""
        for index, chunk in enumerate(split_markdown(text, self._chunk_limit)):
            reference = reference_id(part_key(key, index))
            last = await self._send_chunk(room, chunk, parent if index == 0 else None, reference)
        self.health.touch("message sent")
        return last

    async def _send_chunk(self, room: str, chunk: str, reply_to: int | None, reference: str) -> str:
        try:
            await self._client.post_message(
                room,
                chunk,
                reference_id=reference,
                reply_to=reply_to,
                silent=self.settings.silent,
            )
        except TalkRejected as exc:
            if reply_to is None:  # the same message would be refused again
                raise PermanentSendError(str(exc)) from exc
            log.warning("nctalk.reply_refused", room=room, reply_to=reply_to)
            return await self._send_chunk(room, chunk, None, reference)
        except MessageTooLong as exc:
            if len(chunk) <= _MIN_CHUNK:
                raise AdapterError(
                    f"nctalk: the server refuses even {len(chunk)} characters (HTTP 413)"
                ) from exc
            self._chunk_limit = max(_MIN_CHUNK, len(chunk) // 2)
            log.warning(
                "nctalk.message_too_long", room=room, size=len(chunk), new_limit=self._chunk_limit
            )
            last = ""
            for index, part in enumerate(split_markdown(chunk, self._chunk_limit)):
                parent = reply_to if index == 0 else None
                part_reference = reference_id(f"{reference}/{index}")
                last = await self._send_chunk(room, part, parent, part_reference)
            return last
        return reference

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        """Talk gives bots no way to read a shared file (see the module docstring)."""
        raise MediaError(
            "Talk bots have no access to shared files",
            user_message="I can't read files shared in Nextcloud Talk: Talk does not give bots"
            " access to them. Please paste the text into the chat instead.",
        )

    async def typing(self, room: str, on: bool) -> None:
        """Talk bots have no typing indicator."""
        return None


def create(settings: Settings, context: AdapterContext) -> NCTalkAdapter:
    """Build the adapter; a missing or malformed secret stops start-up with a ConfigError."""
    if not settings.backend_url:
        raise ConfigError("adapters.nctalk.backend_url: required (the Nextcloud base URL)")
    secret = settings.secret_value()
    register_secret(secret)
    adapter = NCTalkAdapter(settings, context, secret)
    if not settings.mention_name and not settings.direct_rooms:
        log.warning(
            "nctalk.unreachable",
            hint="set mention_name or direct_rooms, or no "
            "message will ever be addressed to the bot",
        )
    if context.add_route is not None:
        adapter._register_route()
    return adapter
