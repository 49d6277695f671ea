"""The task list: TASKS.json through the model's tools, kept whole and never clobbered."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.persona.store import PersonaStore
from bot.tools.registry import Tool, ToolFailed
from bot.tools.tasks import task_tools
from tests.harness import make_persona

NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 30, 9, 15, tzinfo=NY)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[dict[str, Tool], Path]:
    make_persona(tmp_path, "scott")
    tools = task_tools(PersonaStore(tmp_path), "scott", "inara", NY, lambda: NOW)
    return {tool.name: tool for tool in tools}, tmp_path / "scott/persona/inara/TASKS.json"


def _load(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text())
    return data


async def test_tasks_round_trip(setup: tuple[dict[str, Tool], Path]) -> None:
    tools, path = setup
    assert await tools["task_list"].handler({}) == "No open tasks."
    answer = await tools["task_add"].handler({"title": "Renew the passport", "due": "2026-12-15"})
    assert answer == "Task added: #1 Renew the passport (due 2026-12-15)"
    await tools["task_add"].handler({"title": "Book  the\ntrain"})
    await tools["task_add"].handler({"title": "Call mum", "due": "2026-12-01T17:00"})
    assert _load(path) == [
        {
            "id": 1,
            "title": "Renew the passport",
            "status": "open",
            "created": "2026-11-30T09:15-05:00",
            "due": "2026-12-15",
        },
        {"id": 2, "title": "Book the train", "status": "open", "created": "2026-11-30T09:15-05:00"},
        {
            "id": 3,
            "title": "Call mum",
            "status": "open",
            "created": "2026-11-30T09:15-05:00",
            "due": "2026-12-01T17:00",
        },
    ]
    assert "Done: #2 ✓ Book the train" in await tools["task_done"].handler({"id": 2})
    assert "Call mum" in await tools["task_remove"].handler({"match": "MUM"})
    assert await tools["task_list"].handler({}) == "#1 Renew the passport (due 2026-12-15)"
    assert await tools["task_list"].handler({"include_done": True}) == (
        "#1 Renew the passport (due 2026-12-15)\n#2 ✓ Book the train (done 2026-11-30)"
    )
    tasks = _load(path)
    assert [task["status"] for task in tasks] == ["open", "done", "removed"]
    assert tasks[1]["done_at"] == tasks[2]["removed_at"] == "2026-11-30T09:15-05:00"
    # removed tasks keep their number: a new task never reuses one
    assert (await tools["task_add"].handler({"title": "Water plants"})).startswith("Task added: #4")


async def test_hand_written_fields_and_odd_items_are_kept(
    setup: tuple[dict[str, Tool], Path],
) -> None:
    tools, path = setup
    hand = [
        {"id": 7, "title": "Fix the bike", "status": "open", "priority": "high", "tags": ["x"]},
        {"title": "No id, written by hand"},
        {"id": "a", "title": "A text id", "status": "done"},
    ]
    path.write_text(json.dumps(hand, indent=4))
    await tools["task_add"].handler({"title": "Buy milk"})
    tasks = _load(path)
    assert tasks[:3] == hand
    assert tasks[3]["id"] == 8
    listing = await tools["task_list"].handler({})
    assert "#7 Fix the bike" in listing and "#? No id, written by hand" in listing
    await tools["task_done"].handler({"match": "no id"})
    assert _load(path)[1]["status"] == "done"


@pytest.mark.parametrize(
    "content",
    ['[{"id": 1, "title": "Half', '{"id": 1}', "[1, 2]", "[{'id': 1}]"],
)
async def test_a_corrupt_file_is_refused_and_never_overwritten(
    setup: tuple[dict[str, Tool], Path], content: str
) -> None:
    tools, path = setup
    path.write_text(content)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("task_add", {"title": "Buy milk"}),
        ("task_list", {}),
        ("task_done", {"id": 1}),
        ("task_remove", {"id": 1}),
    ]
    for name, args in calls:
        with pytest.raises(ToolFailed, match=r"TASKS\.json .*fix it by hand"):
            await tools[name].handler(args)
    assert path.read_text() == content


async def test_the_json_error_names_where_the_file_is_broken(
    setup: tuple[dict[str, Tool], Path],
) -> None:
    tools, path = setup
    path.write_text('[\n  {"id": 1, "title": "x",}\n]\n')
    with pytest.raises(ToolFailed, match=r"line 2, column"):
        await tools["task_list"].handler({})


async def test_an_empty_or_missing_file_is_an_empty_list(
    setup: tuple[dict[str, Tool], Path],
) -> None:
    tools, path = setup
    path.write_text("\n")
    assert await tools["task_list"].handler({}) == "No open tasks."
    path.unlink()
    await tools["task_add"].handler({"title": "First"})
    assert [task["title"] for task in _load(path)] == ["First"]


async def test_bad_arguments_are_explained(setup: tuple[dict[str, Tool], Path]) -> None:
    tools, path = setup
    await tools["task_add"].handler({"title": "Call the bank"})
    await tools["task_add"].handler({"title": "Call the dentist"})
    before = path.read_text()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("task_add", {"title": ""}, "what the task is"),
        ("task_add", {"title": "x", "due": "soon"}, "'due' must be a date"),
        ("task_done", {"match": "call"}, "matches several"),
        ("task_done", {"id": 9}, "no open task #9"),
        ("task_done", {}, "'id' or 'match'"),
    ]
    for name, args, error in cases:
        with pytest.raises(ToolFailed, match=error):
            await tools[name].handler(args)
    assert path.read_text() == before
    await tools["task_done"].handler({"id": 1})
    with pytest.raises(ToolFailed, match="no open task #1"):
        await tools["task_done"].handler({"id": 1})


async def test_concurrent_adds_lose_nothing(setup: tuple[dict[str, Tool], Path]) -> None:
    tools, path = setup
    await asyncio.gather(*(tools["task_add"].handler({"title": f"Task {n}"}) for n in range(12)))
    tasks = _load(path)
    assert sorted(task["id"] for task in tasks) == list(range(1, 13))
    assert {task["title"] for task in tasks} == {f"Task {n}" for n in range(12)}
