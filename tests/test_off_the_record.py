"""Off The Record and rooms, end to end in-process: the mode belongs to the user in a room and
follows them across personas; its turns are let go when it ends; a room never sees another
room's conversation; nothing said Off The Record reaches a log line, even a model error that
echoes it; switching fails closed when the mode cannot be saved."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.base import AdapterContext
from bot.daemon.daemon import Daemon
from bot.daemon.logs import configure_logging
from tests.fakes.openai_api import Error, FakeOpenAI
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

SECRET = "the-blue-door-code-is-4417"


class World:
    def __init__(self, daemon: Daemon, adapter: RecordingAdapter, data: Path) -> None:
        self.daemon = daemon
        self.adapter = adapter
        self.data = data
        self._n = 0

    async def say(self, text: str, *, room: str = "dm", direct: bool = True) -> str:
        self._n += 1
        before = len(self.adapter.sent)
        await self.adapter.deliver(
            text, sender="scott", room=room, event_id=f"e{self._n}", is_direct=direct
        )
        new = self.adapter.texts()[before:]
        return new[-1] if new else ""

    def disk_holds(self, needle: str) -> list[Path]:
        return [
            path
            for path in self.data.rglob("*")
            if path.is_file() and needle.encode() in path.read_bytes()
        ]


async def _start(
    data: Path,
    llm: ScriptedLLM | None,
    *,
    env: dict[str, str] | None = None,
    pinned: dict[tuple[str, str], str] | None = None,
    **config_kw: object,
) -> World:
    """A daemon with one console adapter; ``pinned``: the personas ``personad chat --persona``
    gives a user's terminal."""
    config = make_config(data, **config_kw)  # type: ignore[arg-type]
    backends = {"scripted": llm} if llm is not None else None
    daemon = Daemon(config, backends=backends, http=False, jobs=False, env=env or {}, pinned=pinned)

    async def handler(incoming):  # type: ignore[no-untyped-def]
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    adapter = RecordingAdapter(
        AdapterContext(handler=handler, state=daemon.state.for_adapter("console"), data_dir=data)
    )
    daemon.attach("console", adapter)
    await daemon.start()
    return World(daemon, adapter, data)


@pytest.fixture
async def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
async def world(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[World]:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "scott", "holly")
    world = await _start(tmp_path, llm, memory_backend="sqlite-fts5")
    yield world
    await world.daemon.stop()


def _said_to_model(llm: ScriptedLLM) -> str:
    return "\n".join(message.text for message in llm.calls[-1].messages)


