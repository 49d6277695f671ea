"""Reminders: the REMINDERS.md checklist, due and late times, surfacing through a real
Notifier, and the model's reminder tools."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.errors import AdapterError
from bot.daemon.notify import Notifier
from bot.daemon.scheduler import Jobs
from bot.llm.base import Message, SystemPrompt
from bot.persona.store import PersonaStore
from bot.tools.catalog import persona_tools
from bot.tools.jobs import schedule_persona_jobs, surface_reminders_once
from bot.tools.loop import run_tool_loop
from bot.tools.registry import Tool, ToolFailed, ToolRegistry
from bot.tools.reminders.checklist import (
    advance,
    due,
    parse_reminders,
    reschedule,
    unreadable_items,
)
from bot.tools.reminders.job import surface_due
from tests.fakes.state import MemoryState
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

NY = ZoneInfo("America/New_York")

FILE = """# Reminders

Notes the user keeps here stay as they are.
- [ ] 2026-11-30 09:00 Call the dentist
  * [X] 2026-11-02 18:30   Book the train
- [ ] 2026-12-01 08:00 every week Water the plants
- [ ] 2026-02-30 08:00 A date that does not exist
- [ ] tomorrow Buy milk
+ [ ] 2026-12-24T17:00 Wrap the presents
"""


async def _ignore(incoming: Incoming) -> None:
    return None


class Room(RecordingAdapter):
    """The notification room's platform; ``fail`` makes sends fail, ``during_send`` runs a
    coroutine while a notice is in flight, ``taken_then_failed`` sends that many and then
    answers each with an error (a timeout after the platform took it)."""

    def __init__(self) -> None:
        super().__init__(AdapterContext(_ignore, MemoryState(), Path(".")), platform="console")
        self.fail = False
        self.during_send: Any = None
        self.taken_then_failed = 0

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if self.fail:
            raise AdapterError("the platform is down")
        if self.during_send is not None:
            await self.during_send()
        sent = await super().send(room, text, reply_to=reply_to, key=key)
        if self.taken_then_failed:
            self.taken_then_failed -= 1
            raise AdapterError("the platform timed out")
        return sent


@pytest.fixture
async def world(tmp_path: Path) -> dict[str, Any]:
    config = make_config(
        tmp_path,
        users={
            "scott": {
                "identities": ["console:scott"],
                "timezone": "America/New_York",
                "notification_room": "console:notices",
            },
            "holly": {
                "identities": ["console:holly"],
                "timezone": "Europe/Lisbon",
                "notification_room": "console:holly-notices",
            },
            "brian": {"identities": ["console:brian"]},
        },
    )
    for user in ("scott", "holly", "brian"):
        make_persona(tmp_path, user)
    room = Room()
    await room.start()
    return {
        "config": config,
        "store": PersonaStore(tmp_path),
        "room": room,
        "notifier": Notifier(config, {"console": room}),
        "path": tmp_path / "scott" / "persona" / "inara" / "REMINDERS.md",
    }


def ny(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=NY)


async def surface(world: dict[str, Any], now: datetime, user: str = "scott") -> int:
    return await surface_due(world["store"], world["notifier"], world["config"], user, "inara", now)


# -- the file format ----------------------------------------------------------------------


def test_parsing_reads_reminders_and_reports_unreadable_items() -> None:
    reminders = parse_reminders(FILE)
    assert [(r.text, r.done, r.every) for r in reminders] == [
        ("Call the dentist", False, None),
        ("Book the train", True, None),
        ("Water the plants", False, "week"),
        ("Wrap the presents", False, None),
    ]
    assert reminders[0].when == datetime(2026, 11, 30, 9, 0)
    assert reminders[0].line == 3
    assert unreadable_items(FILE) == [
        "- [ ] 2026-02-30 08:00 A date that does not exist",
        "- [ ] tomorrow Buy milk",
    ]


def test_due_and_recurrence_with_an_injected_clock() -> None:
    reminders = parse_reminders(FILE)
    assert due(reminders, ny(2026, 11, 30, 8, 59)) == []
    assert [r.text for r in due(reminders, ny(2026, 11, 30, 9, 0))] == ["Call the dentist"]
    later = due(reminders, ny(2026, 12, 1, 8, 0))
    assert [r.text for r in later] == ["Call the dentist", "Water the plants"]
    with pytest.raises(ValueError):
        due(reminders, datetime(2026, 12, 1, 8, 0))
    water = later[1]
    # a week of downtime: one notice, and the next time is the first one still ahead
    assert advance(water, ny(2026, 12, 16, 12, 0)) == datetime(2026, 12, 22, 8, 0)
    [monthly] = parse_reminders("- [ ] 2027-01-31 10:00 every month Pay the rent")
    assert advance(monthly, ny(2027, 1, 31, 10, 0)) == datetime(2027, 2, 28, 10, 0)
    assert advance(monthly, ny(2027, 2, 28, 10, 0)) == datetime(2027, 3, 31, 10, 0)
    [daily] = parse_reminders("- [ ] 2026-11-30 21:00 every day Take the pills")
    assert advance(daily, ny(2026, 11, 30, 21, 0)) == datetime(2026, 12, 1, 21, 0)


def _next_line(line: str) -> str:
    """The line as it reads once its reminder went out at its time."""
    [reminder] = parse_reminders(line)
    return reschedule(line, advance(reminder, reminder.at(NY)))


def test_a_monthly_reminder_on_the_31st_keeps_its_day_through_shorter_months() -> None:
    line = "- [ ] 2027-01-31 09:00 every month Pagar a renda — até às 10h, não esquecer"
    seen = []
    for _ in range(4):
        line = _next_line(line)
        seen.append(line)
    assert seen == [
        "- [ ] 2027-02-28 09:00 every month on the 31st Pagar a renda — até às 10h, não esquecer",
        "- [ ] 2027-03-31 09:00 every month on the 31st Pagar a renda — até às 10h, não esquecer",
        "- [ ] 2027-04-30 09:00 every month on the 31st Pagar a renda — até às 10h, não esquecer",
        "- [ ] 2027-05-31 09:00 every month on the 31st Pagar a renda — até às 10h, não esquecer",
    ]
    [reminder] = parse_reminders(seen[0])
    assert (reminder.every, reminder.day, reminder.text) == (
        "month",
        31,
        "Pagar a renda — até às 10h, não esquecer",
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # written by hand: the date is the next time, the day every time after it
        (
            "- [ ] 2027-02-28 09:00 every month on the 30th Pay rent",
            "- [ ] 2027-03-30 09:00 every month on the 30th Pay rent",
        ),
        (
            "* [ ] 2028-02-29 07:15 Every Month On The 29th Renew the pass",
            "* [ ] 2028-03-29 07:15 Every Month On The 29th Renew the pass",
        ),
        (
            "- [ ] 2027-03-15 09:00 every month on the 31st Pay rent",
            "- [ ] 2027-04-30 09:00 every month on the 31st Pay rent",
        ),
        (
            "- [ ] 2027-01-30 09:00 every month on the 1st Pay rent",
            "- [ ] 2027-02-01 09:00 every month on the 1st Pay rent",
        ),
        # without it, as before: a day every month has keeps the line as it was
        (
            "- [ ] 2027-01-15 09:00 every month Water the orchids",
            "- [ ] 2027-02-15 09:00 every month Water the orchids",
        ),
        (
            "- [ ] 2027-01-31 09:00 every week on the 3rd floor: water the plants",
            "- [ ] 2027-02-07 09:00 every week on the 3rd floor: water the plants",
        ),
    ],
)
def test_a_monthly_line_names_its_day_in_words(line: str, expected: str) -> None:
    assert _next_line(line) == expected


def test_a_monthly_line_says_the_day_it_names() -> None:
    [first, named, plain, weekly] = parse_reminders(
        "- [ ] 2027-01-30 09:00 every month on the 1st Pay rent\n"
        "- [ ] 2027-02-28 09:00 every month on the 31st Pay rent\n"
        "- [ ] 2027-01-31 09:00 every month Pay rent\n"
        "- [ ] 2027-01-31 09:00 every week Pay rent\n"
    )
    assert [r.repeats for r in (first, named, plain, weekly)] == [
        "every month on the 1st",
        "every month on the 31st",
        "every month on the 31st",
        "every week",
    ]


def test_a_day_of_month_that_no_month_has_is_not_understood() -> None:
    text = "- [ ] 2027-01-31 09:00 every month on the 32nd Pay rent\n"
    assert parse_reminders(text) == []
    assert unreadable_items(text) == [text.strip()]


def test_a_local_time_is_read_in_the_users_zone_across_a_clock_change() -> None:
    # 1 November 2026: New York leaves summer time, so 09:00 on the 2nd is 14:00 UTC
    reminders = parse_reminders("- [ ] 2026-11-02 09:00 Stand-up")
    assert due(reminders, datetime(2026, 11, 2, 13, 59, tzinfo=UTC).astimezone(NY)) == []
    assert due(reminders, datetime(2026, 11, 2, 14, 0, tzinfo=UTC).astimezone(NY))


# -- surfacing ----------------------------------------------------------------------------


async def test_a_due_reminder_is_sent_once_and_ticked(world: dict[str, Any]) -> None:
    world["path"].write_text(FILE)
    assert await surface(world, ny(2026, 11, 30, 8, 59)) == 0
    assert await surface(world, ny(2026, 11, 30, 9, 0, 20)) == 1
    assert world["room"].sent == [("notices", "⏰ Reminder from Inara: Call the dentist (09:00)")]
    assert await surface(world, ny(2026, 11, 30, 9, 1)) == 0
    assert len(world["room"].sent) == 1
    text = world["path"].read_text()
    assert "- [x] 2026-11-30 09:00 Call the dentist\n" in text
    # every other line, hand-written or not understood, is byte for byte as it was
    assert text == FILE.replace("- [ ] 2026-11-30 09:00 Call", "- [x] 2026-11-30 09:00 Call")


async def test_a_file_with_windows_line_endings_keeps_them(world: dict[str, Any]) -> None:
    world["path"].write_bytes(FILE.replace("\n", "\r\n").encode())
    assert await surface(world, ny(2026, 11, 30, 9, 0)) == 1
    expected = FILE.replace("- [ ] 2026-11-30 09:00 Call", "- [x] 2026-11-30 09:00 Call")
    assert world["path"].read_bytes() == expected.replace("\n", "\r\n").encode()


async def test_missed_reminders_are_surfaced_late(world: dict[str, Any]) -> None:
    world["path"].write_text(
        "- [ ] 2026-11-30 09:00 Call the dentist\n- [ ] 2026-12-01 07:30 Take out the bins\n"
    )
    assert await surface(world, ny(2026, 12, 1, 10, 15)) == 2
    assert world["room"].texts() == [
        "⏰ Reminder from Inara: Call the dentist (was due 2026-11-30 09:00)",
        "⏰ Reminder from Inara: Take out the bins (was due 07:30)",
    ]
    assert "[ ]" not in world["path"].read_text()


async def test_a_recurring_reminder_moves_to_its_next_time(world: dict[str, Any]) -> None:
    world["path"].write_text("- [ ] 2026-12-01 08:00 every week Water the plants\n")
    assert await surface(world, ny(2026, 12, 1, 8, 0)) == 1
    assert world["path"].read_text() == "- [ ] 2026-12-08 08:00 every week Water the plants\n"
    assert await surface(world, ny(2026, 12, 2, 8, 0)) == 0


async def test_a_monthly_reminder_set_on_the_31st_comes_back_on_the_31st(
    world: dict[str, Any],
) -> None:
    world["path"].unlink()
    tools = _tools(world, ny(2027, 1, 20, 12, 0))
    answer = await tools["reminder_add"].handler(
        {"text": "Pay rent", "when": "2027-01-31T09:00", "recurrence": "month"}
    )
    assert "Sun 2027-01-31 09:00 every month on the 31st — Pay rent" in answer
    rent = "- [ ] {} 09:00 every month on the 31st Pay rent\n"
    assert world["path"].read_text() == "# Reminders\n\n" + rent.format("2027-01-31")
    for day, following in [
        (ny(2027, 1, 31, 9, 0), "2027-02-28"),
        (ny(2027, 2, 28, 9, 0), "2027-03-31"),
        (ny(2027, 3, 31, 9, 0), "2027-04-30"),
        (ny(2027, 4, 30, 9, 0), "2027-05-31"),
    ]:
        assert await surface(world, day) == 1
        assert world["path"].read_text() == "# Reminders\n\n" + rent.format(following)
    assert world["room"].texts() == ["⏰ Reminder from Inara: Pay rent (09:00)"] * 4


async def test_done_moves_a_monthly_reminder_back_to_its_day(world: dict[str, Any]) -> None:
    world["path"].write_text("- [ ] 2027-01-31 09:00 every month Pay rent\n")
    tools = _tools(world, ny(2027, 1, 31, 9, 30))
    answer = await tools["reminder_done"].handler({"match": "rent"})
    assert "next time: Sun 2027-02-28 09:00 every month on the 31st — Pay rent" in answer
    answer = await tools["reminder_done"].handler({"match": "rent"})
    assert "next time: Wed 2027-03-31 09:00 every month on the 31st — Pay rent" in answer
    listing = await tools["reminder_list"].handler({})
    assert "1. Wed 2027-03-31 09:00 every month on the 31st — Pay rent" in listing


async def test_a_monthly_text_that_would_read_as_its_day_is_refused(
    world: dict[str, Any],
) -> None:
    world["path"].write_text(FILE)
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    with pytest.raises(ToolFailed, match="day of the month"):
        await tools["reminder_add"].handler(
            {
                "text": "on the 3rd floor, the boiler",
                "when": "2026-12-15T09:00",
                "recurrence": "month",
            }
        )
    assert world["path"].read_text() == FILE


async def test_a_notice_that_cannot_be_sent_leaves_the_reminder_pending(
    world: dict[str, Any],
) -> None:
    world["path"].write_text(FILE)
    world["room"].fail = True
    assert await surface(world, ny(2026, 11, 30, 9, 0)) == 0
    assert world["path"].read_text() == FILE
    world["room"].fail = False
    assert await surface(world, ny(2026, 11, 30, 9, 1)) == 1
    assert world["room"].texts() == ["⏰ Reminder from Inara: Call the dentist (09:00)"]
    await world["room"].stop()  # the adapter is not running: also kept for later
    world["path"].write_text("- [ ] 2026-11-30 09:00 Feed the cat\n")
    assert await surface(world, ny(2026, 11, 30, 9, 2)) == 0
    assert "[ ]" in world["path"].read_text()


async def test_without_a_notification_room_nothing_is_lost(world: dict[str, Any]) -> None:
    path = world["path"].parent.parent.parent.parent / "brian" / "persona" / "inara"
    (path / "REMINDERS.md").write_text("- [ ] 2026-11-30 09:00 Call the dentist\n")
    assert await surface(world, datetime(2026, 11, 30, 9, 0, tzinfo=UTC), user="brian") == 0
    assert (path / "REMINDERS.md").read_text() == "- [ ] 2026-11-30 09:00 Call the dentist\n"


async def test_an_edit_made_while_a_notice_is_in_flight_is_kept(world: dict[str, Any]) -> None:
    world["path"].write_text("- [ ] 2026-11-30 09:00 Call the dentist\n")
    tools = _tools(world, ny(2026, 11, 30, 9, 0))

    async def add_while_sending() -> None:
        world["room"].during_send = None
        await tools["reminder_add"].handler({"text": "Buy bread", "when": "2026-11-30T18:00"})

    world["room"].during_send = add_while_sending
    assert await surface(world, ny(2026, 11, 30, 9, 0)) == 1
    assert world["path"].read_text() == (
        "- [x] 2026-11-30 09:00 Call the dentist\n- [ ] 2026-11-30 18:00 Buy bread\n"
    )


async def test_every_users_personas_are_surfaced_in_their_own_zone(
    world: dict[str, Any],
) -> None:
    world["path"].write_text("- [ ] 2026-11-30 09:00 Scott's reminder\n")
    holly = world["path"].parent.parent.parent.parent / "holly" / "persona" / "inara"
    (holly / "REMINDERS.md").write_text("- [ ] 2026-11-30 09:00 Holly's reminder\n")
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # 09:00 in Lisbon, 04:00 in New York
    sent = await surface_reminders_once(
        config=world["config"], store=world["store"], notifier=world["notifier"], now=now
    )
    assert sent == 1
    assert world["room"].sent == [
        ("holly-notices", "⏰ Reminder from Inara: Holly's reminder (09:00)")
    ]


def test_the_daemon_gets_two_minute_jobs(world: dict[str, Any]) -> None:
    jobs = Jobs()
    schedule_persona_jobs(
        jobs,
        config=world["config"],
        store=world["store"],
        notifier=world["notifier"],
        backends={},
    )
    assert sorted(jobs.names()) == ["persona.crons", "persona.reminders"]


# -- tools --------------------------------------------------------------------------------


def _tools(world: dict[str, Any], now: datetime) -> dict[str, Tool]:
    tools = persona_tools(world["store"], "scott", "inara", NY, clock=lambda: now)
    return {tool.name: tool for tool in tools}


async def test_reminder_tools_round_trip(world: dict[str, Any]) -> None:
    world["path"].write_text("# Reminders\n\nA note.\n- [ ] someday Learn Go\n\n")
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    answer = await tools["reminder_add"].handler(
        {"text": "Call  the\ndentist", "when": "2026-11-30T09:00"}
    )
    assert "Mon 2026-11-30 09:00" in answer and "Call the dentist" in answer
    await tools["reminder_add"].handler(
        {"text": "Water the plants", "when": "2026-12-01T08:00", "recurrence": "week"}
    )
    # an aware time is converted to the user's zone
    await tools["reminder_add"].handler({"text": "Pay rent", "when": "2026-12-01T17:00+00:00"})
    assert world["path"].read_text() == (
        "# Reminders\n\nA note.\n- [ ] someday Learn Go\n"
        "- [ ] 2026-11-30 09:00 Call the dentist\n"
        "- [ ] 2026-12-01 08:00 every week Water the plants\n"
        "- [ ] 2026-12-01 12:00 Pay rent\n"
    )
    listing = await tools["reminder_list"].handler({})
    assert "1. Mon 2026-11-30 09:00 — Call the dentist" in listing
    assert "2. Tue 2026-12-01 08:00 every week — Water the plants" in listing
    assert "- [ ] someday Learn Go" in listing  # reported as not understood, not dropped

    assert "Marked done" in await tools["reminder_done"].handler({"index": 1})
    answer = await tools["reminder_done"].handler({"match": "plants"})
    assert "next time: Tue 2026-12-08 08:00" in answer
    await tools["reminder_done"].handler({"match": "water", "stop": True})
    text = world["path"].read_text()
    assert "- [x] 2026-11-30 09:00 Call the dentist" in text
    assert "- [x] 2026-12-08 08:00 every week Water the plants" in text
    assert "(2 done reminder(s) kept in REMINDERS.md)" in await tools["reminder_list"].handler({})


async def test_a_new_file_gets_a_heading(world: dict[str, Any]) -> None:
    world["path"].unlink()
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    await tools["reminder_add"].handler({"text": "Call the dentist", "when": "2026-11-30 09:00"})
    assert world["path"].read_text() == "# Reminders\n\n- [ ] 2026-11-30 09:00 Call the dentist\n"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"text": "x", "when": "2026-11-01T09:00"}, "in the past"),
        ({"text": "x", "when": "next tuesday"}, "not a date and time"),
        ({"text": " ", "when": "2026-12-01T09:00"}, "what to remind"),
        ({"text": "x", "when": "2026-12-01T09:00", "recurrence": "hourly"}, "day, week or month"),
        ({"text": "every day stretch", "when": "2026-12-01T09:00"}, "recurrence"),
    ],
)
async def test_bad_reminders_are_refused(
    world: dict[str, Any], args: dict[str, Any], error: str
) -> None:
    world["path"].write_text(FILE)
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    with pytest.raises(ToolFailed, match=error):
        await tools["reminder_add"].handler(args)
    assert world["path"].read_text() == FILE


async def test_done_needs_one_clear_reminder(world: dict[str, Any]) -> None:
    world["path"].write_text(
        "- [ ] 2026-11-30 09:00 Call the dentist\n- [ ] 2026-11-30 10:00 Call the bank\n"
    )
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    with pytest.raises(ToolFailed, match="matches several"):
        await tools["reminder_done"].handler({"match": "call"})
    with pytest.raises(ToolFailed, match="no pending reminder mentions"):
        await tools["reminder_done"].handler({"match": "plumber"})
    with pytest.raises(ToolFailed, match="no pending reminder 3"):
        await tools["reminder_done"].handler({"index": 3})
    assert "[x]" not in world["path"].read_text()


async def test_an_unreadable_file_is_refused_and_left_alone(world: dict[str, Any]) -> None:
    broken = b"- [ ] 2026-11-30 09:00 caf\xe9\n"
    world["path"].write_bytes(broken)
    tools = _tools(world, ny(2026, 11, 29, 12, 0))
    with pytest.raises(ToolFailed, match="UTF-8"):
        await tools["reminder_add"].handler({"text": "x", "when": "2026-12-01T09:00"})
    with pytest.raises(ToolFailed, match="UTF-8"):
        await tools["reminder_list"].handler({})
    assert await surface(world, ny(2026, 12, 1, 9, 0)) == 0
    assert world["path"].read_bytes() == broken


async def test_the_model_sets_a_reminder_in_a_tool_loop(world: dict[str, Any]) -> None:
    llm = ScriptedLLM()
    llm.queue_tool("reminder_add", {"text": "Call the dentist", "when": "2026-11-30T09:00"})
    llm.queue_tool("task_add", {"title": "Find the insurance card"})
    llm.queue_tool("cron_add", {"schedule": "0 7 * * *", "prompt": "Morning briefing."})
    llm.queue_tool("reminder_add", {"text": "Too late", "when": "2020-01-01T09:00"})
    llm.queue("I'll remind you at 09:00 tomorrow.")
    store = world["store"]
    registry = ToolRegistry(
        persona_tools(store, "scott", "inara", NY, clock=lambda: ny(2026, 11, 29, 20, 0))
    )
    result = await run_tool_loop(
        llm,
        system=SystemPrompt("persona"),
        messages=[Message("user", "Remind me to call the dentist tomorrow at 9")],
        tools=registry,
        max_steps=6,
    )
    assert result.text == "I'll remind you at 09:00 tomorrow."
    assert "- [ ] 2026-11-30 09:00 Call the dentist" in world["path"].read_text()
    assert "Find the insurance card" in (world["path"].parent / "TASKS.json").read_text()
    assert "Morning briefing." in (world["path"].parent / "CRONS.json").read_text()
    [*_, refused] = [m for m in llm.calls[-1].messages if m.tool_results]
    assert refused.tool_results[0].is_error
    assert "in the past" in refused.tool_results[0].content
    assert {spec.name for spec in llm.calls[0].tools} >= {
        "reminder_add",
        "reminder_list",
        "reminder_done",
        "task_add",
        "task_list",
        "task_done",
        "task_remove",
        "cron_add",
        "cron_list",
        "cron_remove",
    }
