"""A message the model server refuses as invalid (HTTP 400) is answered once with a clear
sentence, kept in the day's log, and never sent to the model again with later turns. Both
wire protocols are exercised against their loopback fakes through the real backends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from tests.fakes.anthropic_api import Error, FakeAnthropic, FakeLLMServer
from tests.fakes.openai_api import FakeOpenAI
from tests.harness import RecordingAdapter, make_config, make_persona
from tests.rig import start_daemon

REFUSED = "a message the server refuses 7f3a"
TOKEN = "api-token-0123456789abcdef"


def _backend(kind: str, base_url: str) -> dict[str, Any]:
    if kind == "anthropic":
        return {"kind": "anthropic", "model": "claude-t", "base_url": base_url, "max_retries": 0}
    return {"kind": "openai_compat", "model": "m", "base_url": f"{base_url}/v1", "max_retries": 0}


@pytest.fixture(params=["openai_compat", "anthropic"])
async def rig(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[FakeLLMServer, RecordingAdapter, Path]]:
    fake: FakeLLMServer = FakeAnthropic() if request.param == "anthropic" else FakeOpenAI()
    async with fake:
        make_persona(tmp_path, "scott")
        config = make_config(
            tmp_path,
            extra={"llm": {"backends": {"scripted": _backend(request.param, fake.base_url)}}},
        )
        env = {"ANTHROPIC_API_KEY": "test-key-0123456789"}
        daemon, adapter = await start_daemon(config, tmp_path, env=env)
        try:
            yield fake, adapter, tmp_path
        finally:
            await daemon.stop()


async def test_a_refused_message_is_logged_but_not_replayed(
    rig: tuple[FakeLLMServer, RecordingAdapter, Path],
) -> None:
    fake, adapter, data = rig
    await adapter.deliver("good morning", sender="scott", event_id="e1")
    fake.script(Error(400, "invalid_request_error", "messages: content is not acceptable"))
    await adapter.deliver(REFUSED, sender="scott", event_id="e2")
    told = adapter.texts()[-1]
    assert "refused that message (HTTP 400)" in told and "won't send it" in told
    log = next((data / "scott/persona/inara/sessions").glob("*.md")).read_text()
    assert REFUSED in log  # what the user said is kept

    for n in range(3, 5):
        await adapter.deliver(f"next question {n}", sender="scott", event_id=f"e{n}")
        assert adapter.texts()[-1].endswith(f"next question {n}")
        sent = json.dumps(fake.requests[-1].body)
        assert REFUSED not in sent
        assert "good morning" in sent  # the rest of the conversation is still there


async def test_a_server_error_is_said_and_the_message_not_sent_again(
    rig: tuple[FakeLLMServer, RecordingAdapter, Path],
) -> None:
    """After a failure the user is told the message went unanswered; it is in the day's log,
    but the next requests do not carry it (a user who sends it again would send it twice)."""
    fake, adapter, data = rig
    fake.script(Error(500, "api_error", "boom"))
    await adapter.deliver("slow E 51c2", sender="scott", event_id="e1")
    assert "can't reach my language model" in adapter.texts()[-1]
    await adapter.deliver("remind me at 9", sender="scott", event_id="e2")
    await adapter.deliver("and at 10", sender="scott", event_id="e3")
    for request in fake.requests[-2:]:
        assert "slow E 51c2" not in json.dumps(request.body)
    assert "remind me at 9" in json.dumps(fake.requests[-1].body)
    log = next((data / "scott/persona/inara/sessions").glob("*.md")).read_text()
    assert "slow E 51c2" in log and "not answered" in log


async def test_a_model_that_cannot_be_reached_shows_in_healthz_and_clears(
    tmp_path: Path,
) -> None:
    """The model unreachable is a named problem of /healthz (200, degraded) and /status while
    the adapters stay ok; the next answer clears it."""
    fake = FakeOpenAI()
    async with fake:
        make_persona(tmp_path, "scott")
        config = make_config(
            tmp_path,
            extra={
                "llm": {"backends": {"scripted": _backend("openai_compat", fake.base_url)}},
                "http": {"enabled": True, "port": 0},
            },
        )
        daemon = Daemon(config, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False)

        async def handler(incoming: Incoming) -> None:
            assert daemon.router is not None
            await daemon.router.handle(incoming)

        adapter = RecordingAdapter(
            AdapterContext(handler, daemon.state.for_adapter("console"), tmp_path)
        )
        daemon.attach("console", adapter)
        await daemon.start()
        base = f"http://127.0.0.1:{daemon.http_port}"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        try:
            async with aiohttp.ClientSession() as http:
                fake.script(Error(503, "overloaded_error", "down for maintenance"))
                await adapter.deliver("are you there?", sender="scott", event_id="e1")
                async with http.get(f"{base}/healthz") as response:
                    assert response.status == 200
                    body = await response.json()
                assert body["status"] == "degraded"
                assert body["problems"]["model"].startswith("model unreachable: ")
                assert body["adapters"]["console"]["state"] == "ok"
                async with http.get(f"{base}/status", headers=auth) as response:
                    status = await response.json()
                assert status["model"]["state"] == "unreachable"
                assert status["problems"]["model"].startswith("model unreachable: ")
                assert status["adapters"]["console"]["state"] == "ok"

                await adapter.deliver("and now?", sender="scott", event_id="e2")
                assert adapter.texts()[-1].endswith("and now?")
                async with http.get(f"{base}/healthz") as response:
                    body = await response.json()
                assert body["status"] == "ok" and body["model"]["state"] == "ok"
        finally:
            await daemon.stop()
