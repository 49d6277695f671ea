"""The gate decides which tools a turn may use; a withheld tool called anyway is refused
and never runs; tool calls per answer and per turn are capped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import structlog

from bot.llm.base import Completion, Message, SystemPrompt, ToolCall
from bot.persona.store import PersonaStore
from bot.setup.config_loader import collect_problems
from bot.tools.catalog import persona_tools, turn_tools
from bot.tools.gate import ADMIN_ONLY, OFF_THE_RECORD, SHARED_ROOM, TurnMode, gate
from bot.tools.loop import run_tool_loop
from bot.tools.registry import CallLimits, Tool
from tests.harness import ScriptedLLM, make_persona

NY = ZoneInfo("America/New_York")


class BurstLLM(ScriptedLLM):
    """A model that may ask for many tools in one answer."""

    def queue_calls(self, calls: list[tuple[str, dict[str, Any]]], text: str = "") -> None:
        tool_calls = [ToolCall(f"burst_{n}", name, args) for n, (name, args) in enumerate(calls)]
        self._queue.append(Completion(text=text, tool_calls=tool_calls, stop_reason="tool_use"))


def _store(tmp_path: Path) -> PersonaStore:
    make_persona(tmp_path, "scott")
    return PersonaStore(tmp_path)


def _names(specs: list[Any]) -> set[str]:
    return {spec.name for spec in specs}


def test_the_gate_withholds_by_what_a_tool_does(tmp_path: Path) -> None:
    tools = persona_tools(_store(tmp_path), "scott", "inara", NY)
    everything = {tool.name for tool in tools}
    assert _names(gate(tools, TurnMode()).specs) == everything

    otr = gate(tools, TurnMode(otr=True))
    assert _names(otr.specs) == {"scratch_read", "reminder_list", "task_list", "cron_list"}
    assert otr.withheld("task_add") == OFF_THE_RECORD and otr.get("task_add") is None

    shared = gate(tools, TurnMode(shared_room=True))
    assert _names(shared.specs) == {"scratch_write", "reminder_add", "task_add", "cron_add"}
    assert shared.withheld("scratch_read") == SHARED_ROOM


def test_admin_only_tools_need_an_admin() -> None:
    async def handler(_args: dict[str, Any]) -> str:
        return "ran"

    tool = Tool("reload_all", "admin work", {"type": "object"}, handler, admin=True)
    assert gate([tool], TurnMode(admin=False)).withheld("reload_all") == ADMIN_ONLY
    assert gate([tool], TurnMode(admin=True)).get("reload_all") is tool


async def test_a_withheld_tool_called_anyway_is_refused_and_writes_nothing(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    folder = tmp_path / "scott/persona/inara"
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    llm = ScriptedLLM()
    llm.queue_tool("scratch_write", {"text": "the surprise party is on friday"})
    llm.queue_tool("task_add", {"title": "buy the surprise present"})
    llm.queue("Noted.")
    tools = turn_tools(store, "scott", "inara", NY, mode=TurnMode(otr=True), limits=CallLimits())
    result = await run_tool_loop(
        llm, system=SystemPrompt("you"), messages=[Message("user", "x")], tools=tools, max_steps=4
    )
    refusals = [llm.calls[n].messages[-1].tool_results[0] for n in (1, 2)]
    assert all(r.is_error and r.content.startswith("Off The Record") for r in refusals)
    assert result.text == "Noted."
    after = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    assert after == before


async def test_two_thousand_calls_in_one_answer_run_at_most_the_cap(tmp_path: Path) -> None:
    store = _store(tmp_path)
    llm = BurstLLM()
    llm.queue_calls([("task_add", {"title": f"task {n}"}) for n in range(2000)])
    llm.queue("Added what I could.")
    tools = turn_tools(store, "scott", "inara", NY, mode=TurnMode(), limits=CallLimits(8, 32))
    await run_tool_loop(
        llm, system=SystemPrompt("you"), messages=[Message("user", "x")], tools=tools, max_steps=4
    )
    tasks = json.loads((tmp_path / "scott/persona/inara/TASKS.json").read_text())
    assert [task["title"] for task in tasks] == [f"task {n}" for n in range(8)]
    results = llm.calls[1].messages[-1].tool_results
    assert len(results) == 2000  # every call is answered, so the model can follow the thread
    assert all("at most 8 tool calls in one answer" in r.content for r in results[8:])
    assert not any(r.is_error for r in results[:8])


async def test_the_turn_cap_stops_offering_tools(tmp_path: Path) -> None:
    store = _store(tmp_path)
    llm = BurstLLM()
    for step in range(3):
        llm.queue_calls([("task_add", {"title": f"s{step} t{n}"}) for n in range(4)])
    llm.queue("Enough.")
    tools = turn_tools(store, "scott", "inara", NY, mode=TurnMode(), limits=CallLimits(4, 6))
    result = await run_tool_loop(
        llm, system=SystemPrompt("you"), messages=[Message("user", "x")], tools=tools, max_steps=6
    )
    tasks = json.loads((tmp_path / "scott/persona/inara/TASKS.json").read_text())
    assert len(tasks) == 6
    second = llm.calls[2].messages[-1].tool_results
    assert [r.is_error for r in second] == [False, False, True, True]
    assert "at most 6 tool calls in one turn" in second[-1].content
    assert llm.calls[2].tools == []  # the turn's cap is spent: the model is asked for words
    assert result.steps == 3


def test_call_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        CallLimits(0, 5)


def test_the_caps_are_validated_in_the_config(tmp_path: Path) -> None:
    path = tmp_path / "caps.toml"
    path.write_text("[llm]\nmax_tool_calls_per_step = 0\nmax_tool_calls_per_turn = 9000\n")
    _config, problems = collect_problems(path, {})
    text = "\n".join(problems)
    assert "llm.max_tool_calls_per_step" in text and "llm.max_tool_calls_per_turn" in text
    path.write_text("[llm]\nmax_tool_calls_per_step = 4\n")
    config, problems = collect_problems(path, {})
    assert not problems and config is not None
    assert config.llm.max_tool_calls_per_step == 4 and config.llm.max_tool_calls_per_turn == 32


async def test_the_log_never_quotes_what_the_model_passed(tmp_path: Path) -> None:
    secret = "PRIVATE-TEXT-9917"

    async def broken(args: dict[str, Any]) -> str:
        raise ValueError(f"cannot use {args['text']}")

    tool = Tool("note", "a note", {"type": "object"}, broken)
    llm = BurstLLM()
    llm.queue_calls([("note", {"text": secret}), (f"save {secret}", {"text": secret})])
    llm.queue("Sorry.")
    with structlog.testing.capture_logs() as logs:
        await run_tool_loop(
            llm,
            system=SystemPrompt("you"),
            messages=[Message("user", secret)],
            tools=gate([tool], TurnMode(otr=True)),
            max_steps=3,
        )
    assert secret not in repr(logs)
    failed = next(entry for entry in logs if entry["event"] == "tool.failed")
    assert failed["error"] == "ValueError" and failed["tool"] == "note"
    called = next(entry for entry in logs if entry["event"] == "tools.called")
    assert called["tools"] == ["note", "(unknown)"]
    results = llm.calls[1].messages[-1].tool_results
    assert "failed internally" in results[0].content and "no tool named" in results[1].content
