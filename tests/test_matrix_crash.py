"""Exactly once through crashes and outages: ``personad run`` on a real Synapse.

Each test counts what the person sees from the room's history on the homeserver (edits count
as the message they replace): one answer per message, the whole answer, never a second copy
and never a cut-off fragment left behind. The model is a loopback server that streams slowly
(:mod:`tests.fakes.streaming_model`), so the daemon can be killed, stopped or cut off from the
homeserver while an answer is on its way.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.daemon.daemon import Daemon
from bot.setup.config_loader import load_config
from tests.daemon_process import DaemonProcess, daemon_config, shown_answers
from tests.fakes.streaming_model import StreamingModel, expected_answer
from tests.harness import make_persona
from tests.synapse import Human, MatrixUser, SynapseServer, free_port, synapse
from tests.test_matrix_idempotent import frozen

__all__ = ["synapse"]  # the fixture, imported for pytest

WORDS = 30


@dataclass
class World:
    server: SynapseServer
    bot: MatrixUser
    person: Human
    model: StreamingModel
    daemon: DaemonProcess
    tmp: Path
    room: str = ""

    async def open_dm(self) -> str:
        self.room = await self.person.create_room(self.bot.user_id, direct=True)
        await self.person.wait_membership(self.room, self.bot.user_id, "join")
        return self.room

    async def answers(self) -> list[str]:
        return await shown_answers(self.person, self.room, self.bot.user_id)

    async def wait_answers(self, done: Callable[[list[str]], bool], within: float = 60) -> None:
        deadline = time.monotonic() + within
        while not done(texts := await self.answers()):
            if time.monotonic() > deadline:
                raise AssertionError(f"the room shows {texts!r}")
            await asyncio.sleep(0.2)


async def model_asked(model: StreamingModel) -> None:
    """Wait until a turn is waiting for the model."""
    for _ in range(300):
        if model.requests:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the model was never asked")


@asynccontextmanager
async def world_of(server: SynapseServer, tmp: Path, **matrix: object) -> AsyncIterator[World]:
    """A bot, a person and the streaming model, with the daemon's config written (not
    started); afterwards the daemon is killed and the homeserver is left running."""
    bot, account = server.register(), server.register()
    port = free_port()
    with StreamingModel.run_in_thread(words=WORDS) as model:
        config = daemon_config(
            tmp / "personad.toml",
            data_dir=tmp / "data",
            server=server,
            bot=bot,
            people={"scott": account.user_id},
            model_url=model.api_url,
            port=port,
            matrix=dict(matrix),
        )
        make_persona(tmp / "data", "scott")
        daemon = DaemonProcess(config, port, tmp / "daemon.log")
        world = World(server, bot, Human(server, account), model, daemon, tmp)
        try:
            yield world
        finally:
            daemon.kill()
            await world.person.close()
            if server.process is None:
                await asyncio.to_thread(server.start)


@pytest.fixture
async def world(synapse: SynapseServer, tmp_path: Path) -> AsyncIterator[World]:
    async with world_of(synapse, tmp_path, stall_seconds=4.0, sync_grace_seconds=2.0) as made:
        yield made


async def test_sigkill_while_an_answer_streams(world: World) -> None:
    await asyncio.to_thread(world.daemon.start)
    await world.open_dm()
    full = expected_answer("msg-kill", WORDS)
    world.model.delay = 0.3  # thirty words: nine seconds of streaming
    await world.person.say(world.room, "tell me everything, msg-kill")
    await world.wait_answers(lambda t: len(t) == 1 and t[0] != full)  # a streamed beginning
    world.daemon.kill()
    world.model.delay = 0.0
    await asyncio.to_thread(world.daemon.start)
    await world.wait_answers(lambda t: t == [full])
    await asyncio.sleep(1.0)  # nothing more arrives
    assert await world.answers() == [full]


async def test_homeserver_down_while_an_answer_is_due(world: World) -> None:
    await asyncio.to_thread(world.daemon.start)
    await world.open_dm()
    full = expected_answer("msg-outage", WORDS)
    world.model.lead = 3600.0  # held until the homeserver has gone
    await world.person.say(world.room, "are you there? msg-outage")
    await model_asked(world.model)
    await asyncio.to_thread(world.server.stop)
    world.model.lead = 0.0  # the answer is due now, with nowhere to go
    await asyncio.sleep(6.0)  # it is tried and fails: it waits in the outbox
    assert world.daemon.running()
    await asyncio.to_thread(world.server.start)
    await world.wait_answers(lambda t: t == [full], within=90)
    await asyncio.sleep(1.0)
    assert await world.answers() == [full]


async def wait_health(daemon: DaemonProcess, code: int, within: float) -> dict[str, Any]:
    """The body of ``/healthz`` once it answers ``code``."""
    deadline = time.monotonic() + within
    while (answer := await asyncio.to_thread(daemon.health)) is None or answer[0] != code:
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.2)
    body: dict[str, Any] = answer[1]
    return body


async def test_frozen_homeserver_is_unhealthy_until_it_thaws(world: World) -> None:
    await asyncio.to_thread(world.daemon.start)
    await wait_health(world.daemon, 200, within=30)
    with frozen(world.server):
        body = await wait_health(world.daemon, 503, within=30)
        assert "stalled" in body["problems"]["matrix"]
        matrix = world.daemon.status()["adapters"]["matrix"]
        assert not matrix["synced"] and "stalled" in matrix["problem"]
    await wait_health(world.daemon, 200, within=90)
    assert world.daemon.status()["adapters"]["matrix"]["synced"]


async def test_sigterm_with_a_slow_model_answers_after_restart(
    synapse: SynapseServer, tmp_path: Path
) -> None:
    """The stop a SIGTERM starts, in-process so the drain can be short: the turn still
    waiting for the model is cut off, stays unfinished, and the next process answers it."""
    async with world_of(synapse, tmp_path) as world:
        config = load_config(world.daemon.config, env={})
        daemon = Daemon(config, http=False, jobs=False)
        daemon.drain_seconds = 1.0
        await daemon.start()
        await world.open_dm()
        world.model.lead = 3600.0  # the model does not answer before the stop
        await world.person.say(world.room, "slow one, msg-term")
        await model_asked(world.model)
        await daemon.stop()
        assert await world.answers() == []
        world.model.lead = 0.0
        daemon = Daemon(config, http=False, jobs=False)
        await daemon.start()
        try:
            full = expected_answer("msg-term", WORDS)
            await world.wait_answers(lambda t: t == [full])
            await world.person.say(world.room, "and then, msg-next")
            following = expected_answer("msg-next", WORDS)
            await world.wait_answers(lambda t: t == [full, following])
        finally:
            await daemon.stop()
        assert await world.answers() == [full, following]


async def test_watchdog_restart_during_a_streamed_answer(
    synapse: SynapseServer, tmp_path: Path
) -> None:
    """The watchdog restarts the adapter while an answer streams: the cut turn is answered
    again from the redelivered event, finishing the message already in the room."""
    async with world_of(synapse, tmp_path, drain_seconds=0.5) as world:
        daemon = Daemon(load_config(world.daemon.config, env={}), http=False, jobs=False)
        await daemon.start()
        try:
            await world.open_dm()
            full = expected_answer("msg-watchdog", WORDS)
            world.model.delay = 0.3
            await world.person.say(world.room, "and now, msg-watchdog")
            await world.wait_answers(lambda t: len(t) == 1 and t[0] != full)  # a beginning
            assert daemon.watchdog is not None
            assert await daemon.watchdog.restart("matrix", daemon.adapters["matrix"])
            assert len(world.model.requests) == 1 and len(await world.answers()) == 1  # cut
            world.model.delay = 0.0
            await world.wait_answers(lambda t: t == [full])
            await asyncio.sleep(1.0)
            assert await world.answers() == [full]
        finally:
            await daemon.stop()
