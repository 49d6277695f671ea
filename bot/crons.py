"""The persona's own scheduled jobs, CRONS.json: a morning briefing, a weekly review.

CRONS.json is a JSON list of objects::

    [{"id": 1, "schedule": "0 7 * * 1-5", "prompt": "Give me a short morning briefing.",
      "enabled": true, "created": "2026-11-30T09:00:00-05:00",
      "last_run": "2026-12-01T07:00:02-05:00"}]

``schedule`` is a standard five-field cron expression (minute hour day-of-month month
day-of-week) read in the user's time zone; weekdays count as in crontab (0 or 7 is Sunday,
1 Monday). When both day-of-month and day-of-week are restricted, both must match.

Every minute the daemon calls :func:`run_due_crons`. A job whose schedule fired since it
last ran (or was tried, or created) asks the persona's chat model once — the system prompt is
the persona's IDENTITY, SOUL and VOICE with the current date and time, the job's prompt is the
user message — and the answer goes to the user's notification room. ``last_run`` is written
atomically. A failed model call is logged, written to ``last_error`` and tried again at the
next fire time; an answer that could not be delivered waits in ``undelivered`` and is sent
as soon as the room is reachable. A fire time missed by more than :data:`STALE_AFTER`
(the daemon was not running) is skipped, not caught up.

Off The Record does not pause the jobs: OTR promises that a conversation is not logged and
not remembered, and a job's answer never enters a conversation, a session log or memory
(its prompt holds no conversation or memory either); skipping it would silently drop a
briefing the user asked for because a private conversation was left open.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import structlog
from apscheduler.triggers.cron import CronTrigger

from bot.config import Config, UserConfig
from bot.errors import LLMError
from bot.llm.base import LLMBackend, Message, SystemPrompt
from bot.notify import Notifier
from bot.persona.context import datetime_line, render_file
from bot.persona.store import PersonaStore
from bot.reminders import Clock
from bot.tasks import CorruptFile, Item, edit_json_list, load_json_list
from bot.tools import Tool, ToolFailed

__all__ = [
    "FILENAME",
    "IDENTITY_FILES",
    "MAX_JOBS",
    "MIN_INTERVAL",
    "STALE_AFTER",
    "check_schedule",
    "cron_tools",
    "fire_due",
    "last_seen",
    "parse_schedule",
    "run_due_crons",
]

log = structlog.get_logger(__name__)

FILENAME = "CRONS.json"
IDENTITY_FILES = ("IDENTITY.md", "SOUL.md", "VOICE.md")
#: the shortest gap allowed between two runs of a job added through the tools
MIN_INTERVAL = timedelta(minutes=10)
#: a fire time older than this when first noticed is skipped, not run late
STALE_AFTER = timedelta(hours=2)
_ONE_SECOND = timedelta(seconds=1)
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _day(token: str) -> int:
    if token.isdigit() and 0 <= int(token) <= 7:
        return int(token)
    if token[:3] in _DAY_NAMES and len(token) >= 3:
        return _DAY_NAMES.index(token[:3])
    raise ValueError(f"{token!r} is not a weekday (0-7 or sun-sat)")


def _weekdays(field: str) -> str:
    """A crontab day-of-week field as APScheduler day names (APScheduler 3 counts 0 as
    Monday, crontab as Sunday, so numbers are never passed through)."""
    if field in ("*", "?"):
        return "*"
    days: set[int] = set()
    for part in field.lower().split(","):
        span, _, step_text = part.partition("/")
        if not step_text.isdigit() and step_text:
            raise ValueError(f"{part!r}: the step must be a number")
        step = int(step_text) if step_text else 1
        if step < 1:
            raise ValueError(f"{part!r}: the step must be at least 1")
        if span == "*":
            low, high = 0, 6
        elif "-" in span:
            first, last = span.split("-", 1)
            low, high = _day(first), _day(last)
        else:
            low = _day(span)
            high = 6 if step_text else low
        if low > high:
            raise ValueError(f"{part!r}: the range runs backwards")
        days.update(day % 7 for day in range(low, high + 1, step))
    return ",".join(_DAY_NAMES[day] for day in sorted(days))


def parse_schedule(expr: str, zone: tzinfo) -> CronTrigger:
    """A five-field crontab expression as a trigger in ``zone``; ValueError says what is wrong."""
    fields = expr.split()
    if len(fields) != 5:
        raise ValueError(
            f"{expr!r} has {len(fields)} field(s); a schedule has five: minute hour "
            "day-of-month month day-of-week, e.g. '0 7 * * *' for 07:00 every day"
        )
    try:
        fields[4] = _weekdays(fields[4])
        return CronTrigger.from_crontab(" ".join(fields), timezone=zone)
    except ValueError as exc:
        raise ValueError(f"{expr!r} is not a valid schedule: {exc}") from None


def fire_due(trigger: CronTrigger, since: datetime, now: datetime) -> datetime | None:
    """The latest fire time after ``since`` and not after ``now``, or None."""
    fire: datetime | None = trigger.get_next_fire_time(None, since + _ONE_SECOND)
    if fire is None or fire > now:
        return None
    for _ in range(10_000):
        following = trigger.get_next_fire_time(None, fire + _ONE_SECOND)
        if following is None or following > now:
            break
        fire = following
    return fire


def _stamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def last_seen(job: Item) -> datetime | None:
    """When the job last ran, was tried, or was created, whichever is latest."""
    stamps = [_stamp(job.get(key)) for key in ("last_run", "last_attempt", "created")]
    known = [stamp for stamp in stamps if stamp is not None]
    return max(known) if known else None


def _system_prompt(
    store: PersonaStore, config: Config, user: str, persona: str, now: datetime
) -> SystemPrompt:
    sections = []
    for name in IDENTITY_FILES:
        file = store.read(user, persona, name)
        sections.append(render_file(file, config.prompt.limit(name)))
    stable = "\n\n".join(section for section in sections if section)
    dynamic = (
        "--- System ---\n"
        + datetime_line(now)
        + f"\nThis is a scheduled job {user} set up. Your answer is sent to {user}'s"
        " notification room as one message; there is no conversation to continue, so do the"
        " job and write only what should be sent."
    )
    return SystemPrompt(stable=stable, dynamic=dynamic)


async def _ask(
    llm: LLMBackend,
    store: PersonaStore,
    config: Config,
    user: str,
    persona: str,
    job: Item,
    now: datetime,
) -> str:
    system = _system_prompt(store, config, user, persona, now)
    question = f"Scheduled job #{job.get('id')} ({job.get('schedule')}): {job.get('prompt')}"
    completion = await llm.complete(system=system, messages=[Message("user", question)])
    answer = completion.text.strip()
    if not answer:
        raise LLMError("the model returned an empty answer")
    return answer


async def _update(
    store: PersonaStore,
    user: str,
    persona: str,
    job_id: object,
    set_: dict[str, Any],
    drop: tuple[str, ...] = (),
) -> None:
    def change(items: list[Item]) -> None:
        for item in items:
            if item.get("id") == job_id:
                item.update(set_)
                for key in drop:
                    item.pop(key, None)

    try:
        await edit_json_list(store, user, persona, FILENAME, change)
    except CorruptFile as exc:
        log.warning("crons.unreadable", user=user, persona=persona, problem=str(exc))


_warned: dict[tuple[str, str], str] = {}


def _warn_once(user: str, persona: str, event: str, problem: str) -> None:
    if _warned.get((user, persona)) != problem:
        _warned[(user, persona)] = problem
        log.warning(event, user=user, persona=persona, problem=problem)


async def run_due_crons(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    llm: LLMBackend,
    user: str,
    persona: str,
    now: datetime,
) -> int:
    """Run one persona's jobs whose time has come; returns how many answers were sent."""
    zone = (config.users.get(user) or UserConfig()).zone
    local = now.astimezone(zone).replace(microsecond=0)
    try:
        jobs = load_json_list(store, user, persona, FILENAME)
    except CorruptFile as exc:
        _warn_once(user, persona, "crons.unreadable", str(exc))
        return 0
    sent = 0
    for job in jobs:
        if job.get("enabled", True) is False or "id" not in job:
            continue
        sent += await _deliver_waiting(store, notifier, user, persona, job)
        try:
            trigger = parse_schedule(str(job.get("schedule", "")), zone)
        except ValueError as exc:
            _warn_once(user, persona, "cron.bad_schedule", str(exc))
            continue
        since = last_seen(job)
        if since is None:  # written by hand without dates: its schedule starts now
            await _update(store, user, persona, job["id"], {"created": local.isoformat()})
            continue
        fire = fire_due(trigger, since, local)
        if fire is None:
            continue
        sent += await _run_job(store, notifier, config, llm, user, persona, job, fire, local)
    return sent


