"""The minute job of CRONS.json: each job whose time has come asks the model once.

Schedules are five-field cron expressions read in the user's zone (:mod:`.schedule`); the
file and its changes are :mod:`.jobfile`. Every minute the daemon calls
:func:`run_due_crons`. A job whose schedule fired since it last ran (or was tried, or
created) asks the persona's chat model once — the system prompt is the persona's files of
:data:`IDENTITY_FILES` with the current date and time, the job's prompt is the user message — and
the answer goes to the user's notification room (a shared room's own job, from
``rooms/<room>/CRONS.json``, answers in that room). ``last_run`` is written atomically, and
to the end even when the daemon stops meanwhile. A failed model call is logged, written to
``last_error`` and tried again at the next fire time; an answer that could not be delivered
waits in ``undelivered`` and is sent as soon as the room is reachable. A fire time missed by
more than :data:`STALE_AFTER` (the daemon was not running) is skipped, not caught up.

Before anything is sent, CRONS.json must take a write: a run is recorded after its answer
went out, and a file that cannot be saved would have the job asked and answered again every
minute. Such a file is put on hold with a growing pause and the user gets one notice
(:mod:`bot.tools.backoff`).

Off The Record does not pause the jobs: a job's answer never enters a conversation, a
session log or memory, and its prompt holds no conversation or memory. While Off The Record
no job can be added (the gate withholds ``cron_add``), so no OTR text ever becomes a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from bot.daemon.errors import LLMError
from bot.daemon.notify import Notifier
from bot.daemon.scheduler import to_the_end
from bot.llm.base import LLMBackend, Message, SystemPrompt
from bot.persona.context import datetime_line, heard_by, render_file
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.setup.config_users import UserConfig
from bot.tools.backoff import backoff_for
from bot.tools.crons.jobfile import (
    FILENAME,
    edit_crons,
    is_enabled,
    last_seen,
    number_jobs,
    numbered,
    stamp_of,
    update_job,
    why_it_cannot_run,
)
from bot.tools.crons.schedule import fire_due, parse_schedule
from bot.tools.jsonlist import CorruptFile, Item, load_json_list
from bot.turn.audience import Audience

__all__ = ["IDENTITY_FILES", "STALE_AFTER", "run_due_crons"]

log = structlog.get_logger(__name__)

#: what a job's prompt is made of: the persona's character, then the file layer chat reads
#: (who the user is, what the persona remembers, how it works), each in the job's audience's
#: copy (a shared room's job reads that room's and what is shared, never the private files nor
#: what the identity observer learned in direct rooms)
IDENTITY_FILES = ("IDENTITY.md", "SOUL.md", "VOICE.md", "AGENTS.md", "USER.md", "MEMORY.md")
#: a fire time older than this when first noticed is skipped, not run late
STALE_AFTER = timedelta(hours=2)


def _system_prompt(
    store: PersonaStore,
    config: Config,
    user: str,
    persona: str,
    now: datetime,
    where: str,
    audience: Audience,
) -> SystemPrompt:
    sections = []
    for path in audience.prompt_files(IDENTITY_FILES):
        file = heard_by(store.read(user, persona, path), audience)
        sections.append(render_file(file, config.prompt.limit(path.rpartition("/")[2])))
    stable = "\n\n".join(section for section in sections if section)
    dynamic = (
        "--- System ---\n"
        + datetime_line(now)
        + f"\nThis is a scheduled job {user} set up. Your answer is sent to {where}"
        " as one message; there is no conversation to continue, so do the job and write only"
        " what should be sent."
    )
    return SystemPrompt(stable=stable, dynamic=dynamic)


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
    """Run one persona's jobs whose time has come, those of CRONS.json (answered in the
    user's notification room) and each shared room's own (answered in that room); returns
    how many answers were sent."""
    sent = 0
    for audience in store.audiences(user, persona):
        sent += await _run_due(store, notifier, config, llm, user, persona, now, audience)
    return sent


async def _run_due(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    llm: LLMBackend,
    user: str,
    persona: str,
    now: datetime,
    audience: Audience,
) -> int:
    path = audience.own(FILENAME)
    holds = backoff_for(store)
    if holds.waiting(user, persona, path, now):
        return 0
    zone = (config.users.get(user) or UserConfig()).zone
    local = now.astimezone(zone).replace(microsecond=0)
    try:
        jobs = load_json_list(store, user, persona, path)
        if not numbered(jobs):
            # a job copied with its id, or written without one: each needs its own, or a
            # run is recorded on both and their answers share one name (a platform shows
            # the second one not at all)
            jobs = await edit_crons(store, user, persona, number_jobs, local, path)
    except CorruptFile as exc:
        _warn_once(user, persona, "crons.unreadable", str(exc))
        return 0
    except OSError as exc:
        await holds.failed(notifier, user, persona, path, exc, local)
        return 0
    work: list[tuple[Item, datetime | None]] = []
    for job in jobs:
        if not is_enabled(job) or "id" not in job:
            continue
        try:
            trigger = parse_schedule(str(job.get("schedule", "")), zone)
            since = last_seen(job)
            fire = fire_due(trigger, since, local) if since is not None else None
        except (ValueError, OverflowError) as exc:
            # OverflowError: a time stamp at the calendar's end; this job waits, not the rest
            _warn_once(user, persona, "cron.bad_schedule", str(exc))
            if "undelivered" in job:
                work.append((job, None))
            continue
        if since is None or fire is not None or "undelivered" in job:
            work.append((job, fire))
    if not work:
        return 0
    run = _PersonaRun(store, notifier, config, llm, user, persona, local, audience)
    try:
        # a run is recorded after its answer went out: the file proves it can be saved
        # first, or the same job would be asked and answered again every minute
        await edit_crons(store, user, persona, lambda items: None, local, path)
        sent = await run.work(work)
    except OSError as exc:
        await holds.failed(notifier, user, persona, path, exc, local)
        return run.sent
    holds.succeeded(user, persona, path)
    return sent


@dataclass(slots=True)
class _PersonaRun:
    """The due work of one persona's jobs at one minute (``now``, in the user's zone)."""

    store: PersonaStore
    notifier: Notifier
    config: Config
    llm: LLMBackend
    user: str
    persona: str
    now: datetime
    audience: Audience
    sent: int = 0

    @property
    def path(self) -> str:
        return self.audience.own(FILENAME)

    async def work(self, work: list[tuple[Item, datetime | None]]) -> int:
        for job, fire in work:
            await self.deliver_waiting(job)
            if last_seen(job) is None:  # written by hand without dates: it starts now
                await self.update(job["id"], {"created": self.now.isoformat()})
            elif fire is not None:
                await self.run_job(job, fire)
        return self.sent

    async def update(
        self, job_id: object, set_: dict[str, Any], drop: tuple[str, ...] = ()
    ) -> None:
        change = update_job(
            self.store, self.user, self.persona, job_id, self.now, set_, drop, self.path
        )
        try:
            # to the end, even when the daemon stops meanwhile: a run whose answer went out
            # but was not recorded would be asked and answered again after the restart
            await to_the_end(change)
        except CorruptFile as exc:
            log.warning("crons.unreadable", user=self.user, persona=self.persona, problem=str(exc))

    async def deliver_waiting(self, job: Item) -> None:
        waiting = job.get("undelivered")
        if not isinstance(waiting, dict) or not isinstance(waiting.get("text"), str):
            return
        written = stamp_of(waiting.get("at"))
        note = f"\n(written {written:%Y-%m-%d %H:%M})" if written else ""
        fire = waiting.get("fire", waiting.get("at"))  # an answer kept before "fire" was
        key = _answer_key(self.user, self.persona, self.audience, job, fire)
        if await self.notifier.notify_audience(
            self.user, self.audience, waiting["text"] + note, key=key
        ):
            await self.update(job["id"], {}, drop=("undelivered",))
            self.sent += 1

    async def ask(self, job: Item) -> str:
        where = (
            f"{self.user}'s notification room"
            if self.audience.private
            else f"the shared room {self.audience.room}"
        )
        system = _system_prompt(
            self.store, self.config, self.user, self.persona, self.now, where, self.audience
        )
        question = f"Scheduled job #{job.get('id')} ({job.get('schedule')}): {job.get('prompt')}"
        completion = await self.llm.complete(system=system, messages=[Message("user", question)])
        answer = completion.text.strip()
        if not answer:
            raise LLMError("the model returned an empty answer")
        return answer

    async def run_job(self, job: Item, fire: datetime) -> None:
        user, persona, stamp, job_id = self.user, self.persona, self.now.isoformat(), job["id"]
        if self.now.astimezone(UTC) - fire.astimezone(UTC) > STALE_AFTER:  # real time
            log.info("cron.missed", user=user, persona=persona, job=job_id, due=fire.isoformat())
            await self.update(job_id, {"last_attempt": stamp, "last_missed": fire.isoformat()})
            return
        if self.audience.private and self.notifier.room_for(user) is None:
            problem = "no notification_room is configured for the user, so answers cannot be sent"
            _warn_once(user, persona, "cron.no_room", problem)
            await self.update(job_id, {"last_attempt": stamp, "last_error": problem})
            return
        if (why := why_it_cannot_run(job)) is not None:
            _warn_once(user, persona, "cron.cannot_run", why)
            await self.update(job_id, {"last_attempt": stamp, "last_error": why})
            return
        try:
            answer = await self.ask(job)
        except Exception as exc:
            log.error("cron.failed", user=user, persona=persona, job=job_id, error=str(exc))
            failure = f"{type(exc).__name__}: {exc}"[:300]
            await self.update(job_id, {"last_attempt": stamp, "last_error": failure})
            return
        text = f"🗓️ {persona.capitalize()} (scheduled job #{job_id}):\n{answer}"
        key = _answer_key(user, persona, self.audience, job, fire.isoformat())
        delivered = await self.notifier.notify_audience(user, self.audience, text, key=key)
        update: dict[str, Any] = {"last_run": stamp, "last_attempt": stamp}
        if not delivered:
            update["undelivered"] = {"text": text, "at": stamp, "fire": fire.isoformat()}
        await self.update(job_id, update, drop=("last_error",))
        log.info("cron.ran", user=user, persona=persona, job=job_id, delivered=delivered)
        self.sent += 1 if delivered else 0


def _answer_key(user: str, persona: str, audience: Audience, job: Item, at: object) -> str:
    """One occurrence's answer by name (its fire time), the same when it is sent again from
    ``undelivered`` or asked again after a restart: a platform that took it but answered an
    error is not given it twice."""
    return f"job:{user}/{persona}:{audience.label}:{job.get('id')}:{at}"
