"""The tool loop: tools run, results go back, failures are reported, steps are bounded."""

from __future__ import annotations

from pathlib import Path

from bot.llm.base import Message, SystemPrompt
from bot.persona.store import PersonaStore
from bot.persona.template import create_persona
from bot.tools.loop import run_tool_loop
from bot.tools.registry import ToolRegistry
from bot.tools.scratch import scratch_tools
from tests.harness import ScriptedLLM


async def test_scratchpad_tools_round_trip(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    llm = ScriptedLLM()
    llm.queue_tool("scratch_write", {"text": "buy eggs"}, text="Noting it.")
    llm.queue_tool("scratch_read", {})
    llm.queue("Done: it says buy eggs.")
    streamed: list[str] = []

    async def sink(delta: str) -> None:
        streamed.append(delta)

    result = await run_tool_loop(
        llm,
        system=SystemPrompt("you"),
        messages=[Message("user", "remember eggs")],
        tools=ToolRegistry(scratch_tools(store, "scott", "inara")),
        max_steps=5,
        on_text=sink,
    )
    assert (directory / "SCRATCH.md").read_text() == "buy eggs\n"
    assert result.text == "Noting it.\n\nDone: it says buy eggs."
    assert "".join(streamed) == result.text
    assert [c.name for c in result.tool_calls] == ["scratch_write", "scratch_read"]
    read_result = llm.calls[2].messages[-1].tool_results[0]
    assert read_result.content == "buy eggs\n" and not read_result.is_error


async def test_bad_tool_calls_become_error_results(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    create_persona(store, "scott", "inara")
    llm = ScriptedLLM()
    llm.queue_tool("no_such_tool", {})
    llm.queue_tool("scratch_write", {"text": 42})
    llm.queue("Sorry.")
    result = await run_tool_loop(
        llm,
        system=SystemPrompt("you"),
        messages=[Message("user", "x")],
        tools=ToolRegistry(scratch_tools(store, "scott", "inara")),
        max_steps=5,
    )
    first = llm.calls[1].messages[-1].tool_results[0]
    second = llm.calls[2].messages[-1].tool_results[0]
    assert first.is_error and "no tool named" in first.content
    assert second.is_error and "'text' must be a string" in second.content
    assert result.text == "Sorry."


async def test_steps_are_bounded_and_the_last_call_offers_no_tools(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    create_persona(store, "scott", "inara")
    llm = ScriptedLLM()
    for _ in range(10):
        llm.queue_tool("scratch_read", {})
    result = await run_tool_loop(
        llm,
        system=SystemPrompt("you"),
        messages=[Message("user", "loop")],
        tools=ToolRegistry(scratch_tools(store, "scott", "inara")),
        max_steps=3,
    )
    assert result.steps == 4
    assert llm.calls[-1].tools == []
