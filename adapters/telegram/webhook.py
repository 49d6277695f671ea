"""Telegram webhook mode: updates arrive as POSTs on the daemon's own HTTP server.

Telegram sends each update as JSON to the URL given to ``setWebhook`` with the header
``X-Telegram-Bot-Api-Secret-Token`` holding the secret given there; a request without the
right secret is refused with 401 and never reaches the core. A 2xx answer tells Telegram
the update arrived; anything else makes it deliver the update again later, which is what a
stopped adapter wants (503).

With no connection to watch, liveness comes from a heartbeat: ``getWebhookInfo`` every few
minutes, which also registers the webhook again if it was removed (by a ``getUpdates``
poller elsewhere, or by hand).
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web

from adapters.base import AdapterHealth
from adapters.telegram.client import TelegramClient

__all__ = ["SECRET_HEADER", "WebhookEndpoint", "heartbeat"]

log = structlog.get_logger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

#: ``receive(raw_update)`` returns False when the adapter is not running
Receive = Callable[[Any], Awaitable[bool]]


class WebhookEndpoint:
    """The aiohttp handler for ``POST {webhook_path}``."""

    def __init__(self, secret: str, receive: Receive) -> None:
        self._secret = secret.encode()
        self._receive = receive

    async def handle(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            log.warning("telegram.webhook_rejected", remote=request.remote)
            return web.Response(status=401, text="wrong secret token")
        try:
            data = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            log.warning("telegram.webhook_bad_json", remote=request.remote)
            return web.Response(status=400, text="body is not JSON")
        if not await self._receive(data):
            return web.Response(status=503, text="not running")
        return web.Response(status=200)


async def heartbeat(
    client: TelegramClient,
    health: AdapterHealth,
    register: Callable[[], Awaitable[None]],
    url: str,
    every: float,
) -> None:
    """Check the webhook every ``every`` seconds until cancelled; touch health when it is set."""
    while True:
        try:
            info = await client.call("getWebhookInfo", client.bot.get_webhook_info)
            if info.url != url:
                log.warning("telegram.webhook_missing", registered=info.url or None)
                await register()
            elif info.last_error_message:
                log.info("telegram.webhook_errors", error=info.last_error_message)
            health.touch("webhook")
        except Exception as exc:  # a failed heartbeat is a stale health, never a crash
            health.detail = f"getWebhookInfo failed: {exc}"
            log.warning("telegram.heartbeat_failed", error=str(exc))
        await asyncio.sleep(every)
