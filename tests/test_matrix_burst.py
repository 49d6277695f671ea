"""Against a real Synapse: a burst of messages flushed at once is read whole, and a homeserver
that stops shows in ``/healthz`` within the stall limit, through the watchdog's restarts."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.daemon.daemon import Daemon
from tests.daemon_process import shown_answers
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.synapse import Human, MatrixUser, SynapseServer, synapse

__all__ = ["synapse"]  # the fixture, imported for pytest

STALL = 6.0
TOKEN = "api-token-0123456789abcdef"


@dataclass
class World:
    daemon: Daemon
    llm: ScriptedLLM
    bot: MatrixUser
    scott: Human
    data: Path

    async def healthz(self) -> tuple[int, dict[str, Any]]:
        url = f"http://127.0.0.1:{self.daemon.http_port}/healthz"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            return response.status, await response.json()


@pytest.fixture
async def world(synapse: SynapseServer, tmp_path: Path) -> AsyncIterator[World]:
    bot, scott_account = synapse.register(), synapse.register()
    scott = Human(synapse, scott_account)
    make_persona(tmp_path, "scott")
    users = {"scott": {"identities": [f"matrix:{scott.user_id}"], "timezone": "UTC"}}
    section = {
        "enabled": True,
        "homeserver": synapse.url,
        "user_id": bot.user_id,
        "password": bot.password,
        "sync_timeout_ms": 1000,
        "sync_grace_seconds": 2.0,
        "backoff_max_seconds": 1.0,
        "first_sync_wait_seconds": 1.0,
        "stall_seconds": STALL,
    }
    config = make_config(
        tmp_path,
        users=users,
        adapters={"matrix": section},
        extra={"http": {"enabled": True, "port": 0}},
    )
    llm = ScriptedLLM(delay=0.2)  # a turn takes a moment, as a model's does
    daemon = Daemon(
        config, backends={"scripted": llm}, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False
    )
    await daemon.start()
    assert daemon.watchdog is not None
    daemon.watchdog.interval = 1.0
    try:
        yield World(daemon, llm, bot, scott, tmp_path)
    finally:
        await daemon.stop()
        await scott.close()
        if synapse.process is None:
            await asyncio.to_thread(synapse.start)


async def test_thirty_messages_flushed_at_once_are_all_answered(world: World) -> None:
    room = await world.scott.create_room(world.bot.user_id, direct=True)
    await world.scott.wait_membership(room, world.bot.user_id, "join")
    texts = [f"flushed {n:02}" for n in range(30)]
    sent = await asyncio.gather(*(world.scott.say(room, text) for text in texts))
    deadline = time.monotonic() + 60
    while True:
        asked = [call.messages[-1].text for call in world.llm.calls]
        if sum(text.count("flushed") for text in asked) >= 30 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    # the homeserver orders the messages; each of them reaches the model once, in that order
    order = [
        e["content"]["body"]
        for e in await world.scott.messages(room)
        if e.get("type") == "m.room.message" and e["sender"] == world.scott.user_id
    ]
    assert sorted(order) == texts
    assert "\n\n".join(asked) == "\n\n".join(order)
    assert len(asked) < 30  # a burst is read as one, not message by message
    # one answer a turn, none doubled, and every event finished once
    answers = await _wait_answers(world, room, len(asked))
    assert sorted(answers) == sorted(f"echo: {text}" for text in asked)
    with sqlite3.connect(world.data / "personad.db") as con:
        statuses = dict(con.execute("SELECT event_id, status FROM events"))
    assert {statuses.get(event) for event in sent} == {"done"}


async def _healthz_until(world: World, code: int, *, within: float) -> dict[str, Any]:
    """``/healthz``'s body once it answers ``code``; fails if that takes ``within`` seconds."""
    started = time.monotonic()
    while True:
        status, body = await world.healthz()
        if status == code:
            return body
        assert time.monotonic() - started < within, body
        await asyncio.sleep(0.25)


async def _wait_answers(world: World, room: str, count: int) -> list[str]:
    deadline = time.monotonic() + 30
    while True:
        answers = await shown_answers(world.scott, room, world.bot.user_id)
        if len(answers) >= count or time.monotonic() > deadline:
            await asyncio.sleep(1.0)  # and no more come after
            return await shown_answers(world.scott, room, world.bot.user_id)
        await asyncio.sleep(0.2)


async def test_healthz_shows_a_stopped_homeserver_before_the_stall_limit(
    world: World, synapse: SynapseServer
) -> None:
    """A homeserver down is known at the first sync that fails: "reconnecting" long before
    the default stall limit (300 s) would say "stalled"."""
    world.daemon.health.stall_seconds = {"matrix": 300.0}
    assert world.daemon.watchdog is not None
    world.daemon.watchdog.stall_seconds = {"matrix": 300.0}
    code, body = await world.healthz()
    assert code == 200 and body["adapters"]["matrix"]["state"] == "ok"
    await asyncio.to_thread(synapse.stop)
    body = await _healthz_until(world, 503, within=15)
    assert body["adapters"]["matrix"]["state"] == "reconnecting", body
    assert body["adapters"]["matrix"]["synced"] is False
    assert body["problems"]["matrix"].startswith("reconnecting: no success for ")
    await asyncio.to_thread(synapse.start)
    body = await _healthz_until(world, 200, within=30)
    assert body["adapters"]["matrix"]["state"] == "ok"


async def test_healthz_shows_a_stopped_homeserver_within_the_stall_limit(
    world: World, synapse: SynapseServer
) -> None:
    code, body = await world.healthz()
    assert code == 200 and body["adapters"]["matrix"]["state"] == "ok"
    await asyncio.to_thread(synapse.stop)
    stopped = time.monotonic()
    body = await _healthz_until(world, 503, within=STALL + 3)
    assert body["adapters"]["matrix"]["state"] in ("stalled", "stopped", "reconnecting"), body
    assert body["adapters"]["matrix"]["synced"] is False
    # the watchdog restarts the adapter meanwhile (stopped while it does); a restart that
    # cannot reach the homeserver is not a success
    while time.monotonic() - stopped < 3 * STALL:
        code, body = await world.healthz()
        assert code == 503, body
        assert body["adapters"]["matrix"]["state"] in ("stalled", "stopped", "reconnecting"), body
        await asyncio.sleep(0.5)
    matrix = world.daemon.adapters["matrix"]
    assert matrix.health.restarts >= 1
    await asyncio.to_thread(synapse.start)
    body = await _healthz_until(world, 200, within=30)
    assert body["adapters"]["matrix"]["state"] == "ok"
