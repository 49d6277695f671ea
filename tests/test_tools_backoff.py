"""A reminder or scheduled job whose file cannot be saved is not sent again every minute: it
waits longer each time and the user gets one notice. Removed scheduled jobs are pruned."""

from __future__ import annotations

import errno
import itertools
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.notify import Notifier
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.tools.backoff import FIRST_WAIT, MAX_WAIT
from bot.tools.catalog import persona_tools
from bot.tools.crons.job import run_due_crons
from bot.tools.crons.jobfile import KEEP_REMOVED, MAX_REMOVED
from bot.tools.crons.tools import cron_tools
from bot.tools.registry import ToolFailed
from bot.tools.reminders.job import surface_due
from tests.fakes.state import MemoryState
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

NY = ZoneInfo("America/New_York")


def ny(day: int, hour: int, minute: int) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=NY)


class FullDisk(PersonaStore):
    """A store on a disk that is full while ``full`` is set: every write fails as the
    kernel reports it (ENOSPC), after the attempt is counted."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.full = True
        self.attempts = 0

    async def write(
        self, user: str, persona: str, filename: str, text: str, *, durable: bool = True
    ) -> None:
        self.attempts += 1
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        await super().write(user, persona, filename, text, durable=durable)


async def _ignore(incoming: Incoming) -> None:
    return None


class World:
    def __init__(self, tmp_path: Path) -> None:
        users = {
            "scott": {
                "identities": ["console:scott"],
                "timezone": "America/New_York",
                "notification_room": "console:notices",
            }
        }
        self.config: Config = make_config(tmp_path, users=users)
        make_persona(tmp_path, "scott")
        self.store = FullDisk(tmp_path)
        self.room = RecordingAdapter(AdapterContext(_ignore, MemoryState(), Path(".")))
        self.notifier = Notifier(self.config, {"console": self.room})
        self.llm = ScriptedLLM()
        self.dir = tmp_path / "scott/persona/inara"

    def minutes(self, start: datetime, count: int) -> list[datetime]:
        return [start + timedelta(minutes=n) for n in range(count)]


@pytest.fixture
async def world(tmp_path: Path) -> World:
    world = World(tmp_path)
    await world.room.start()
    return world


async def _gaps_between_tries(world: World, minutes: int) -> list[timedelta]:
    """Run the reminder job every minute from 09:00; the gaps between its save attempts."""
    tried_at: list[datetime] = []
    for now in world.minutes(ny(30, 9, 0), minutes):
        before = world.store.attempts
        await surface_due(world.store, world.notifier, world.config, "scott", "inara", now)
        if world.store.attempts > before:
            tried_at.append(now)
    return [later - earlier for earlier, later in itertools.pairwise(tried_at)]


def _problem_notices(world: World) -> list[str]:
    return [text for text in world.room.texts() if "cannot save" in text]


async def test_a_reminder_that_cannot_be_ticked_is_not_sent_every_minute(world: World) -> None:
    (world.dir / "REMINDERS.md").write_text("- [ ] 2026-11-30 09:00 Call the dentist\n")
    gaps = await _gaps_between_tries(world, 40)
    reminders = [text for text in world.room.texts() if "Call the dentist" in text]
    assert reminders == []  # the file could not take the tick, so nothing was sent
    assert len(_problem_notices(world)) == 1
    assert "REMINDERS.md" in _problem_notices(world)[0]
    assert gaps == [FIRST_WAIT, FIRST_WAIT * 2, FIRST_WAIT * 4, FIRST_WAIT * 8]

    world.store.full = False
    later = ny(30, 9, 0) + sum(gaps, timedelta()) + FIRST_WAIT * 16
    assert await surface_due(world.store, world.notifier, world.config, "scott", "inara", later)
    assert "- [x] 2026-11-30 09:00 Call the dentist" in (world.dir / "REMINDERS.md").read_text()
    assert len([text for text in world.room.texts() if "Call the dentist" in text]) == 1
    assert len(_problem_notices(world)) == 1


async def test_the_wait_between_tries_is_capped(world: World) -> None:
    (world.dir / "REMINDERS.md").write_text("- [ ] 2026-11-30 09:00 Call the dentist\n")
    gaps = await _gaps_between_tries(world, 60 * 8)
    assert max(gaps) == MAX_WAIT and gaps[-1] == MAX_WAIT
    assert len(_problem_notices(world)) == 1


async def test_a_job_whose_file_cannot_be_saved_does_not_run_every_minute(world: World) -> None:
    job = {"id": 1, "schedule": "0 7 * * *", "prompt": "Morning briefing.", "enabled": True}
    job["created"] = "2026-11-29T20:00:00-05:00"
    (world.dir / "CRONS.json").write_text(json.dumps([job]))
    for now in world.minutes(ny(30, 7, 0), 30):
        await run_due_crons(
            world.store, world.notifier, world.config, world.llm, "scott", "inara", now
        )
    assert world.llm.calls == []  # never asked: its run could not have been recorded
    assert len(_problem_notices(world)) == 1 and "CRONS.json" in _problem_notices(world)[0]

    world.store.full = False
    for now in world.minutes(ny(30, 7, 30), 40):
        await run_due_crons(
            world.store, world.notifier, world.config, world.llm, "scott", "inara", now
        )
    assert len(world.llm.calls) == 1
    briefings = [text for text in world.room.texts() if "scheduled job #1" in text]
    assert len(briefings) == 1
    saved: list[dict[str, Any]] = json.loads((world.dir / "CRONS.json").read_text())
    assert saved[0]["last_run"].startswith("2026-11-30T07:")


async def test_removed_jobs_are_pruned(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    path = tmp_path / "scott/persona/inara/CRONS.json"
    now = ny(30, 12, 0)
    old = (now - KEEP_REMOVED - timedelta(hours=1)).isoformat()
    hand_paused = {"id": 1, "schedule": "0 7 * * *", "prompt": "paused by hand", "enabled": False}
    long_gone = {"id": 2, "schedule": "0 8 * * *", "prompt": "old", "enabled": False}
    long_gone["disabled_at"] = old
    path.write_text(json.dumps([hand_paused, long_gone]))
    tools = {tool.name: tool for tool in cron_tools(store, "scott", "inara", NY, lambda: now)}
    for n in range(MAX_REMOVED + 5):  # a model adding and removing jobs in a loop
        await tools["cron_add"].handler({"schedule": "0 9 * * *", "prompt": f"job {n}"})
        await tools["cron_remove"].handler({"match": f"job {n}"})
    jobs: list[dict[str, Any]] = json.loads(path.read_text())
    removed = [job for job in jobs if "disabled_at" in job]
    assert len(removed) == MAX_REMOVED
    assert [job["prompt"] for job in removed][-1] == f"job {MAX_REMOVED + 4}"
    assert hand_paused in jobs and all(job["id"] != 2 for job in jobs)


@pytest.mark.parametrize(
    ("tool", "args", "filename"),
    [
        ("scratch_write", {"text": "a note"}, "SCRATCH.md"),
        ("reminder_add", {"text": "Call the dentist", "when": "2026-12-01T09:00"}, "REMINDERS.md"),
        ("task_add", {"title": "Renew the passport"}, "TASKS.json"),
        ("cron_add", {"schedule": "0 7 * * *", "prompt": "Morning briefing."}, "CRONS.json"),
    ],
)
async def test_a_tool_on_a_full_disk_says_nothing_was_saved(
    world: World, tool: str, args: dict[str, Any], filename: str
) -> None:
    tools = {
        t.name: t
        for t in persona_tools(world.store, "scott", "inara", NY, clock=lambda: ny(30, 9, 0))
    }
    before = _snapshot(world.dir)
    with pytest.raises(ToolFailed, match=f"{filename} could not be saved .No space left"):
        await tools[tool].handler(args)
    assert _snapshot(world.dir) == before


def _snapshot(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