async def test_off_the_record_follows_the_user_to_another_persona(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say("/otr on")
    answer = await world.say("/persona holly")
    assert "holly" in answer and "Off The Record is on" in answer
    await world.say(f"between us: {SECRET}")
    assert "Off The Record" in llm.calls[-1].system.dynamic
    assert world.disk_holds(SECRET) == []
    back = await world.say("/persona inara")
    assert "Off The Record is on" in back
    shown = await world.say("/otr")
    assert "Off The Record is on" in shown and "`/otr off`" in shown


async def test_a_persona_switch_states_the_mode_when_it_is_off(world: World) -> None:
    answer = await world.say("/persona holly")
    assert "Off The Record is off" in answer


async def test_its_turns_leave_the_conversation_when_it_ends(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say("Good morning")
    await world.say("/otr on")
    await world.say(f"between us: {SECRET}")
    assert SECRET in _said_to_model(llm)  # the model keeps the context while it lasts
    answer = await world.say("/otr off")
    assert "let go" in answer
    await world.say("What did I tell you earlier?")
    said = _said_to_model(llm)
    assert SECRET not in said and "Good morning" in said
    await world.daemon.stop()  # every session ends, its facts extracted
    assert world.disk_holds(SECRET) == []


async def test_the_mode_belongs_to_the_room(world: World) -> None:
    await world.say("/otr on", room="dm")
    await world.say(f"in the dm: {SECRET}", room="dm")
    await world.say("in the other dm: hello", room="dm2")
    logs = "".join(p.read_text() for p in (world.data / "scott").rglob("sessions/*.md"))
    assert "in the other dm: hello" in logs
    assert SECRET not in logs
    shown = await world.say("/otr", room="dm2")
    # "/otr" alone shows the mode; someone who meant to turn it on is told how
    assert "Off The Record is off" in shown and "`/otr on`" in shown


async def test_a_shared_room_never_sees_the_direct_conversation(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say("My test results came back: mild anemia.", room="dm")
    await world.say("/otr on", room="dm")
    await world.say(f"and {SECRET}", room="dm")
    await world.say("What should we cook tonight?", room="family", direct=False)
    said = _said_to_model(llm)
    assert "anemia" not in said and SECRET not in said
    assert "What should we cook tonight?" in said
    await world.say("and dessert?", room="dm")
    assert "anemia" in _said_to_model(llm)  # the direct conversation is still there


async def test_each_room_gets_its_conversation_back_after_a_restart(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    world = await _start(tmp_path, llm)
    await world.say("My test results came back: mild anemia.", room="dm")
    await world.say("Pizza on Friday?", room="family", direct=False)
    await world.daemon.stop()
    world = await _start(tmp_path, llm)
    try:
        await world.say("So, Friday?", room="family", direct=False)
        said = _said_to_model(llm)
        assert "Pizza on Friday?" in said and "anemia" not in said
    finally:
        await world.daemon.stop()


async def test_the_mode_survives_a_restart(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    world = await _start(tmp_path, ScriptedLLM())
    await world.say("/otr on")
    await world.daemon.stop()
    world = await _start(tmp_path, ScriptedLLM())
    try:
        await world.say(f"still private: {SECRET}")
        assert world.disk_holds(SECRET) == []
    finally:
        await world.daemon.stop()


def _break_mode_writes(data: Path) -> None:
    """Make every change of the mode fail inside SQLite, as a full disk would."""
    with sqlite3.connect(data / "personad.db") as con:
        for when in ("INSERT", "DELETE"):
            con.execute(
                f"CREATE TRIGGER full_{when.lower()} BEFORE {when} ON otr_room"
                " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
            )


async def test_turning_it_on_fails_closed(world: World) -> None:
    _break_mode_writes(world.data)
    answer = await world.say("/otr on")
    assert "Off The Record is on" in answer and "could not save" in answer
    await world.say(f"private: {SECRET}")
    assert world.disk_holds(SECRET) == []


async def test_turning_it_off_fails_closed(world: World) -> None:
    await world.say("/otr on")
    _break_mode_writes(world.data)
    answer = await world.say("/otr off")
    assert "stays on" in answer
    await world.say(f"private: {SECRET}")
    assert world.disk_holds(SECRET) == []


@contextlib.asynccontextmanager
async def over_the_wire(
    data: Path, *, env: dict[str, str] | None = None, **backend: object
) -> AsyncIterator[tuple[World, FakeOpenAI, io.StringIO]]:
    """A started daemon whose model is a fake OpenAI-compatible server on loopback (no
    retries; ``backend`` adds to its config), with every log line it writes kept."""
    make_persona(data, "scott")
    stream = io.StringIO()
    configure_logging(fmt="json", level="debug", stream=stream)
    try:
        async with FakeOpenAI() as fake:
            spec = {
                "kind": "openai_compat",
                "model": "m",
                "base_url": fake.base_url + "/v1",
                "max_retries": 0,
                **backend,
            }
            extra = {"llm": {"backends": {"scripted": spec}}}
            world = await _start(data, None, env=env, extra=extra)
            try:
                yield world, fake, stream
            finally:
                await world.daemon.stop()
    finally:
        configure_logging(fmt="console", level="warning")


async def test_no_log_line_carries_what_was_said_off_the_record(tmp_path: Path) -> None:
    async with over_the_wire(tmp_path) as (world, fake, stream):
        await world.say("/otr on")
        fake.script(Error(400, "invalid_request_error", f"cannot parse: {SECRET}"))
        answer = await world.say(f"private: {SECRET}")
        assert SECRET not in answer
        fake.script(Error(500, "server_error", f"crashed on: {SECRET}"))
        await world.say(f"again: {SECRET}")
    text = stream.getvalue()
    assert SECRET not in text
    failed = [json.loads(line) for line in text.splitlines() if "turn.failed" in line]
    assert failed and all(line["otr"] is True for line in failed)


async def test_a_shared_room_is_offered_only_tools_on_its_own_files(
    world: World, llm: ScriptedLLM
) -> None:
    folder = world.data / "scott/persona/inara"
    (folder / "SCRATCH.md").write_text("the surprise for Holly is a kayak\n")
    await world.say("hello", room="dm")
    direct = {tool.name for tool in llm.calls[-1].tools}
    llm.queue_tool("scratch_read", {})
    llm.queue("ok")
    await world.say("hello all", room="family", direct=False)
    shared = {tool.name for tool in llm.calls[-1].tools}
    # the same tools, each on the room's own files: its scratchpad holds nothing private
    assert "scratch_read" in direct and shared == direct
    [result] = llm.calls[-1].messages[-1].tool_results
    assert "kayak" not in result.content


async def test_a_memory_learned_in_a_direct_room_is_not_recalled_in_a_shared_one(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say("I am allergic to penicillin, since childhood.", room="dm")
    await world.say("We adopted a beagle named Biscuit.", room="family", direct=False)
    await world.say(
        "What am I allergic to, and what is our beagle called?", room="family", direct=False
    )
    shared = llm.calls[-1].system.dynamic
    assert "Biscuit" in shared and "penicillin" not in shared
    # a fresh conversation: the allergy is memory's to bring back, not the live conversation's
    await world.say("/new", room="dm")
    await world.say("What am I allergic to? And the beagle?", room="dm")
    direct = llm.calls[-1].system.dynamic
    assert "penicillin" in direct and "Biscuit" in direct


def _recalled(llm: ScriptedLLM) -> str:
    """The recalled memories of the last request's prompt."""
    prompt = llm.calls[-1].system.dynamic
    return prompt.partition("--- Recalled memories ---")[2]


async def test_a_follow_up_is_resolved_against_its_own_rooms_conversation_only(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say(
        "Our Tomasz got a flat in Gdansk, right over the harbour.", room="family", direct=False
    )
    await world.say("/new", room="family", direct=False)  # from now on only memory holds it
    # the direct room names him; the family room's follow-up never borrows its words
    await world.say("Tomasz rang this morning and talked for ages.", room="dm")
    await world.say("Where is he living now?", room="family", direct=False)
    assert "Gdansk" not in _recalled(llm)
    # named in the family room itself, the same follow-up finds him
    await world.say("Tomasz rang me too, he talked for ages.", room="family", direct=False)
    await world.say("Where is he living now?", room="family", direct=False)
    assert "Gdansk" in _recalled(llm)


async def test_an_adapter_is_told_which_rooms_are_off_the_record(world: World) -> None:
    """So that what it remembers of a send there (Telegram: how many messages of a long
    answer went out, with a fingerprint of its text) stays in memory."""
    told = world.adapter.context.off_the_record
    assert not told("dm")
    await world.say("/otr on", room="dm")
    assert told("dm") and not told("dm2")
    await world.say("/otr off", room="dm")
    assert not told("dm")


async def test_an_answer_said_off_the_record_keeps_its_room_private_until_it_goes_out(
    world: World, llm: ScriptedLLM
) -> None:
    told = world.adapter.context.off_the_record
    outbox = world.daemon.outbox
    outbox.base_delay = outbox.max_delay = 3600.0  # no retry by itself
    await world.say("/otr on", room="dm")
    world.adapter.down = True
    llm.queue("Your locker is number 12.")
    await world.say("where is my locker?", room="dm")
    world.adapter.down = False
    await world.say("/otr off", room="dm")
    assert told("dm"), "the Off The Record answer still waits for the room"
    # the answer, then the reply to "/otr off", which waited behind it
    assert await outbox.run_due(now=time.time() + 7200) == 2
    assert "Your locker is number 12." in world.adapter.texts()
    assert not told("dm")