async def _deliver_waiting(
    store: PersonaStore, notifier: Notifier, user: str, persona: str, job: Item
) -> int:
    waiting = job.get("undelivered")
    if not isinstance(waiting, dict) or not isinstance(waiting.get("text"), str):
        return 0
    written = _stamp(waiting.get("at"))
    note = f"\n(written {written:%Y-%m-%d %H:%M})" if written else ""
    if not await notifier.notify(user, waiting["text"] + note):
        return 0
    await _update(store, user, persona, job["id"], {}, drop=("undelivered",))
    return 1


async def _run_job(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    llm: LLMBackend,
    user: str,
    persona: str,
    job: Item,
    fire: datetime,
    now: datetime,
) -> int:
    stamp = now.isoformat()
    job_id = job["id"]
    if now - fire > STALE_AFTER:
        log.info("cron.missed", user=user, persona=persona, job=job_id, due=fire.isoformat())
        await _update(
            store, user, persona, job_id, {"last_attempt": stamp, "last_missed": fire.isoformat()}
        )
        return 0
    if notifier.room_for(user) is None:
        problem = "no notification_room is configured for the user, so answers cannot be sent"
        _warn_once(user, persona, "cron.no_room", problem)
        await _update(store, user, persona, job_id, {"last_attempt": stamp, "last_error": problem})
        return 0
    try:
        answer = await _ask(llm, store, config, user, persona, job, now)
    except Exception as exc:
        log.error("cron.failed", user=user, persona=persona, job=job_id, error=str(exc))
        failure = f"{type(exc).__name__}: {exc}"[:300]
        await _update(store, user, persona, job_id, {"last_attempt": stamp, "last_error": failure})
        return 0
    text = f"🗓️ {persona.capitalize()} (scheduled job #{job_id}):\n{answer}"
    delivered = await notifier.notify(user, text)
    update: dict[str, Any] = {"last_run": stamp, "last_attempt": stamp}
    if not delivered:
        update["undelivered"] = {"text": text, "at": stamp}
    await _update(store, user, persona, job_id, update, drop=("last_error",))
    log.info("cron.ran", user=user, persona=persona, job=job_id, delivered=delivered)
    return 1 if delivered else 0


