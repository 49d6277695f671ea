"""The persona's own scheduled jobs: schedules, the tools, and runs through the model and a
real Notifier with an injected clock."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.errors import AdapterError, LLMTransientError
from bot.daemon.notify import Notifier
from bot.persona.store import PersonaStore
from bot.tools.crons.job import run_due_crons
from bot.tools.crons.schedule import check_schedule, parse_schedule
from bot.tools.crons.tools import cron_tools
from bot.tools.jobs import run_crons_once
from bot.tools.registry import Tool, ToolFailed
from tests.fakes.state import MemoryState
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

NY = ZoneInfo("America/New_York")


def ny(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=NY)


async def _ignore(incoming: Incoming) -> None:
    return None


class Room(RecordingAdapter):
    def __init__(self) -> None:
        super().__init__(AdapterContext(_ignore, MemoryState(), Path(".")), platform="console")
        self.fail = False

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if self.fail:
            raise AdapterError("the platform is down")
        return await super().send(room, text, reply_to=reply_to)


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.config = make_config(
            tmp_path,
            users={
                "scott": {
                    "identities": ["console:scott"],
                    "timezone": "America/New_York",
                    "notification_room": "console:notices",
                },
                "brian": {"identities": ["console:brian"], "timezone": "America/New_York"},
            },
        )
        make_persona(tmp_path, "scott")
        make_persona(tmp_path, "brian")
        self.store = PersonaStore(tmp_path)
        self.room = Room()
        self.notifier = Notifier(self.config, {"console": self.room})
        self.llm = ScriptedLLM()
        self.dir = tmp_path / "scott" / "persona" / "inara"
        self.path = self.dir / "CRONS.json"

    def write(self, jobs: list[dict[str, Any]]) -> None:
        self.path.write_text(json.dumps(jobs))

    def jobs(self) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = json.loads(self.path.read_text())
        return data

    async def run(self, now: datetime, user: str = "scott") -> int:
        return await run_due_crons(
            self.store, self.notifier, self.config, self.llm, user, "inara", now
        )

    def tools(self, now: datetime) -> dict[str, Tool]:
        tools = cron_tools(self.store, "scott", "inara", NY, lambda: now)
        return {tool.name: tool for tool in tools}


@pytest.fixture
async def world(tmp_path: Path) -> World:
    world = World(tmp_path)
    await world.room.start()
    return world


BRIEFING = {
    "id": 1,
    "schedule": "0 7 * * 1-5",
    "prompt": "Give me a short morning briefing.",
    "enabled": True,
    "created": "2026-11-29T20:00:00-05:00",
}


# -- schedules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "after", "expected"),
    [
        # crontab weekdays: 1-5 is Monday to Friday (APScheduler 3 alone would read Tue-Sat)
        ("0 7 * * 1-5", ny(2026, 11, 28, 12, 0), ny(2026, 11, 30, 7, 0)),
        ("0 7 * * 0", ny(2026, 11, 27, 12, 0), ny(2026, 11, 29, 7, 0)),
        ("0 7 * * 7", ny(2026, 11, 27, 12, 0), ny(2026, 11, 29, 7, 0)),
        ("30 18 * * fri", ny(2026, 11, 28, 12, 0), ny(2026, 12, 4, 18, 30)),
        ("0 9 1 * *", ny(2026, 11, 28, 12, 0), ny(2026, 12, 1, 9, 0)),
        ("0 8 * * 6-7", ny(2026, 11, 23, 12, 0), ny(2026, 11, 28, 8, 0)),
    ],
)
def test_schedules_read_like_crontab_in_the_users_zone(
    expr: str, after: datetime, expected: datetime
) -> None:
    assert parse_schedule(expr, NY).get_next_fire_time(None, after) == expected


@pytest.mark.parametrize(
    ("expr", "error"),
    [
        ("0 7 * *", "has 4 field"),
        ("0 7 * * * *", "has 6 field"),
        ("61 7 * * *", "not a valid schedule"),
        ("0 7 * * 9", "not a weekday"),
        ("0 7 * * 5-1", "backwards"),
        ("0 7 32 * *", "not a valid schedule"),
        ("every morning", "field"),
    ],
)
def test_bad_schedules_are_refused_clearly(expr: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        parse_schedule(expr, NY)


def test_schedules_that_run_too_often_are_refused() -> None:
    with pytest.raises(ValueError, match="more often than every 10 minutes"):
        check_schedule("*/5 * * * *", NY, ny(2026, 11, 30, 12, 0))
    with pytest.raises(ValueError, match="more often"):
        check_schedule("0,3 9 * * *", NY, ny(2026, 11, 30, 12, 0))
    check_schedule("0 * * * *", NY, ny(2026, 11, 30, 12, 0))
    check_schedule("*/15 * * * *", NY, ny(2026, 11, 30, 12, 0))


# -- tools --------------------------------------------------------------------------------


async def test_cron_tools_round_trip(world: World) -> None:
    tools = world.tools(ny(2026, 11, 29, 20, 0))
    answer = await tools["cron_add"].handler(
        {"schedule": " 0  7 * * 1-5 ", "prompt": "Give me a short morning briefing."}
    )
    assert "#1 added; next run Mon 2026-11-30 07:00 (America/New_York)" in answer
    await tools["cron_add"].handler({"schedule": "0 18 * * 0", "prompt": "Weekly review."})
    assert world.jobs() == [
        BRIEFING,
        {
            "id": 2,
            "schedule": "0 18 * * 0",
            "prompt": "Weekly review.",
            "enabled": True,
            "created": "2026-11-29T20:00:00-05:00",
        },
    ]
    listing = await tools["cron_list"].handler({})
    assert "#1 [0 7 * * 1-5] Give me a short morning briefing. — next Mon 2026-11-30 07:00" in (
        listing
    )
    assert "#2 [0 18 * * 0] Weekly review. — next Sun 2026-12-06 18:00" in listing
    assert "disabled" in await tools["cron_remove"].handler({"match": "weekly"})
    jobs = world.jobs()
    assert len(jobs) == 2 and jobs[1]["enabled"] is False and "disabled_at" in jobs[1]
    assert "Weekly review" not in await tools["cron_list"].handler({})
    assert "#3" in await tools["cron_add"].handler({"schedule": "0 8 * * *", "prompt": "Hi."})


async def test_bad_jobs_are_refused_and_the_file_untouched(world: World) -> None:
    world.write([BRIEFING])
    before = world.path.read_text()
    tools = world.tools(ny(2026, 11, 29, 20, 0))
    for args, error in [
        ({"schedule": "0 7 * *", "prompt": "x"}, "five"),
        ({"schedule": "* * * * *", "prompt": "x"}, "more often"),
        ({"schedule": "0 7 * * *", "prompt": " "}, "'prompt'"),
    ]:
        with pytest.raises(ToolFailed, match=error):
            await tools["cron_add"].handler(args)
    with pytest.raises(ToolFailed, match="no enabled job"):
        await tools["cron_remove"].handler({"id": 5})
    assert world.path.read_text() == before


async def test_a_corrupt_crons_file_is_refused_and_never_overwritten(world: World) -> None:
    world.path.write_text('[{"id": 1, "schedule": "0 7 * * *",')
    tools = world.tools(ny(2026, 11, 29, 20, 0))
    with pytest.raises(ToolFailed, match=r"CRONS\.json is not valid JSON"):
        await tools["cron_add"].handler({"schedule": "0 8 * * *", "prompt": "x"})
    with pytest.raises(ToolFailed, match=r"repair CRONS\.json"):
        await tools["cron_list"].handler({})
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 0
    assert world.path.read_text() == '[{"id": 1, "schedule": "0 7 * * *",'
    assert world.llm.calls == []


# -- runs ---------------------------------------------------------------------------------


async def test_a_due_job_asks_the_model_once_and_notifies(world: World) -> None:
    world.write([BRIEFING])
    sessions = sorted((world.dir / "sessions").iterdir())
    world.llm.queue("Good morning! Rain at noon; dentist at 09:00.")
    assert await world.run(ny(2026, 11, 30, 6, 59)) == 0
    assert await world.run(ny(2026, 11, 30, 7, 0, 2)) == 1
    assert world.room.sent == [
        ("notices", "🗓️ Inara (scheduled job #1):\nGood morning! Rain at noon; dentist at 09:00.")
    ]
    [call] = world.llm.calls
    identity = (world.dir / "IDENTITY.md").read_text().strip()
    assert identity[:60] in call.system.stable
    assert "Current date and time: Monday, 2026-11-30 at 07:00 AM EST" in call.system.dynamic
    assert "scheduled job" in call.system.dynamic
    assert call.messages[0].text == (
        "Scheduled job #1 (0 7 * * 1-5): Give me a short morning briefing."
    )
    assert world.jobs()[0]["last_run"] == "2026-11-30T07:00:02-05:00"
    # once per fire time, and again at the next one
    assert await world.run(ny(2026, 11, 30, 7, 1)) == 0
    assert await world.run(ny(2026, 12, 1, 7, 0)) == 1
    assert await world.run(ny(2026, 12, 1, 7, 0, 40)) == 0
    assert len(world.llm.calls) == 2
    # the answer is a notice, not a conversation: no session log was written
    assert sorted((world.dir / "sessions").iterdir()) == sessions


async def test_a_failed_model_call_is_retried_at_the_next_fire_time(world: World) -> None:
    world.write([BRIEFING])
    world.llm.queue_error(LLMTransientError("overloaded"))
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 0
    [job] = world.jobs()
    assert "last_run" not in job and "overloaded" in job["last_error"]
    assert await world.run(ny(2026, 11, 30, 7, 1)) == 0
    assert len(world.llm.calls) == 1
    assert await world.run(ny(2026, 12, 1, 7, 0)) == 1
    [job] = world.jobs()
    assert job["last_run"] == "2026-12-01T07:00:00-05:00" and "last_error" not in job
    assert world.room.texts() == [
        "🗓️ Inara (scheduled job #1):\necho: "
        + ("Scheduled job #1 (0 7 * * 1-5): Give me a short morning briefing.")
    ]


async def test_an_undelivered_answer_waits_for_the_room(world: World) -> None:
    world.write([BRIEFING])
    world.room.fail = True
    world.llm.queue("Briefing text.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 0
    assert world.jobs()[0]["undelivered"]["text"].endswith("Briefing text.")
    world.room.fail = False
    assert await world.run(ny(2026, 11, 30, 7, 5)) == 1
    assert len(world.llm.calls) == 1  # sent as written, not asked again
    assert world.room.texts() == [
        "🗓️ Inara (scheduled job #1):\nBriefing text.\n(written 2026-11-30 07:00)"
    ]
    assert "undelivered" not in world.jobs()[0]


async def test_fire_times_missed_long_ago_are_skipped_not_caught_up(world: World) -> None:
    world.write([{**BRIEFING, "last_run": "2026-11-27T07:00:00-05:00"}])
    assert await world.run(ny(2026, 11, 30, 12, 0)) == 0
    assert world.llm.calls == []
    assert world.jobs()[0]["last_missed"] == "2026-11-30T07:00:00-05:00"
    # a short outage is caught up once, however many fire times it spanned
    world.write([{**BRIEFING, "schedule": "0 * * * *", "last_run": "2026-11-30T07:00:00-05:00"}])
    assert await world.run(ny(2026, 11, 30, 9, 30)) == 1
    assert len(world.llm.calls) == 1


async def test_jobs_that_must_not_run(world: World) -> None:
    world.write(
        [
            {**BRIEFING, "enabled": False},
            {"id": 2, "schedule": "0 7 * * *", "prompt": "Hand-written, no dates."},
            {**BRIEFING, "id": 3, "schedule": "0 7 * *"},
        ]
    )
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 0
    assert world.llm.calls == []
    jobs = world.jobs()
    assert jobs[1]["created"] == "2026-11-30T07:00:00-05:00"  # its schedule starts now
    assert await world.run(ny(2026, 12, 1, 7, 0)) == 1  # and it runs at its next time
    # without a notification room the model is not asked at all
    brian = world.path.parent.parent.parent.parent / "brian" / "persona" / "inara"
    (brian / "CRONS.json").write_text(json.dumps([BRIEFING]))
    assert await world.run(ny(2026, 11, 30, 7, 0), user="brian") == 0
    assert len(world.llm.calls) == 1
    assert "notification_room" in json.loads((brian / "CRONS.json").read_text())[0]["last_error"]


async def test_the_minute_job_uses_the_chat_backend_for_every_persona(world: World) -> None:
    world.write([BRIEFING])
    now = ny(2026, 11, 30, 7, 0)
    kwargs: dict[str, Any] = {"config": world.config, "store": world.store}
    assert await run_crons_once(**kwargs, notifier=world.notifier, backends={}, now=now) == 0
    sent = await run_crons_once(
        **kwargs, notifier=world.notifier, backends={"scripted": world.llm}, now=now
    )
    assert sent == 1 and len(world.llm.calls) == 1
    later = now + timedelta(minutes=1)
    assert (
        await run_crons_once(
            **kwargs, notifier=world.notifier, backends={"scripted": world.llm}, now=later
        )
        == 0
    )
