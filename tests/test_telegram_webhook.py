"""Telegram webhook mode: updates POSTed to the daemon's web server, checked by secret."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from adapters.base import AdapterContext
from adapters.telegram.adapter import Settings, TelegramAdapter, create
from bot.daemon.errors import ConfigError
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.fakes.telegram_api import FakeTelegram
from tests.test_telegram import Inbox, fake, inbox, store, until

__all__ = ["fake", "inbox", "store"]

SECRET = "s3cret-token_ok"


class WebServer:
    """The daemon's aiohttp app, on a socket bound before the routes are known."""

    def __init__(self) -> None:
        self.app = web.Application()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.runner: web.AppRunner | None = None

    def add_route(self, method: str, path: str, handler: Any) -> None:
        self.app.router.add_route(method, path, handler)

    async def start(self) -> None:
        self.runner = web.AppRunner(self.app)
        await self.runner.setup()
        await web.SockSite(self.runner, self.sock).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


@pytest.fixture
async def web_server() -> AsyncIterator[WebServer]:
    server = WebServer()
    yield server
    await server.stop()


def _settings(fake: FakeTelegram, port: int, **extra: Any) -> Settings:
    return Settings.model_validate(
        {
            "enabled": True,
            "token": fake.token,
            "base_url": fake.base_url,
            "mode": "webhook",
            "webhook_url": f"http://127.0.0.1:{port}/webhooks/telegram",
            "webhook_secret": SECRET,
            **extra,
        }
    )


@pytest.fixture
async def hooked(
    fake: FakeTelegram, store: StateStore, inbox: Inbox, web_server: WebServer, tmp_path: Path
) -> AsyncIterator[TelegramAdapter]:
    context = AdapterContext(
        handler=inbox,
        state=AdapterState(store, "telegram"),
        data_dir=tmp_path,
        add_route=web_server.add_route,
    )
    adapter = create(_settings(fake, web_server.port, webhook_check_seconds=0.05), context)
    await web_server.start()
    async with adapter:
        yield adapter


async def test_webhook_is_registered_with_its_secret(
    fake: FakeTelegram, hooked: TelegramAdapter, web_server: WebServer
) -> None:
    assert fake.webhook == {
        "url": f"http://127.0.0.1:{web_server.port}/webhooks/telegram",
        "secret_token": SECRET,
    }
    assert not [m for m, _ in fake.requests if m == "getupdates"]
    assert hooked.health.running


async def test_updates_arrive_by_webhook(
    fake: FakeTelegram, hooked: TelegramAdapter, inbox: Inbox
) -> None:
    message = fake.message(4242, "hello by webhook")
    assert await fake.deliver_webhook({"message": message}) == 200
    await until(lambda: inbox.events, "the webhook message")
    event = inbox.events[0]
    assert event.text == "hello by webhook"
    assert event.event_id == f"4242:{message['message_id']}"
    await hooked.send(event.room, "answered")
    assert fake.texts() == ["answered"]


async def test_wrong_or_missing_secret_is_refused(
    fake: FakeTelegram, hooked: TelegramAdapter, inbox: Inbox
) -> None:
    message = fake.message(4242, "forged")
    assert await fake.deliver_webhook({"message": message}, secret="guess") == 401
    assert await fake.deliver_webhook({"message": message}, secret="") == 401
    assert inbox.events == []


async def test_malformed_bodies_do_not_crash(
    fake: FakeTelegram, hooked: TelegramAdapter, inbox: Inbox, web_server: WebServer
) -> None:
    assert await fake.deliver_webhook({"message": {"garbage": 1}}) == 200
    url = f"http://127.0.0.1:{web_server.port}/webhooks/telegram"
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    async with aiohttp.ClientSession() as session:
        async with session.post(url, data=b"{not json", headers=headers) as response:
            assert response.status == 400
    assert await fake.deliver_webhook({"message": fake.message(4242, "fine")}) == 200
    await until(lambda: inbox.events, "the good update")
    assert [e.text for e in inbox.events] == ["fine"]


async def test_stopped_adapter_asks_telegram_to_retry_later(
    fake: FakeTelegram, hooked: TelegramAdapter
) -> None:
    await hooked.stop()
    assert await fake.deliver_webhook({"message": fake.message(4242, "later")}) == 503


async def test_heartbeat_sets_a_removed_webhook_again(
    fake: FakeTelegram, hooked: TelegramAdapter
) -> None:
    fake.webhook = {"url": "", "secret_token": ""}
    await until(lambda: fake.webhook["url"], "the webhook to come back")
    assert fake.webhook["secret_token"] == SECRET


def test_webhook_needs_a_valid_secret_and_a_web_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)

    async def handler(_: Any) -> None:
        return None

    settings = Settings(mode="webhook", webhook_url="https://bot.example.org/webhooks/telegram")
    context = AdapterContext(handler=handler, state=None, data_dir=tmp_path)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="web server"):
        TelegramAdapter(settings, context, "1:abc")
    context.add_route = lambda method, path, h: None
    with pytest.raises(ConfigError, match="webhook_secret"):
        TelegramAdapter(settings, context, "1:abc")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", "has spaces!")
    with pytest.raises(ConfigError, match="webhook_secret"):
        TelegramAdapter(settings, context, "1:abc")


async def test_edited_messages_are_ignored(
    fake: FakeTelegram, hooked: TelegramAdapter, inbox: Inbox
) -> None:
    edited = fake.message(4242, "changed my mind") | {"edit_date": 1_800_000_000}
    assert await fake.deliver_webhook({"edited_message": edited}) == 200
    assert await fake.deliver_webhook({"message": fake.message(4242, "new message")}) == 200
    await until(lambda: inbox.events, "the new message")
    assert [e.text for e in inbox.events] == ["new message"]
