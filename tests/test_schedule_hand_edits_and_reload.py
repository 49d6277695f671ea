"""Reminders, the persona's own scheduled jobs and the admin's reload as a demanding user meets
them: CRONS.json edited by hand (a job copied with its id, one without an id or a prompt, a
time stamp at the end of the calendar), times the model passes that are no reminder time, and
a `/reload` that must reach what runs on a schedule. Each ends in the job done once, or one
clear sentence, never a crash or a silent loss."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.daemon.notify import Notifier
from bot.delivery.state import StateStore
from bot.memory.distill.schedule import DistillKind, DistillRuns
from bot.setup.config_loader import load_config
from bot.tools.crons.jobfile import NO_PROMPT, numbered
from bot.tools.crons.schedule import parse_schedule
from bot.tools.registry import ToolFailed
from bot.tools.reminders.tools import reminder_tools
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.test_crons import NY, World, ny
from tests.test_reminders import Room

CREATED = "2026-11-29T20:00:00-05:00"


async def _world(tmp_path: Path) -> World:
    """The scheduled jobs' world, its notices sent to a platform that, as Matrix and Discord
    do, shows a send under a name it already took only once."""
    world = World(tmp_path)
    room = Room()
    await room.start()
    world.room = room  # type: ignore[assignment]
    world.notifier = Notifier(world.config, {"console": room})
    return world


# -- CRONS.json edited by hand ------------------------------------------------------------


@pytest.mark.parametrize(
    ("first_id", "copy_id"),
    [(1, 1), (3, "3")],  # "3" names its answer as 3 does
    ids=["copied with its id", "3 and text 3"],
)
async def test_a_job_copied_with_its_id_gets_its_own_and_both_answers_arrive(
    tmp_path: Path, first_id: int, copy_id: object
) -> None:
    world = await _world(tmp_path)
    first = {"id": first_id, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED}
    world.write([first, {**first, "id": copy_id, "prompt": "Traffic."}])
    world.llm.queue("Sunny.")
    world.llm.queue("Roads are clear.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 2
    assert world.room.texts() == [
        f"🗓️ Inara (scheduled job #{first_id}):\nSunny.",
        f"🗓️ Inara (scheduled job #{first_id + 1}):\nRoads are clear.",
    ]
    assert [(job["id"], job["prompt"]) for job in world.jobs()] == [
        (first_id, "Weather."),
        (first_id + 1, "Traffic."),
    ]
    assert all(job["last_run"] == "2026-11-30T07:00:00-05:00" for job in world.jobs())


async def test_a_job_written_without_an_id_is_numbered_and_runs(tmp_path: Path) -> None:
    world = await _world(tmp_path)
    world.write(
        [
            {"id": 4, "schedule": "0 9 * * *", "prompt": "Later.", "created": CREATED},
            {"schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED},
        ]
    )
    world.llm.queue("Sunny.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 1
    assert world.room.texts() == ["🗓️ Inara (scheduled job #5):\nSunny."]
    assert [job["id"] for job in world.jobs()] == [4, 5]


async def test_a_job_without_a_prompt_is_not_sent_to_the_model(tmp_path: Path) -> None:
    world = await _world(tmp_path)
    world.write(
        [
            {"id": 1, "schedule": "0 7 * * *", "created": CREATED},
            {"id": 2, "schedule": "0 7 * * *", "prompt": "  ", "created": CREATED},
        ]
    )
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 0
    assert world.llm.calls == [] and world.room.texts() == []
    for job in world.jobs():
        assert "no prompt" in job["last_error"]
    listing = await world.tools(ny(2026, 11, 30, 8, 0))["cron_list"].handler({})
    assert listing.splitlines()[1:] == [
        f"#1 [0 7 * * *] — does not run: {NO_PROMPT}",
        f"#2 [0 7 * * *] — does not run: {NO_PROMPT}",
    ]


@pytest.mark.parametrize(
    ("odd", "shown"),
    [(0, "0"), (1, "1"), ("no", '"no"'), ("false", '"false"'), (None, "null")],
)
async def test_a_job_enabled_by_something_not_true_or_false_does_not_run_and_says_why(
    tmp_path: Path, odd: object, shown: str
) -> None:
    world = await _world(tmp_path)
    world.write(
        [
            {
                "id": 1,
                "schedule": "0 7 * * *",
                "prompt": "Odd.",
                "created": CREATED,
                "enabled": odd,
            },
            {"id": 2, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED},
        ]
    )
    world.llm.queue("Sunny.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 1
    assert world.room.texts() == ["🗓️ Inara (scheduled job #2):\nSunny."]
    assert len(world.llm.calls) == 1
    why = f"'enabled' is {shown}, neither true nor false, so the job does not run"
    odd_job, weather = world.jobs()
    assert odd_job["enabled"] == odd  # the user's value, for the user to correct
    assert why in odd_job["last_error"] and "last_run" not in odd_job
    assert "last_error" not in weather
    listing = await world.tools(ny(2026, 11, 30, 8, 0))["cron_list"].handler({})
    first, second = listing.splitlines()[1:]
    assert first.startswith("#1 [0 7 * * *] Odd. — does not run: ") and why in first
    assert second.startswith("#2 [0 7 * * *] Weather. — next ")


async def test_ids_that_are_no_whole_numbers_are_renumbered_once(tmp_path: Path) -> None:
    world = await _world(tmp_path)
    first = {"id": 1.0, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED}
    world.write([first, {**first, "prompt": "Traffic."}])
    world.llm.queue("Sunny.")
    world.llm.queue("Roads are clear.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 2
    assert len(set(world.room.texts())) == 2
    # whole numbers now (1.0 would still equal 1, and the file be numbered again)
    written = world.path.read_text()
    assert [repr(job["id"]) for job in world.jobs()] == ["1", "2"]
    assert numbered(world.jobs())
    assert await world.run(ny(2026, 11, 30, 7, 1)) == 0
    assert world.path.read_text() == written


@pytest.mark.parametrize("odd", [True, "morning", 0, -2, None])
async def test_a_job_whose_id_is_no_whole_number_runs_under_the_next_free_one(
    tmp_path: Path, odd: object
) -> None:
    world = await _world(tmp_path)
    world.write(
        [
            {"id": odd, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED},
            {"id": 2, "schedule": "0 9 * * *", "prompt": "Later.", "created": CREATED},
        ]
    )
    world.llm.queue("Sunny.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 1
    assert world.room.texts() == ["🗓️ Inara (scheduled job #3):\nSunny."]
    assert [repr(job["id"]) for job in world.jobs()] == ["3", "2"]


async def test_cron_add_and_the_numbering_agree_on_the_next_free_id(tmp_path: Path) -> None:
    world = await _world(tmp_path)
    world.write([{"id": True, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED}])
    tools = world.tools(ny(2026, 11, 30, 6, 0))
    added = await tools["cron_add"].handler({"schedule": "0 9 * * *", "prompt": "Later."})
    assert "job #1 added" in added  # true is no id: 1 is free
    assert await world.run(ny(2026, 11, 30, 6, 1)) == 0
    assert [repr(job["id"]) for job in world.jobs()] == ["2", "1"]


async def test_a_job_copied_with_an_answer_waiting_does_not_send_it_again(
    tmp_path: Path,
) -> None:
    world = await _world(tmp_path)
    ran = "2026-11-30T07:00:00-05:00"
    waiting = {"text": "🗓️ Inara (scheduled job #1):\nSunny.", "at": ran, "fire": ran}
    first = {"id": 1, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED}
    first.update(last_run=ran, undelivered=waiting)
    world.write([first, {**first, "prompt": "Traffic."}])
    assert await world.run(ny(2026, 11, 30, 7, 5)) == 1
    assert world.room.texts() == ["🗓️ Inara (scheduled job #1):\nSunny.\n(written 2026-11-30 07:00)"]
    assert [job["id"] for job in world.jobs()] == [1, 2]
    assert all("undelivered" not in job for job in world.jobs())


@pytest.mark.parametrize(
    "stamp", ["9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+00:00"], ids=["9999", "0001"]
)
async def test_a_job_stamped_at_the_end_of_the_calendar_does_not_stop_the_others(
    tmp_path: Path, stamp: str
) -> None:
    world = await _world(tmp_path)
    world.write(
        [
            {"id": 1, "schedule": "0 7 * * *", "prompt": "Odd.", "created": stamp},
            {"id": 2, "schedule": "0 7 * * *", "prompt": "Weather.", "created": CREATED},
        ]
    )
    world.llm.queue("Sunny.")
    assert await world.run(ny(2026, 11, 30, 7, 0)) == 1
    assert world.room.texts() == ["🗓️ Inara (scheduled job #2):\nSunny."]


@pytest.mark.parametrize("day", ["monxyz", "sunshine", "satx"])
def test_a_word_that_is_no_weekday_is_refused(day: str) -> None:
    with pytest.raises(ValueError, match="not a weekday") as refused:
        parse_schedule(f"0 7 * * {day}", NY)
    assert "0-7, sun-sat or a day's name" in str(refused.value)


@pytest.mark.parametrize("day", ["mon", "Monday", "thurs", "tues-fri", "weds", "mon-weds"])
def test_weekday_names_and_their_usual_shortenings_are_read(day: str) -> None:
    parse_schedule(f"0 7 * * {day}", NY)


# -- reminders the model sets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("when", "error"),
    [
        ("2026-12-01", "time of day"),
        ("20261201", "time of day"),
        ("0001-01-01T00:00+05:00", "not a date and time"),
        ("9999-12-31T23:59-12:00", "not a date and time"),
    ],
)
async def test_a_reminder_time_that_is_no_time_is_refused_in_words(
    tmp_path: Path, when: str, error: str
) -> None:
    make_persona(tmp_path, "scott")
    from bot.persona.store import PersonaStore

    store = PersonaStore(tmp_path)
    tools = reminder_tools(store, "scott", "inara", NY, lambda: ny(2026, 11, 29, 12, 0))
    add = next(tool for tool in tools if tool.name == "reminder_add")
    with pytest.raises(ToolFailed, match=error):
        await add.handler({"text": "Call the dentist", "when": when})
    assert not (tmp_path / "scott/persona/inara/REMINDERS.md").read_text().count("dentist")


# -- /reload reaches what runs on a schedule ----------------------------------------------

_BASE = """[daemon]
data_dir = "{data}"
idle_minutes = {idle}
[http]
enabled = false
[llm.backends.scripted]
kind = "openai_compat"
model = "s"
base_url = "http://127.0.0.1:9/v1"
[llm.roles.chat]
backend = "scripted"
[memory]
backend = "none"
[users.scott]
identities = ["console:scott"]
admin = true
timezone = "America/New_York"
"""

_HOLLY = """[users.holly]
identities = ["console:holly"]
timezone = "Europe/Lisbon"
"""


async def _ignore(incoming: Incoming) -> None:
    return None


def _distill_jobs(daemon: Daemon) -> list[str]:
    return sorted(name for name in daemon.jobs.names() if name.startswith("distill."))


#: what runs on a schedule besides distillation, whatever the config says
_OTHER_JOBS = ["events.prune", "persona.crons", "persona.reminders", "sessions.end_idle"]


def _other_jobs(daemon: Daemon) -> list[str]:
    return sorted(name for name in daemon.jobs.names() if not name.startswith("distill."))


#: the distillation jobs of scott and holly with the monthly level on
_EVERY_LEVEL_OF_BOTH = [
    f"distill.{kind}.{user}" for kind in ("long", "mid", "short") for user in ("holly", "scott")
]


async def _started(path: Path) -> Daemon:
    """A daemon of the config at ``path``, at noon UTC on 30 November, its catch-up done."""
    daemon = Daemon(
        load_config(path, {}),
        backends={"scripted": ScriptedLLM()},
        http=False,
        clock=lambda: datetime(2026, 11, 30, 12, 0, tzinfo=UTC),
    )
    await daemon.start()
    assert daemon.catching_up is not None
    await daemon.catching_up
    return daemon


async def test_a_reload_reschedules_distillation_for_the_users_now_configured(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    path = tmp_path / "personad.toml"
    path.write_text(_BASE.format(data=tmp_path, idle=60))
    daemon = await _started(path)
    try:
        assert _distill_jobs(daemon) == ["distill.mid.scott", "distill.short.scott"]
        assert _other_jobs(daemon) == _OTHER_JOBS

        # a household member added, and the monthly level turned on
        path.write_text(_BASE.format(data=tmp_path, idle=60) + _HOLLY + "[distill]\nlong = true\n")
        assert "reloaded" in await daemon.reload()
        assert _distill_jobs(daemon) == _EVERY_LEVEL_OF_BOTH
        assert _other_jobs(daemon) == _OTHER_JOBS
        # at her hour, in her zone
        after = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
        fire = daemon.jobs.next_run("distill.short.holly", after)
        assert fire is not None
        assert fire.astimezone(ZoneInfo("Europe/Lisbon")).hour == 3

        # automatic distillation turned off: nothing runs on its own any more
        path.write_text(_BASE.format(data=tmp_path, idle=60) + "[distill]\nauto = false\n")
        assert "reloaded" in await daemon.reload()
        assert _distill_jobs(daemon) == []
        assert _other_jobs(daemon) == _OTHER_JOBS
    finally:
        await daemon.stop()


def _fell_due(daemon: Daemon, names: list[str], at: datetime) -> None:
    """The distillation jobs ``names`` came due at ``at`` and the scheduler has not run them
    yet (the machine slept through their time, or the reload came in the same instant): the
    scheduler is paused, so they stay due while the test reloads."""
    scheduler = daemon.jobs._scheduler
    scheduler.pause()
    for name in names:
        scheduler.modify_job(name, next_run_time=at)


async def test_a_reload_keeps_the_distillation_that_fell_due_unless_its_schedule_changed(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    path = tmp_path / "personad.toml"
    base = _BASE.format(data=tmp_path, idle=60)
    path.write_text(base + _HOLLY)
    daemon = await _started(path)
    try:
        due = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)  # 03:00 in New York, a while ago
        _fell_due(daemon, ["distill.short.scott", "distill.short.holly"], due)
        before = {name: daemon.jobs.next_run(name) for name in _distill_jobs(daemon)}
        assert before["distill.short.scott"] == before["distill.short.holly"] == due

        # nothing changed: every job as it was, the due ones still due
        assert "reloaded" in await daemon.reload()
        assert {name: daemon.jobs.next_run(name) for name in _distill_jobs(daemon)} == before

        # holly moved to Madrid and the monthly level turned on: her jobs are scheduled anew
        # and the long level added; scott's short level is still due
        madrid = _HOLLY.replace("Europe/Lisbon", "Europe/Madrid")
        path.write_text(base + madrid + "[distill]\nlong = true\n")
        assert "reloaded" in await daemon.reload()
        assert _distill_jobs(daemon) == _EVERY_LEVEL_OF_BOTH
        assert daemon.jobs.next_run("distill.short.scott") == due
        assert daemon.jobs.next_run("distill.mid.scott") == before["distill.mid.scott"]
        moved = daemon.jobs.next_run("distill.short.holly")
        assert moved is not None and moved != due
        assert moved.astimezone(ZoneInfo("Europe/Madrid")).hour == 3
        later = daemon.jobs.next_run("distill.short.holly", due + timedelta(days=1))
        assert later is not None and later.astimezone(ZoneInfo("Europe/Madrid")).hour == 3
    finally:
        await daemon.stop()


#: the last distillation runs on record: down over two Sundays and the 1st
_MISSED: dict[DistillKind, datetime] = {
    "short": datetime(2026, 11, 20, 3, 0, tzinfo=NY),
    "mid": datetime(2026, 11, 15, 3, 30, tzinfo=NY),
    "long": datetime(2026, 10, 1, 4, 0, tzinfo=NY),
}


async def _ran(daemon: Daemon, user: str, kind: DistillKind) -> bool:
    """Whether ``kind`` ran for the user's persona since the runs of :data:`_MISSED`."""
    assert daemon.distiller is not None and daemon.distiller.runs is not None
    found = await daemon.distiller.runs.last(user, "inara", kind)
    return found is not None and found.at != _MISSED[kind]


