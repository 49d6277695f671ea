"""Time as users meet it: clocks that change for summer time, and a daemon stopped while it is
sending. The minute jobs are driven minute by minute with an injected clock, through a real
Notifier and the persona's files."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.daemon.notify import Notifier
from bot.daemon.scheduler import to_the_end, unfinished_writes
from bot.tools.crons.schedule import fire_due, parse_schedule
from bot.tools.reminders.job import surface_due
from tests.test_crons import NY, World
from tests.test_reminders import Room


async def _every_minute(world: World, start: datetime, minutes: int) -> list[str]:
    """Run the scheduled jobs at the start of each minute from ``start`` (UTC); the local
    times at which an answer went out."""
    for _ in range(minutes):
        world.llm.queue("Here is your summary.")
    ran = []
    for minute in range(minutes):
        now = (start + timedelta(minutes=minute)).astimezone(NY)
        if await world.run(now):
            ran.append(now.isoformat())
    return ran


async def test_a_job_in_the_hour_clocks_go_back_over_runs_once(tmp_path: Path) -> None:
    # 2026-11-01 in New York: 01:00-02:00 happens twice (EDT, then EST)
    world = World(tmp_path)
    await world.room.start()
    created = "2026-11-01T00:30:00-04:00"
    world.write(
        [
            {"id": 1, "schedule": "30 1 * * *", "prompt": "Sum up.", "created": created},
            {"id": 2, "schedule": "0 * * * *", "prompt": "Hourly.", "created": created},
        ]
    )
    ran = await _every_minute(world, datetime(2026, 11, 1, 4, 30, tzinfo=UTC), 180)
    assert ran == [
        "2026-11-01T01:00:00-04:00",
        "2026-11-01T01:30:00-04:00",
        # an hourly job runs in each real hour, the repeated one included
        "2026-11-01T01:00:00-05:00",
        "2026-11-01T02:00:00-05:00",
    ]
    daily = [text for _room, text in world.room.sent if "#1" in text]
    assert len(daily) == 1


async def test_a_job_in_the_hour_clocks_skip_runs_once_after_it(tmp_path: Path) -> None:
    # 2026-03-08 in New York: 02:00-03:00 does not happen
    world = World(tmp_path)
    await world.room.start()
    world.write(
        [
            {
                "id": 1,
                "schedule": "30 2 * * *",
                "prompt": "Sum up.",
                "enabled": True,
                "created": "2026-03-07T20:00:00-05:00",
            }
        ]
    )
    ran = await _every_minute(world, datetime(2026, 3, 8, 5, 0, tzinfo=UTC), 180)
    # 02:30 read with the offset before the change: an hour after 01:30, once
    assert ran == ["2026-03-08T03:30:00-04:00"]


async def _reminders_world(tmp_path: Path, text: str) -> tuple[World, Path, Room]:
    world = World(tmp_path)
    room = Room()
    await room.start()
    world.notifier = Notifier(world.config, {"console": room})
    path = world.dir / "REMINDERS.md"
    path.write_text(text)
    return world, path, room


async def test_a_stop_while_reminders_go_out_never_sends_one_twice(tmp_path: Path) -> None:
    world, path, room = await _reminders_world(
        tmp_path,
        "# Reminders\n\n- [ ] 2026-11-30 09:00 Call the dentist\n"
        "- [ ] 2026-11-30 09:00 Water the plants\n",
    )
    calls = 0

    async def stopped_at_the_second() -> None:
        nonlocal calls
        calls += 1
        if calls == 2:  # the daemon stops (SIGTERM): the job is cancelled mid-delivery
            raise asyncio.CancelledError

    room.during_send = stopped_at_the_second
    now = datetime(2026, 11, 30, 9, 0, tzinfo=NY)
    with contextlib.suppress(asyncio.CancelledError):
        await surface_due(world.store, world.notifier, world.config, "scott", "inara", now)
    dentist = "⏰ Reminder from Inara: Call the dentist (09:00)"
    assert [text for _room, text in room.sent] == [dentist]
    # after the restart, only what did not go out is sent
    room.during_send = None
    later = datetime(2026, 11, 30, 9, 2, tzinfo=NY)
    assert await surface_due(world.store, world.notifier, world.config, "scott", "inara", later)
    assert [text for _room, text in room.sent][1:] == [
        "⏰ Reminder from Inara: Water the plants (09:00)"
    ]
    assert "[ ]" not in path.read_text()


async def test_a_reminder_in_the_hour_clocks_skip_is_not_called_late(tmp_path: Path) -> None:
    world, _path, room = await _reminders_world(tmp_path, "- [ ] 2026-03-08 02:30 Take the pill\n")
    start = datetime(2026, 3, 8, 6, 0, tzinfo=UTC)  # 01:00 EST
    for minute in range(180):
        now = (start + timedelta(minutes=minute)).astimezone(NY)
        await surface_due(world.store, world.notifier, world.config, "scott", "inara", now)
    assert [text for _room, text in room.sent] == ["⏰ Reminder from Inara: Take the pill (02:30)"]


async def test_a_stop_just_after_a_jobs_answer_went_out_still_records_the_run(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    room = Room()
    await room.start()
    world.notifier = Notifier(world.config, {"console": room})
    world.write(
        [
            {
                "id": 1,
                "schedule": "0 7 * * *",
                "prompt": "Brief me.",
                "created": "2026-11-29T20:00:00-05:00",
            }
        ]
    )
    world.llm.queue("Rain at noon.")
    busy = world.store.lock("scott", "inara")

    async def a_turn_saves_a_file() -> None:
        await busy.acquire()  # held while the answer goes out, so its record waits

    room.during_send = a_turn_saves_a_file
    run = asyncio.create_task(world.run(datetime(2026, 11, 30, 7, 0, tzinfo=NY)))
    for _ in range(200):
        if room.sent:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    run.cancel()  # the daemon stops (SIGTERM) right after the answer went out
    with contextlib.suppress(asyncio.CancelledError):
        await run
    room.during_send = None
    busy.release()
    for _ in range(200):
        if "last_run" in world.jobs()[0]:
            break
        await asyncio.sleep(0.01)
    # after the restart the job is not asked and answered again
    world.llm.queue("Rain at noon, again.")
    assert await world.run(datetime(2026, 11, 30, 7, 2, tzinfo=NY)) == 0
    assert len(room.sent) == 1


async def test_a_reminder_the_platform_took_but_answered_with_an_error_comes_once(
    tmp_path: Path,
) -> None:
    world, path, room = await _reminders_world(
        tmp_path, "# Reminders\n\n- [ ] 2026-11-30 09:00 Call the dentist\n"
    )
    room.taken_then_failed = 1  # it went out, and the platform answered with a timeout
    now = datetime(2026, 11, 30, 9, 0, tzinfo=NY)
    assert not await surface_due(world.store, world.notifier, world.config, "scott", "inara", now)
    assert "[ ]" in path.read_text(), "not known to have gone out: tried again"
    later = datetime(2026, 11, 30, 9, 1, tzinfo=NY)
    await surface_due(world.store, world.notifier, world.config, "scott", "inara", later)
    assert [text for _room, text in room.sent] == [
        "⏰ Reminder from Inara: Call the dentist (09:00)"
    ]
    assert "[ ]" not in path.read_text()
    # its name as a platform takes it: short enough for a Discord nonce, none of its words
    [key] = room.keys
    assert len(key) <= 25 and "dentist" not in key


async def test_a_write_a_stopped_job_left_is_waited_for_before_the_daemon_exits() -> None:
    written: list[str] = []
    file_free = asyncio.Event()

    async def record_the_run() -> None:
        await file_free.wait()  # another write holds the file
        written.append("last_run")

    job = asyncio.create_task(to_the_end(record_the_run()))
    await asyncio.sleep(0)
    job.cancel()  # the scheduler's shutdown cancels the job under way
    with contextlib.suppress(asyncio.CancelledError):
        await job
    assert written == []
    asyncio.get_running_loop().call_soon(file_free.set)
    await unfinished_writes(seconds=10.0)
    assert written == ["last_run"]


def test_a_job_every_two_hours_runs_in_both_passes_of_the_hour_clocks_go_back_over() -> None:
    sydney = ZoneInfo("Australia/Sydney")  # 2024-04-07: 03:00 AEDT becomes 02:00 AEST
    trigger = parse_schedule("0 */2 * * *", sydney)
    start = since = datetime(2024, 4, 6, 23, 30, tzinfo=sydney)
    fired = []
    for minute in range(6 * 60):
        now = (start.astimezone(UTC) + timedelta(minutes=minute + 1)).astimezone(sydney)
        fire = fire_due(trigger, since, now)
        if fire is not None:
            fired.append(fire.astimezone(UTC))
            since = now
    # 00:00, 02:00 AEDT, 02:00 AEST, 04:00: every two real hours, as written, and once each
    assert [f"{t:%H:%M}" for t in fired] == ["13:00", "15:00", "16:00", "18:00"]
