"""Editing a task or a scheduled job in place: the same item keeps its number and history,
a refused change writes nothing, and only a live item can be edited."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.persona.store import PersonaStore
from bot.tools.crons.tools import cron_tools, edit_job
from bot.tools.registry import ToolFailed
from bot.tools.tasks import edit_task, task_tools
from tests.harness import make_persona

NY = ZoneInfo("America/New_York")
NOW = datetime(2030, 3, 4, 9, 0, tzinfo=NY)


def _clock() -> datetime:
    return NOW


async def test_a_task_is_changed_in_place_and_a_bad_due_changes_nothing(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    tools = {t.name: t for t in task_tools(store, "scott", "inara", NY, _clock)}
    await tools["task_add"].handler({"title": "Renew the passport", "due": "2030-12-15"})
    await tools["task_add"].handler({"title": "Buy tea"})
    path = tmp_path / "scott/persona/inara/TASKS.json"
    answer = await edit_task(store, "scott", "inara", NY, 1, {"title": "Renew the ID card"})
    assert answer == "Task changed: #1 Renew the ID card"
    first, second = json.loads(path.read_text())
    assert (first["id"], first["title"], "due" in first) == (1, "Renew the ID card", False)
    assert second["title"] == "Buy tea"
    before = path.read_text()
    with pytest.raises(ToolFailed, match="'due' must be a date"):
        await edit_task(store, "scott", "inara", NY, 1, {"title": "x", "due": "soon"})
    await tools["task_done"].handler({"id": 2})
    with pytest.raises(ToolFailed, match="no open task #2"):
        await edit_task(store, "scott", "inara", NY, 2, {"title": "Buy coffee"})
    assert json.loads(path.read_text())[0] == json.loads(before)[0]


async def test_a_job_is_changed_in_place_keeping_its_run_history(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    tools = {t.name: t for t in cron_tools(store, "scott", "inara", NY, _clock)}
    await tools["cron_add"].handler({"schedule": "0 7 * * *", "prompt": "Morning briefing."})
    path = tmp_path / "scott/persona/inara/CRONS.json"
    [job] = json.loads(path.read_text())
    job.update(last_run="2030-03-04T07:00:01-05:00", last_error="the model timed out")
    path.write_text(json.dumps([job]))
    args = {"schedule": "30 6 * * 1-5", "prompt": "The weather."}
    answer = await edit_job(store, "scott", "inara", NY, NOW, 1, args)
    assert answer.startswith("Job changed: #1 [30 6 * * 1-5] The weather. — next Tue 2030-03-05")
    [changed] = json.loads(path.read_text())
    assert changed["last_run"] == job["last_run"] and changed["created"] == job["created"]
    assert "last_error" not in changed  # it was about the job as it was
    before = path.read_text()
    with pytest.raises(ToolFailed, match="more often than"):
        await edit_job(
            store, "scott", "inara", NY, NOW, 1, {"schedule": "* * * * *", "prompt": "x"}
        )
    await tools["cron_remove"].handler({"id": 1})
    with pytest.raises(ToolFailed, match="no enabled job #1"):
        await edit_job(store, "scott", "inara", NY, NOW, 1, args)
    assert json.loads(before)[0]["prompt"] == "The weather."
