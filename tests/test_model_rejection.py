"""A message the model server refuses as invalid (HTTP 400) is answered once with a clear
sentence, kept in the day's log, and never sent to the model again with later turns. Both
wire protocols are exercised against their loopback fakes through the real backends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_api import Error, FakeAnthropic, FakeLLMServer
from tests.fakes.openai_api import FakeOpenAI
from tests.harness import RecordingAdapter, make_config, make_persona
from tests.rig import start_daemon

REFUSED = "a message the server refuses 7f3a"


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


async def test_a_server_error_still_keeps_the_message_for_the_next_try(
    rig: tuple[FakeLLMServer, RecordingAdapter, Path],
) -> None:
    """Only a refusal of the request itself drops it: after a failure that may pass, the
    unanswered message is still part of the next request."""
    fake, adapter, _data = rig
    fake.script(Error(500, "api_error", "boom"))
    await adapter.deliver("keep me 51c2", sender="scott", event_id="e1")
    await adapter.deliver("again", sender="scott", event_id="e2")
    assert "keep me 51c2" in json.dumps(fake.requests[-1].body)
