"""The whole daemon with Matrix as its platform, against a real Synapse.

People talk through real nio clients; the daemon answers with the scripted model through the
Matrix adapter, streaming by edits. What a person sees is read back from the homeserver with
every edit applied.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from bot.setup.config import Config
from tests.daemon_process import shown_answers
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.synapse import Human, MatrixUser, SynapseServer, synapse

__all__ = ["synapse"]  # the fixture, imported for pytest


@dataclass
class World:
    config: Config
    llm: ScriptedLLM
    bot: MatrixUser
    scott: Human
    holly: Human
    daemon: Daemon

    async def restart(self) -> None:
        await self.daemon.stop()
        self.daemon = Daemon(self.config, backends={"scripted": self.llm}, http=False, jobs=False)
        await self.daemon.start()


async def shown(person: Human, room: str, bot_id: str) -> list[str]:
    """The bot's messages in ``room`` as a client shows them: each with its latest edit."""
    return await shown_answers(person, room, bot_id)


async def wait_shown(
    person: Human,
    room: str,
    bot_id: str,
    done: Callable[[list[str]], bool],
    within: float = 30.0,
) -> list[str]:
    deadline = time.monotonic() + within
    while True:
        texts = await shown(person, room, bot_id)
        if done(texts):
            return texts
        if time.monotonic() > deadline:
            raise AssertionError(f"the bot showed {texts!r}")
        await asyncio.sleep(0.2)


@pytest.fixture
async def world(synapse: SynapseServer, tmp_path: Path) -> AsyncIterator[World]:
    bot, scott_account, holly_account = (synapse.register() for _ in range(3))
    scott, holly = Human(synapse, scott_account), Human(synapse, holly_account)
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    users: dict[str, dict[str, Any]] = {
        "scott": {
            "identities": [f"matrix:{scott.user_id}"],
            "admin": True,
            "timezone": "America/New_York",
        },
        "holly": {"identities": [f"matrix:{holly.user_id}"], "timezone": "Europe/Lisbon"},
    }
    section = {
        "enabled": True,
        "homeserver": synapse.url,
        "user_id": bot.user_id,
        "password": bot.password,
        "sync_timeout_ms": 3000,
        "backoff_max_seconds": 1.0,
    }
    config = make_config(tmp_path, users=users, adapters={"matrix": section})
    llm = ScriptedLLM()
    daemon = Daemon(config, backends={"scripted": llm}, http=False, jobs=False)
    await daemon.start()
    world = World(config, llm, bot, scott, holly, daemon)
    try:
        yield world
    finally:
        await world.daemon.stop()
        await scott.close()
        await holly.close()


async def open_dm(person: Human, world: World) -> str:
    room = await person.create_room(world.bot.user_id, direct=True)
    await person.wait_membership(room, world.bot.user_id, "join")
    return room


async def test_dm_conversation(world: World) -> None:
    room = await open_dm(world.scott, world)
    await world.scott.say(room, "I like green tea.")
    await wait_shown(
        world.scott, room, world.bot.user_id, lambda t: t == ["echo: I like green tea."]
    )
    await world.scott.say(room, "And **oolong** too.")
    texts = await wait_shown(
        world.scott,
        room,
        world.bot.user_id,
        lambda t: len(t) == 2 and t[1] == "echo: And **oolong** too.",
    )
    assert texts[0] == "echo: I like green tea."
    assert len(world.llm.calls) == 2
    # the second turn saw the first one
    assert any("green tea" in (m.text or "") for m in world.llm.calls[1].messages)
    assert world.daemon.adapters["matrix"].health.running


async def test_otr_toggle_with_bang_commands(world: World) -> None:
    room = await open_dm(world.scott, world)
    await world.scott.say(room, "!otr on")
    await wait_shown(
        world.scott,
        room,
        world.bot.user_id,
        lambda t: len(t) == 1 and t[0].startswith("Off The Record is on"),
    )
    await world.scott.say(room, "a secret")
    await wait_shown(
        world.scott, room, world.bot.user_id, lambda t: len(t) == 2 and t[1] == "echo: a secret"
    )
    await world.scott.say(room, "!otr off")
    await wait_shown(
        world.scott,
        room,
        world.bot.user_id,
        lambda t: len(t) == 3 and t[2].startswith("Off The Record is off"),
    )
    [call] = world.llm.calls  # the commands never reached the model
    assert "Off The Record" in call.system.dynamic


