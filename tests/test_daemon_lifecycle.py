"""Daemon lifecycle: the watchdog restarts a stalled adapter, shutdown drains turns in
flight, secrets are redacted from logs, and a failing adapter does not stop the others."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import structlog

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.daemon.logs import configure_logging, register_secret
from bot.daemon.watchdog import Watchdog
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona


class FlakyAdapter(RecordingAdapter):
    def __init__(self, context: AdapterContext, fail_starts: int) -> None:
        super().__init__(context)
        self.fail_starts = fail_starts
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        if self.starts <= self.fail_starts:
            raise ConnectionError("homeserver unreachable")
        await super().start()


async def _noop(incoming: Incoming) -> None:
    return None


async def test_watchdog_restarts_a_stalled_adapter_with_backoff(tmp_path: Path) -> None:
    context = AdapterContext(handler=_noop, state=None, data_dir=tmp_path)  # type: ignore[arg-type]
    adapter = FlakyAdapter(context, fail_starts=1)
    watchdog = Watchdog({"flaky": adapter}, {"flaky": 0.05}, base_delay=0.01, max_delay=0.02)
    adapter.health.running = True
    adapter.health.touch()
    assert await watchdog.check() == []
    await asyncio.sleep(0.06)
    assert await watchdog.check() == []  # stalled; the first restart fails
    assert adapter.health.restarts == 1 and not adapter.health.running
    await asyncio.sleep(0.03)
    assert await watchdog.check() == ["flaky"]
    assert adapter.health.running and adapter.health.restarts == 2


async def test_shutdown_finishes_the_turn_in_flight(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM(delay=0.5)
    daemon = Daemon(make_config(tmp_path), backends={"scripted": llm}, http=False, jobs=False)

    async def handler(incoming: Incoming) -> None:
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    adapter = RecordingAdapter(
        AdapterContext(
            handler=handler, state=daemon.state.for_adapter("console"), data_dir=tmp_path
        )
    )
    daemon.attach("console", adapter)
    await daemon.start()
    turn = asyncio.create_task(adapter.deliver("slow question", sender="scott", event_id="s1"))
    await asyncio.sleep(0.1)
    await daemon.stop()
    await turn
    assert adapter.texts() == ["echo: slow question"]
    log = next((tmp_path / "scott/persona/inara/sessions").glob("*.md")).read_text()
    assert "echo: slow question" in log


async def test_secrets_never_reach_the_log() -> None:
    stream = io.StringIO()
    configure_logging(fmt="json", level="info", stream=stream)
    register_secret("tg-1234567:AAAAverysecrettokenvalue")
    log = structlog.get_logger("test")
    log.info(
        "adapter.config",
        token="plain-token-value",
        url="https://x/bottg-1234567:AAAAverysecrettokenvalue/getMe",
    )
    log.info("llm.call", header="Authorization: Bearer sk-ant-api03-abcdefghijklmnop")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    text = stream.getvalue()
    assert "plain-token-value" not in text
    assert "AAAAverysecrettokenvalue" not in text
    assert "sk-ant-api03-abcdefghijklmnop" not in text
    assert lines[0]["token"] == "[redacted]"
    configure_logging(fmt="console", level="warning")
