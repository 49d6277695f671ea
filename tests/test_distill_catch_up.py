"""Distillation catches up: each level's last run is recorded durably, and a daemon that was
down when a level fell due runs it once after start (not once per missed day)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.cli import main
from bot.daemon.daemon import Daemon
from bot.delivery.state import StateStore
from bot.memory.distill.schedule import DistillRuns, last_due
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

NY = ZoneInfo("America/New_York")
TOKEN = "catch-up-token"


def ny(*args: int) -> datetime:
    return datetime(*args, tzinfo=NY)  # type: ignore[misc]


def fixed(at: datetime) -> Callable[[], datetime]:
    return lambda: at


async def _ignore(incoming: Incoming) -> None:
    return None


def test_each_level_is_due_at_its_last_time_before_now() -> None:
    monday = ny(2026, 11, 30, 10, 0)  # Monday 30 November
    assert last_due("short", monday, NY) == ny(2026, 11, 30, 3, 0)
    assert last_due("short", ny(2026, 11, 30, 2, 59), NY) == ny(2026, 11, 29, 3, 0)
    assert last_due("mid", monday, NY) == ny(2026, 11, 29, 3, 30)
    assert last_due("mid", ny(2026, 11, 29, 3, 29), NY) == ny(2026, 11, 22, 3, 30)
    assert last_due("long", monday, NY) == ny(2026, 11, 1, 4, 0)
    assert last_due("long", ny(2026, 12, 1, 3, 0), NY) == ny(2026, 11, 1, 4, 0)
    assert last_due("long", ny(2027, 1, 1, 4, 0), NY) == ny(2027, 1, 1, 4, 0)


async def _record(data: Path, short: datetime, mid: datetime, long: datetime) -> None:
    """The last runs of the three levels, as an earlier process recorded them."""
    async with StateStore(data / "personad.db") as state:
        runs = DistillRuns(state)
        for kind, at in (("short", short), ("mid", mid), ("long", long)):
            await runs.record("scott", "inara", kind, at, "ok")


@asynccontextmanager
async def _running(
    data: Path, llm: ScriptedLLM, now: datetime
) -> AsyncIterator[tuple[Daemon, RecordingAdapter]]:
    """A daemon started at ``now``, once its catching up is done; stopped afterwards."""
    daemon, adapter = _daemon(data, llm, now)
    await daemon.start()
    try:
        assert daemon.catching_up is not None
        await daemon.catching_up
        yield daemon, adapter
    finally:
        await daemon.stop()


def _daemon(data: Path, llm: ScriptedLLM, now: datetime) -> tuple[Daemon, RecordingAdapter]:
    config = make_config(
        data,
        users={
            "scott": {
                "identities": ["console:scott"],
                "admin": True,
                "timezone": "America/New_York",
                "notification_room": "console:notes",
            }
        },
        extra={
            "distill": {"long": True},
            "http": {"enabled": True, "port": 0, "host": "127.0.0.1"},
        },
    )
    daemon = Daemon(
        config, backends={"scripted": llm}, env={"PERSONAD_API_TOKEN": TOKEN}, clock=fixed(now)
    )
    adapter = RecordingAdapter(
        AdapterContext(handler=_ignore, state=daemon.state.for_adapter("console"), data_dir=data)
    )
    daemon.attach("console", adapter)
    return daemon, adapter


async def test_missed_weekly_and_monthly_levels_run_once_after_start(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    (directory / "sessions").mkdir(exist_ok=True)
    (directory / "sessions/2026-11-20.md").write_text(
        "### 10:00:00 · user · scott · console:scott\n\nWe booked the Lisbon trip.\n"
    )
    # last runs on Friday 20 November and in October: down over two Sundays and the 1st
    await _record(tmp_path, ny(2026, 11, 20, 3, 0), ny(2026, 11, 15, 3, 30), ny(2026, 10, 1, 4, 0))
    llm = ScriptedLLM()
    llm.queue("We booked the Lisbon trip together.")
    llm.queue("Long memory: the Lisbon trip is booked.")
    async with _running(tmp_path, llm, ny(2026, 11, 30, 10, 0)) as (daemon, adapter):
        assert len(llm.calls) == 2  # one mid, one long: not one per missed week
        assert "Lisbon trip" in (directory / "MEMORY_SHORT.md").read_text()
        assert (directory / "MEMORY_MID.md").read_text() == "We booked the Lisbon trip together.\n"
        assert "Long memory" in (directory / "MEMORY_LONG.md").read_text()
        assert adapter.texts() == [
            "inara: Mid-term memory updated (35 characters).",
            "inara: Long-term memory updated (39 characters).",
        ]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            url = f"http://127.0.0.1:{daemon.http_port}/distill/status"
            async with http.get(url) as response:
                runs = (await response.json())["last_runs"]["scott/inara"]
        assert set(runs) == {"short", "mid", "long"}
        assert all(value.endswith(" ok") for value in runs.values())

    # started again the same day: nothing is due, nothing runs, the status is still there
    again = ScriptedLLM()
    async with _running(tmp_path, again, ny(2026, 11, 30, 11, 0)) as (daemon, adapter):
        assert again.calls == [] and adapter.texts() == []
        assert daemon.distiller is not None
        assert (await daemon.distiller.status())["scott/inara"] == runs


async def test_only_the_monthly_level_runs_when_only_the_1st_was_missed(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_MID.md").write_text("Scott started a new job in November.\n")
    await _record(tmp_path, ny(2026, 12, 1, 3, 0), ny(2026, 11, 29, 3, 30), ny(2026, 11, 1, 4, 0))
    llm = ScriptedLLM()
    llm.queue("Scott started a new job in November 2026.")
    async with _running(tmp_path, llm, ny(2026, 12, 1, 9, 0)) as (_, adapter):
        assert len(llm.calls) == 1
        assert "new job in November" in llm.calls[0].messages[0].text
        assert adapter.texts() == ["inara: Long-term memory updated (41 characters)."]


async def test_a_first_start_sets_a_baseline_instead_of_running_everything(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    async with _running(tmp_path, llm, ny(2026, 12, 1, 9, 0)) as (daemon, adapter):
        assert llm.calls == [] and adapter.texts() == []
        assert daemon.distiller is not None
        status = await daemon.distiller.status()
        assert status["scott/inara"]["mid"].endswith(" baseline")


async def test_a_level_run_on_the_command_line_is_not_run_again_after_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PERSONAD_CONFIG", raising=False)
    directory = make_persona(tmp_path, "scott")
    (directory / "sessions").mkdir(exist_ok=True)
    (directory / "sessions/2026-11-20.md").write_text(
        "### 10:00:00 · user · scott · console:scott\n\nWe booked the Lisbon trip.\n"
    )
    now = datetime.now(NY)
    # the daily level last ran two days ago: it is due; the others are not
    await _record(tmp_path, now - timedelta(days=2), now, now)
    command = ["distill", "short", "--user", "scott", "--persona", "inara"]
    assert await asyncio.to_thread(main, [*command, "--data-dir", str(tmp_path)]) == 0
    assert "Lisbon trip" in (directory / "MEMORY_SHORT.md").read_text()
    (directory / "MEMORY_SHORT.md").write_text("Edited after the command line run.\n")
    async with _running(tmp_path, ScriptedLLM(), datetime.now(NY)) as (daemon, _):
        # the catch-up saw the command line's run: the level is not run a second time
        assert (directory / "MEMORY_SHORT.md").read_text() == "Edited after the command line run.\n"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            url = f"http://127.0.0.1:{daemon.http_port}/distill/status"
            async with http.get(url) as response:
                short = (await response.json())["last_runs"]["scott/inara"]["short"]
    stamp, outcome = short.split(" ")
    assert outcome == "ok"
    assert datetime.fromisoformat(stamp) >= now.replace(microsecond=0)