@pytest.mark.parametrize("reloaded", ["auto off", "holly removed"])
async def test_catching_up_stops_for_what_a_reload_during_it_turned_off(
    tmp_path: Path, reloaded: str
) -> None:
    for user in ("scott", "holly"):
        sessions = make_persona(tmp_path, user) / "sessions"
        sessions.mkdir(exist_ok=True)
        (sessions / "2026-11-20.md").write_text(
            f"### 10:00:00 · user · {user} · console:{user}\n\nWe booked the Lisbon trip.\n"
        )
    async with StateStore(tmp_path / "personad.db") as state:
        runs = DistillRuns(state)
        for user in ("scott", "holly"):
            for kind, at in _MISSED.items():
                await runs.record(user, "inara", kind, at, "ok")
    path = tmp_path / "personad.toml"
    base = _BASE.format(data=tmp_path, idle=60)
    path.write_text(base + _HOLLY + "[distill]\nlong = true\n")
    if reloaded == "auto off":
        after = base + _HOLLY + "[distill]\nauto = false\nlong = true\n"
    else:
        after = base + "[distill]\nlong = true\n"
    llm = ScriptedLLM()
    daemon = Daemon(
        load_config(path, {}),
        backends={"scripted": llm},
        http=False,
        clock=lambda: datetime(2026, 11, 30, 15, 0, tzinfo=UTC),
    )

    async def reload() -> None:
        path.write_text(after)
        assert "reloaded" in await daemon.reload()

    llm.before_next = reload  # while scott's mid level asks the model
    await daemon.start()
    try:
        assert daemon.catching_up is not None
        await daemon.catching_up
        assert await _ran(daemon, "scott", "mid")  # under way when the reload came: finished
        assert await _ran(daemon, "scott", "long") == (reloaded != "auto off")
        assert not await _ran(daemon, "holly", "mid")
        assert not await _ran(daemon, "holly", "long")
    finally:
        await daemon.stop()


