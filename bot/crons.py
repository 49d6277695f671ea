"""The persona's own scheduled jobs, CRONS.json: a morning briefing, a weekly review.

CRONS.json is a JSON list of objects::

    [{"id": 1, "schedule": "0 7 * * 1-5", "prompt": "Give me a short morning briefing.",
      "enabled": true, "created": "2026-11-30T09:00:00-05:00",
      "last_run": "2026-12-01T07:00:02-05:00"}]

``schedule`` is a standard five-field cron expression (minute hour day-of-month month
day-of-week) read in the user's time zone; weekdays count as in crontab (0 or 7 is Sunday,
1 Monday). When both day-of-month and day-of-week are restricted, both must match. Schedules
are read by :mod:`bot.cron_schedule`; the model adds and removes jobs with the tools of
:mod:`bot.cron_tools`.

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

from datetime import datetime, timedelta
from typing import Any

import structlog

from bot.config import Config, UserConfig
from bot.cron_schedule import MIN_INTERVAL, check_schedule, fire_due, parse_schedule
from bot.errors import LLMError
from bot.llm.base import LLMBackend, Message, SystemPrompt
from bot.notify import Notifier
from bot.persona.context import datetime_line, render_file
from bot.persona.store import PersonaStore
from bot.tasks import CorruptFile, Item, edit_json_list, load_json_list

__all__ = [
    "FILENAME",
    "IDENTITY_FILES",
    "MIN_INTERVAL",
    "STALE_AFTER",
    "check_schedule",
    "fire_due",
    "last_seen",
    "parse_schedule",
    "run_due_crons",
]

log = structlog.get_logger(__name__)

FILENAME = "CRONS.json"
IDENTITY_FILES = ("IDENTITY.md", "SOUL.md", "VOICE.md")
#: a fire time older than this when first noticed is skipped, not run late
STALE_AFTER = timedelta(hours=2)


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