async def test_admin_command_refused_for_non_admin(world: World) -> None:
    room = await open_dm(world.holly, world)
    await world.holly.say(room, "!reload")
    await wait_shown(world.holly, room, world.bot.user_id, lambda t: t == [ADMIN_ONLY])
    assert world.llm.calls == []


async def test_group_room_answers_only_when_named(world: World) -> None:
    room = await world.scott.create_room(world.bot.user_id, world.holly.user_id)
    await world.holly.client.join(room)
    await world.scott.wait_membership(room, world.bot.user_id, "join")
    await world.scott.wait_membership(room, world.holly.user_id, "join")
    await world.scott.say(room, "holly, lunch at noon?")
    await world.holly.say(room, f"{world.bot.user_id}: what is for lunch?")
    await wait_shown(
        world.scott, room, world.bot.user_id, lambda t: t == ["echo: what is for lunch?"]
    )
    await asyncio.sleep(0.5)
    assert len(world.llm.calls) == 1


async def test_daemon_restart_mid_conversation(world: World) -> None:
    room = await open_dm(world.scott, world)
    await world.scott.say(room, "before")
    await wait_shown(world.scott, room, world.bot.user_id, lambda t: t == ["echo: before"])
    await world.daemon.stop()
    await world.scott.say(room, "while you were down")
    world.daemon = Daemon(world.config, backends={"scripted": world.llm}, http=False, jobs=False)
    await world.daemon.start()
    expected = ["echo: before", "echo: while you were down"]
    await wait_shown(world.scott, room, world.bot.user_id, lambda t: t == expected)
    await world.scott.say(room, "after")
    expected.append("echo: after")
    await wait_shown(world.scott, room, world.bot.user_id, lambda t: t == expected)
    await world.restart()
    await world.scott.say(room, "once more")
    expected.append("echo: once more")
    await wait_shown(world.scott, room, world.bot.user_id, lambda t: t == expected)
    await asyncio.sleep(0.5)  # nothing more comes: no message was answered twice
    assert await shown(world.scott, room, world.bot.user_id) == expected
    assert len(world.llm.calls) == 4


async def test_a_rejected_password_is_a_failure_not_a_retry_loop(
    synapse: SynapseServer, tmp_path: Path
) -> None:
    bot = synapse.register()
    make_persona(tmp_path, "scott")
    section = {
        "enabled": True,
        "homeserver": synapse.url,
        "user_id": bot.user_id,
        "password": "not-the-password",
        "sync_timeout_ms": 3000,
    }
    config = make_config(tmp_path, adapters={"matrix": section})
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, http=False, jobs=False)
    await daemon.start()
    try:
        assert "matrix" in daemon.health.failed
        problem = daemon.health.problem("matrix") or ""
        assert "login" in problem and "failed" in problem
        assert daemon.watchdog is not None
        daemon._stall_seconds["matrix"] = 0.0
        assert await daemon.watchdog.check() == []  # a person must fix it: not retried
    finally:
        await daemon.stop()


async def test_an_answer_to_a_room_the_bot_was_kicked_from_is_given_up(world: World) -> None:
    room = await world.scott.create_room(world.bot.user_id)  # a group room scott moderates
    await world.scott.wait_membership(room, world.bot.user_id, "join")
    bot = world.bot.user_id
    await world.scott.say(room, f"{bot}: hello")
    await wait_shown(world.scott, room, bot, lambda t: t == ["echo: hello"])
    outbox = world.daemon.outbox
    outbox.base_delay = 0.05
    world.llm.delay = 3.0  # the answer is being written when the bot is kicked
    await world.scott.say(room, f"{bot}: goodbye")
    async with asyncio.timeout(20):
        while len(world.llm.calls) < 2:  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.05)
    await world.scott.api(
        "POST", f"/rooms/{quote(room)}/kick", {"user_id": world.bot.user_id, "reason": "bye"}
    )
    await world.scott.wait_membership(room, world.bot.user_id, "leave")
    async with asyncio.timeout(20):
        while not outbox.refusals():  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.05)
    [refusal] = outbox.refusals()
    assert refusal.room == room and refusal.user == "scott"
    assert "M_FORBIDDEN" in refusal.reason and refusal.reason.startswith("PermanentSendError")
    await asyncio.sleep(0.5)  # many backoff periods: nothing waits to be tried again
    assert outbox.parcels == [] and world.daemon.health.problems() == {}
    assert await shown(world.scott, room, bot) == ["echo: hello"]