async def test_a_reload_of_idle_minutes_reaches_the_job_that_ends_idle_sessions(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    path = tmp_path / "personad.toml"
    path.write_text(_BASE.format(data=tmp_path, idle=60))
    daemon = Daemon(load_config(path, {}), backends={"scripted": ScriptedLLM()}, http=False)
    adapter = RecordingAdapter(
        AdapterContext(_ignore, daemon.state.for_adapter("console"), tmp_path)
    )
    daemon.attach("console", adapter)

    async def handler(incoming: Incoming) -> None:
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    adapter.context = AdapterContext(handler, daemon.state.for_adapter("console"), tmp_path)
    await daemon.start()
    try:
        await adapter.deliver("Hello there", sender="scott", event_id="e1")
        assert daemon.sessions is not None
        [session] = daemon.sessions.all()
        session.last_active = time.monotonic() - 120  # quiet for two minutes
        assert await daemon.jobs.run_now("sessions.end_idle")
        assert session.pending_extract  # an hour is the limit: not idle yet

        path.write_text(_BASE.format(data=tmp_path, idle=1))
        assert "reloaded" in await daemon.reload()
        assert await daemon.jobs.run_now("sessions.end_idle")
        assert not session.pending_extract  # a minute is the limit now: ended
    finally:
        await daemon.stop()


# -- the admin API ------------------------------------------------------------------------

TOKEN = "search-token-0123456789abcdef"


async def _searched(data: Path, log: str) -> Daemon:
    """A running daemon with its HTTP API, scott's persona holding the session log ``log``
    of 2026-11-28."""
    make_persona(data, "scott")
    (data / "scott/persona/inara/sessions/2026-11-28.md").write_text(log)
    config = make_config(data, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(
        config, backends={"scripted": ScriptedLLM()}, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False
    )
    await daemon.start()
    return daemon


@pytest.mark.parametrize(
    "room",
    ["matrix", "matrix:", ":abc", "matrix-!abc:example.org", "telegarm:123", "con:x", "Matrix:!a"],
)
async def test_a_search_room_that_is_no_platform_and_id_is_refused_by_name(
    tmp_path: Path, room: str
) -> None:
    daemon = await _searched(
        tmp_path, "### 10:00:00 · user · scott · matrix:!abc:example.org\n\nWe planned the trip.\n"
    )
    try:
        base = f"http://127.0.0.1:{daemon.http_port}/sessions/search"
        query = {"q": "trip", "user": "scott", "persona": "inara"}
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            async with http.get(base, params={**query, "room": room}) as response:
                assert response.status == 400
                answer = await response.json()
            assert answer["field"] == "room" and "PLATFORM:ID" in answer["error"]
            assert "reserved" not in answer["error"]
            good = {**query, "room": "matrix:!abc:example.org"}
            async with http.get(base, params=good) as response:
                assert response.status == 200
                assert (await response.json())["results"][0]["date"] == "2026-11-28"
    finally:
        await daemon.stop()


async def test_a_search_room_of_each_platform_a_turn_is_logged_under_is_read(
    tmp_path: Path,
) -> None:
    rooms = ["web:scott", "console:scott", "telegram:4242", "nctalk:abc", "discord:7"]
    daemon = await _searched(
        tmp_path,
        "".join(
            f"### 10:00:00 · user · scott · {room}\n\nWe planned the trip.\n\n" for room in rooms
        ),
    )
    try:
        base = f"http://127.0.0.1:{daemon.http_port}/sessions/search"
        query = {"q": "trip", "user": "scott", "persona": "inara"}
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            for room in rooms:
                async with http.get(base, params={**query, "room": room}) as response:
                    assert response.status == 200, room
                    assert (await response.json())["results"], room
    finally:
        await daemon.stop()