# -- tools for the model ------------------------------------------------------------------

#: enabled jobs a persona may have
MAX_JOBS = 20


def check_schedule(expr: str, zone: tzinfo, now: datetime) -> CronTrigger:
    """:func:`parse_schedule`, also refusing schedules that would run more often than
    :data:`MIN_INTERVAL` (each run is a paid model call)."""
    trigger = parse_schedule(expr, zone)
    fire = trigger.get_next_fire_time(None, now)
    if fire is None:
        raise ValueError(f"{expr!r} never runs")
    for _ in range(60):
        following = trigger.get_next_fire_time(None, fire + _ONE_SECOND)
        if following is None:
            break
        if following - fire < MIN_INTERVAL:
            minutes = int(MIN_INTERVAL.total_seconds() // 60)
            raise ValueError(f"{expr!r} runs more often than every {minutes} minutes")
        fire = following
    return trigger


def _describe(job: Item, zone: tzinfo, now: datetime) -> str:
    line = f"#{job.get('id', '?')} [{job.get('schedule')}] {job.get('prompt')}"
    try:
        fire = parse_schedule(str(job.get("schedule", "")), zone).get_next_fire_time(None, now)
    except ValueError as exc:
        return f"{line} — not valid: {exc}"
    if fire is not None:
        line += f" — next {fire:%a %Y-%m-%d %H:%M}"
    if job.get("last_error"):
        line += f" — last try failed: {job['last_error']}"
    return line


def cron_tools(
    store: PersonaStore, user: str, persona: str, zone: ZoneInfo, clock: Clock
) -> list[Tool]:
    """``cron_add``, ``cron_list`` and ``cron_remove`` for one persona."""

    def now() -> datetime:
        return clock().astimezone(zone).replace(microsecond=0)

    async def edit(change: Callable[[list[Item]], str]) -> str:
        try:
            return await edit_json_list(store, user, persona, FILENAME, change)
        except CorruptFile as exc:
            raise ToolFailed(f"{exc}. Ask the user to repair CRONS.json.") from None

    async def add(args: dict[str, Any]) -> str:
        schedule, prompt = args.get("schedule"), args.get("prompt")
        if not isinstance(schedule, str) or not isinstance(prompt, str) or not prompt.strip():
            raise ToolFailed("give 'schedule' (five cron fields) and 'prompt' (what to do)")
        if len(prompt) > 2000:
            raise ToolFailed("keep a job's prompt under 2000 characters")
        schedule = " ".join(schedule.split())
        at = now()
        try:
            trigger = check_schedule(schedule, zone, at)
        except ValueError as exc:
            raise ToolFailed(str(exc)) from None

        def change(items: list[Item]) -> str:
            enabled = [item for item in items if item.get("enabled", True) is not False]
            if len(enabled) >= MAX_JOBS:
                raise ToolFailed(f"there are already {MAX_JOBS} jobs; remove one first")
            ids = [item["id"] for item in items if isinstance(item.get("id"), int)]
            job: Item = {"id": max(ids, default=0) + 1, "schedule": schedule}
            job.update(prompt=prompt.strip(), enabled=True, created=at.isoformat())
            items.append(job)
            fire = trigger.get_next_fire_time(None, at)
            return (
                f"Scheduled job #{job['id']} added; next run {fire:%a %Y-%m-%d %H:%M} "
                f"({zone.key}). Its answers are sent to the user's notification room."
            )

        return await edit(change)

    async def list_(_args: dict[str, Any]) -> str:
        try:
            items = load_json_list(store, user, persona, FILENAME)
        except CorruptFile as exc:
            raise ToolFailed(f"{exc}. Ask the user to repair CRONS.json.") from None
        at = now()
        shown = [_describe(job, zone, at) for job in items if job.get("enabled", True) is not False]
        return (
            "\n".join([f"Scheduled jobs (times in {zone.key}):", *shown])
            if shown
            else ("No scheduled jobs.")
        )

    async def remove(args: dict[str, Any]) -> str:
        ident, match = args.get("id"), args.get("match")

        def change(items: list[Item]) -> str:
            live = [item for item in items if item.get("enabled", True) is not False]
            if ident is not None and ident != "":
                found = [item for item in live if str(item.get("id")) == str(ident)]
            elif isinstance(match, str) and match.strip():
                needle = match.strip().casefold()
                found = [item for item in live if needle in str(item.get("prompt")).casefold()]
            else:
                raise ToolFailed("give the job's 'id' or 'match' (words of its prompt)")
            if len(found) != 1:
                what = "no" if not found else "more than one"
                raise ToolFailed(f"{what} enabled job matches; see cron_list and use 'id'")
            found[0]["enabled"] = False
            found[0]["disabled_at"] = now().isoformat()
            return f"Job #{found[0].get('id')} stopped (kept in CRONS.json, disabled)."

        return await edit(change)

    return [
        Tool(
            name="cron_add",
            description=(
                "Schedule a job you run on your own, e.g. a morning briefing. 'schedule' is a "
                "five-field cron expression (minute hour day-of-month month day-of-week; "
                f"0 = Sunday) in the user's zone ({zone.key}), e.g. '0 7 * * 1-5' for 07:00 "
                "on weekdays. 'prompt' says what to do; the answer goes to the user's "
                "notification room."
            ),
            input_schema={
                "type": "object",
                "properties": {"schedule": {"type": "string"}, "prompt": {"type": "string"}},
                "required": ["schedule", "prompt"],
            },
            handler=add,
        ),
        Tool(
            name="cron_list",
            description="List your scheduled jobs with their next run time.",
            input_schema={"type": "object", "properties": {}},
            handler=list_,
        ),
        Tool(
            name="cron_remove",
            description="Stop a scheduled job, by 'id' or 'match' (it stays in the file).",
            input_schema={
                "type": "object",
                "properties": {"id": {"type": "integer"}, "match": {"type": "string"}},
            },
            handler=remove,
        ),
    ]
