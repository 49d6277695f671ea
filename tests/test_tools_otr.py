"""Off The Record through the whole daemon: a hostile model calls every tool the persona has,
and nothing of the private conversation reaches a file or a log line; the model is told why
each persisting tool was refused. Also: the tool call cap from the config holds in a turn."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import structlog

from adapters.base import AdapterContext
from bot.daemon.daemon import Daemon
from bot.llm.base import ToolResult
from bot.turn.audience import DIRECT_ROOM, Audience
from tests.harness import RecordingAdapter, make_config, make_persona
from tests.test_tools_gate import BurstLLM

MARKER = "OTR-KUMQUAT-5521"

#: every tool of the persona, each with the private text in its arguments
EVERY_TOOL: list[tuple[str, dict[str, Any]]] = [
    ("scratch_write", {"text": f"plan {MARKER}"}),
    ("scratch_read", {}),
    ("reminder_add", {"text": f"call {MARKER}", "when": "2099-01-02T09:00"}),
    ("reminder_list", {}),
    ("reminder_done", {"match": MARKER}),
    ("task_add", {"title": f"buy {MARKER}"}),
    ("task_list", {}),
    ("task_done", {"match": MARKER}),
    ("task_remove", {"match": MARKER}),
    ("cron_add", {"schedule": "0 7 * * *", "prompt": f"tell me about {MARKER}"}),
    ("cron_list", {}),
    ("cron_remove", {"match": MARKER}),
    ("memory_search", {"query": MARKER}),
    ("memory_add", {"text": f"The user's secret project is called {MARKER}."}),
    ("memory_forget", {"id": "1"}),
]
PERSISTING = {
    "scratch_write",
    "reminder_add",
    "reminder_done",
    "task_add",
    "task_done",
    "task_remove",
    "cron_add",
    "cron_remove",
    "memory_search",
    "memory_add",
    "memory_forget",
}


@dataclass
class World:
    daemon: Daemon
    adapter: RecordingAdapter
    llm: BurstLLM
    data: Path
    n: int = 0

    async def say(self, text: str) -> str:
        self.n += 1
        before = len(self.adapter.sent)
        await self.adapter.deliver(text, sender="scott", event_id=f"e{self.n}")
        new = self.adapter.texts()[before:]
        return new[-1] if new else ""


async def _start(data: Path, **extra: Any) -> World:
    make_persona(data, "scott")
    config = make_config(data, memory_backend="sqlite-fts5", extra=extra)
    llm = BurstLLM()
    daemon = Daemon(config, backends={"scripted": llm}, http=False, jobs=False)

    async def handler(incoming):  # type: ignore[no-untyped-def]
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    context = AdapterContext(
        handler=handler, state=daemon.state.for_adapter("console"), data_dir=data
    )
    adapter = RecordingAdapter(context)
    daemon.attach("console", adapter)
    await daemon.start()
    return World(daemon, adapter, llm, data)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    world = await _start(tmp_path)
    yield world
    await world.daemon.stop()


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


async def test_every_tool_called_off_the_record_keeps_nothing(world: World) -> None:
    await world.say("hello")  # on the record: the session, its log and memory.db exist
    await world.say("/otr on")
    persona = world.data / "scott/persona/inara"
    before = _snapshot(persona)
    world.llm.queue_calls(EVERY_TOOL[:8])
    world.llm.queue_calls(EVERY_TOOL[8:])
    world.llm.queue("I can't keep anything while we're off the record.")
    with structlog.testing.capture_logs() as logs:
        reply = await world.say(f"my secret project is {MARKER}; note it everywhere")
    assert reply == "I can't keep anything while we're off the record."

    results: list[ToolResult] = []
    for call in world.llm.calls[-2:]:  # the answers to the two bursts of calls
        results.extend(call.messages[-1].tool_results)
    by_name = dict(zip([name for name, _args in EVERY_TOOL], results, strict=True))
    for name in PERSISTING:
        assert by_name[name].is_error and "Off The Record" in by_name[name].content, name
    offered = {spec.name for spec in world.llm.calls[-3].tools}
    assert offered == {"scratch_read", "reminder_list", "task_list", "cron_list"}

    assert _snapshot(persona) == before
    for path in world.data.rglob("*"):
        if path.is_file():
            assert MARKER.encode() not in path.read_bytes(), path
    assert MARKER not in repr(logs)


async def test_tools_come_back_when_off_the_record_ends(world: World) -> None:
    await world.say("/otr on")
    await world.say("/otr off")
    world.llm.queue_tool("task_add", {"title": "renew the passport"})
    world.llm.queue("Added.")
    assert await world.say("add a task") == "Added."
    tasks = json.loads((world.data / "scott/persona/inara/TASKS.json").read_text())
    assert [task["title"] for task in tasks] == ["renew the passport"]
    assert "memory_add" in {spec.name for spec in world.llm.calls[-2].tools}


async def test_the_configured_call_cap_holds_in_a_turn(tmp_path: Path) -> None:
    world = await _start(tmp_path, llm={"max_tool_calls_per_step": 3})
    try:
        world.llm.queue_calls([("task_add", {"title": f"task {n}"}) for n in range(2000)])
        world.llm.queue("Done.")
        assert await world.say("add two thousand tasks") == "Done."
    finally:
        await world.daemon.stop()
    tasks = json.loads((tmp_path / "scott/persona/inara/TASKS.json").read_text())
    assert len(tasks) == 3


async def test_a_session_gates_its_tools_by_room_and_mode(world: World) -> None:
    await world.say("hello")
    assert world.daemon.sessions is not None
    session = await world.daemon.sessions.get("scott", "inara")
    zone = session.user_config.zone
    direct = session._tools(False, zone, DIRECT_ROOM)
    assert "memory_search" in direct and "scratch_read" in direct
    shared = session._tools(False, zone, Audience("console:family"))
    # every tool of a shared room works on its own files, and memory search finds only
    # what that room may see
    assert "scratch_read" in shared and shared.get("scratch_read") is not direct.get("scratch_read")
    assert "task_add" in shared and "memory_add" in shared and "memory_search" in shared
    private = session._tools(True, zone, DIRECT_ROOM)
    assert "memory_search" not in private and "task_add" not in private
    assert private.withheld("memory_add") is not None


async def test_a_secret_the_model_hands_a_tool_never_reaches_its_file(world: World) -> None:
    secret = "Gx7#kP2v!Lm9"
    world.llm.queue_tool("scratch_write", {"text": f"wifi password is {secret}"})
    world.llm.queue_tool("task_add", {"title": f"give the guests the wifi key: {secret}"})
    world.llm.queue("noted")
    await world.say("remember the wifi for the guests")
    folder = world.data / "scott/persona/inara"
    scratch = (folder / "SCRATCH.md").read_text()
    assert secret not in scratch and "wifi password is" in scratch
    assert secret not in (folder / "TASKS.json").read_text()
