"""Private traces: what a person types Off The Record, and every secret they or their config
hold, stay out of every log line and every printed report."""

from __future__ import annotations

import asyncio
import gc
import io
from pathlib import Path
from typing import Any

from aiohttp import web
from structlog.testing import capture_logs

from adapters.telegram.polling import Poller
from bot.daemon.logs import configure_logging, mask_secrets, register_secret
from bot.delivery.spoken_copies import SPOKEN_TRIES
from bot.setup.preflight import check
from bot.setup.probe import probe_all
from tests.fakes.audio_api import FakeAudio
from tests.fakes.openai_api import Error, FakeOpenAI
from tests.harness import ScriptedLLM
from tests.test_media_turns import SPEAK
from tests.test_media_turns import _world as media_world
from tests.test_off_the_record import over_the_wire

#: keys in variables whose names say nothing of what they hold (one each test: once read,
#: a key stays masked for the whole process)
KEY = "or-v1-7c1d9e2fa04b66e1d3c8a9f0b2e4d6a8"
GATEWAY_KEY = "gw-5b0e7d13c9a2f48e6d1b3a7c0f9e2d45"


def _keyed(tmp_path: Path, base_url: str) -> Path:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[llm.roles.chat]\nbackend = "remote"\n'
        f'[llm.backends.remote]\nkind = "openai_compat"\nmodel = "qwen"\n'
        f'base_url = "{base_url}"\napi_key_env = "ROUTER_CREDENTIAL"\n'
    )
    return config


class QuotingServer(FakeOpenAI):
    """A server that quotes the key it was given back in its refusal, as some proxies do."""

    async def _models(self, request: web.Request) -> web.Response:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ")
        said = f"The key {given} is not known here; this server knows {'many ' * 14}keys: {given}"
        return self.error_response(Error(401, "invalid_request_error", said))


async def test_probe_never_prints_a_key_the_server_quotes_back(tmp_path: Path) -> None:
    async with QuotingServer() as server:
        env = {"ROUTER_CREDENTIAL": KEY}
        findings = check(_keyed(tmp_path, f"{server.base_url}/v1"), env=env)
        assert findings.config is not None
        [result] = await probe_all(findings.config, env)
    assert not result.ok and "HTTP 401" in result.found
    assert KEY[:10] not in result.found


async def test_a_model_error_quoting_the_key_never_reaches_the_log(tmp_path: Path) -> None:
    env = {"ROUTER_CREDENTIAL": GATEWAY_KEY}
    async with over_the_wire(tmp_path, env=env, api_key_env="ROUTER_CREDENTIAL") as wired:
        world, fake, stream = wired
        fake.script(Error(401, "invalid_request_error", f"Incorrect API key: {GATEWAY_KEY}"))
        await world.say("hello there")
        fake.script(Error(400, "invalid_request_error", f"bad request from key {GATEWAY_KEY}"))
        await world.say("hello again")
    assert GATEWAY_KEY not in stream.getvalue()


class EchoingSpeech(FakeAudio):
    """A speech server that refuses what it is given and quotes it back, as servers whose
    validation errors carry the request's input do (FastAPI's HTTP 422)."""

    async def _speech(self, request: web.Request) -> web.Response:
        self.speech_asked += 1
        body = await request.json()
        problem = {"type": "value_error", "loc": ["body", "input"], "input": body.get("input")}
        return web.json_response({"detail": [problem]}, status=422)


async def test_an_answer_spoken_off_the_record_stays_out_of_the_log_when_speech_fails(
    tmp_path: Path,
) -> None:
    stream = io.StringIO()
    configure_logging(fmt="json", level="debug", stream=stream)
    try:
        async with EchoingSpeech() as audio:
            world = await media_world(
                tmp_path, audio, ScriptedLLM(), models=SPEAK, media={"voice_replies": True}
            )
            world.adapter.supports_voice = True
            outbox = world.daemon.outbox
            outbox.base_delay = outbox.max_delay = 0.05
            try:
                await world.send("/otr on")
                await world.send("the persimmonwalrus sleeps under the stairs")
                assert world.adapter.texts()[-1].endswith("persimmonwalrus sleeps under the stairs")
                for _ in range(100):
                    if audio.speech_asked >= SPOKEN_TRIES and not outbox.voices:
                        break
                    await asyncio.sleep(0.05)
            finally:
                await world.daemon.stop()
    finally:
        configure_logging(fmt="console", level="warning")
    assert audio.speech_asked == SPOKEN_TRIES, "tried again later, as any spoken copy"
    text = stream.getvalue()
    assert "media.server_failed" in text
    assert "persimmonwalrus" not in text


async def test_a_library_error_line_never_shows_a_known_token() -> None:
    """The standard library's records (asyncio's, aiohttp's, a platform library's) are
    masked like the daemon's own lines."""
    token = "123456789:AAEt0ken-of-a-bot-that-is-not-real-xyz"
    stream = io.StringIO()
    configure_logging(fmt="json", level="info", stream=stream)
    try:
        register_secret("plain-credential-7f3a91c2")

        async def rejected() -> None:
            raise RuntimeError(f"the token {token} (plain-credential-7f3a91c2) was rejected")

        task = asyncio.create_task(rejected())
        await asyncio.sleep(0)
        del task  # never awaited: asyncio logs its exception when it is collected
        gc.collect()
    finally:
        configure_logging(fmt="console", level="warning")
    text = stream.getvalue()
    assert "Task exception was never retrieved" in text
    assert token not in text and "plain-credential-7f3a91c2" not in text


def test_an_update_without_an_id_is_logged_by_its_keys_alone() -> None:
    # Telegram always numbers its updates; one that is not could still hold what was said
    nothing: Any = None
    poller = Poller(nothing, nothing, nothing, nothing, nothing)
    with capture_logs() as lines:
        taken = poller._take({"message": {"text": "meet me at the old mill, tell no one"}})
    assert not taken
    assert [line["keys"] for line in lines] == [["message"]]
    assert "old mill" not in repr(lines)


def test_a_secret_that_holds_another_is_masked_whole() -> None:
    register_secret("Kw3stfD2")
    register_secret("Kw3stfD2-9xQe71mPz")  # registered later, and longer
    masked = mask_secrets("the token Kw3stfD2-9xQe71mPz was refused")
    assert "9xQe71mPz" not in masked and "Kw3stfD2" not in masked
