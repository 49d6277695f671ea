"""A platform that cannot start is reported failed, with its reason, in the log, ``/status``
and ``/healthz`` (503), and rejected credentials are not retried forever."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.daemon.errors import ConfigError
from bot.daemon.healthcmd import ask_health
from bot.daemon.logs import configure_logging
from bot.daemon.watchdog import Watchdog
from tests.fakes.telegram_api import FakeTelegram
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]

TOKEN = "api-token-0123456789abcdef"


class NoSecret(RecordingAdapter):
    """An adapter whose secret is missing: its start fails the way Matrix's does."""

    def __init__(self, context: AdapterContext) -> None:
        super().__init__(context)
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        raise ConfigError("adapters.matrix.password_env: environment variable X is not set")


async def _noop(incoming: Incoming) -> None:
    return None


async def test_a_start_that_fails_for_good_is_not_retried(tmp_path: Path) -> None:
    context = AdapterContext(handler=_noop, state=None, data_dir=tmp_path)  # type: ignore[arg-type]
    adapter = NoSecret(context)
    watchdog = Watchdog({"matrix": adapter}, {"matrix": 0.01}, base_delay=0.001, max_delay=0.002)
    for _ in range(5):
        await asyncio.sleep(0.01)
        assert await watchdog.check() == []
    assert adapter.starts == 1  # tried once, then left alone
    assert "password_env" in watchdog.given_up["matrix"]


async def test_a_rejected_token_shows_as_failed_in_log_status_and_healthz(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    stream = io.StringIO()
    configure_logging(fmt="json", level="info", stream=stream)
    async with FakeTelegram() as fake:
        section = {"enabled": True, "token": "999:wrong", "base_url": fake.base_url}
        config = make_config(tmp_path, adapters={"telegram": section})
        config.http.enabled = True
        daemon = Daemon(
            config,
            backends={"scripted": ScriptedLLM()},
            jobs=False,
            env={"PERSONAD_API_TOKEN": TOKEN},
        )
        async with daemon:
            assert daemon.watchdog is not None
            calls = len(fake.requests)
            # what the watchdog's next passes would do to the failed adapter
            daemon._stall_seconds["telegram"] = 0.0
            assert await daemon.watchdog.check() == []
            assert len(fake.requests) == calls  # not tried again
            base = f"http://127.0.0.1:{daemon.http_port}"
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/healthz") as response:
                    assert response.status == 503
                    health = await response.json()
                auth = {"Authorization": f"Bearer {TOKEN}"}
                async with http.get(f"{base}/status", headers=auth) as response:
                    status = await response.json()
            # `personad health --wait` (systemd's ExecStartPost) does not wait out its time
            # for an adapter that will not come back: it says why, exit status 1
            config.http.port = daemon.http_port
            told = io.StringIO()
            with contextlib.redirect_stdout(told):
                code = await asyncio.wait_for(asyncio.to_thread(ask_health, config, 3600), 120)
    assert code == 1
    assert told.getvalue().startswith("telegram: ") and "rejected the bot token" in told.getvalue()
    why = health["problems"]["telegram"]
    assert "rejected the bot token" in why and "not retried" in why
    assert health["adapters"]["telegram"]["state"] == "failed"
    assert status["adapters"]["telegram"]["state"] == "failed"
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    started = next(e for e in events if e["event"] == "daemon.started")
    assert started["adapters"] == ["web"] and started["failed"] == ["telegram"]
    failed = next(e for e in events if e["event"] == "adapter.failed")
    assert "rejected the bot token" in failed["error"] and failed["retrying"] is False
    assert "999:wrong" not in stream.getvalue()
