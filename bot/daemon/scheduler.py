"""Background jobs behind one small API; APScheduler is an implementation detail.

Every job runs through :meth:`Jobs._run`, which binds the job's name to the log context and
turns any exception into a log line, so a failing job never stops the scheduler or the daemon.
A reload schedules a group of jobs anew through :meth:`Jobs.set_crons`, which leaves
a job whose schedule did not change as it is, so a fire time that just came due still runs.
A stop cancels the jobs under way; a write a job must not leave half-done (the record that a
reminder or a job's answer went out) runs through :func:`to_the_end`, and the daemon waits for
those (:func:`unfinished_writes`) before it exits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar, cast
from zoneinfo import ZoneInfo

import structlog
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.daemon.logs import bound

__all__ = ["CronJob", "JobFunc", "Jobs", "to_the_end", "unfinished_writes"]

log = structlog.get_logger(__name__)

JobFunc = Callable[[], Awaitable[Any]]
T = TypeVar("T")

#: the writes of jobs cancelled by a stop, still running to their end
_finishing: set[asyncio.Future[Any]] = set()


async def to_the_end(work: Awaitable[T]) -> T:
    """Await ``work``, which runs to its end even when the job awaiting it is cancelled (a
    stop): the daemon waits for it before exiting."""
    task = asyncio.ensure_future(work)
    _finishing.add(task)
    task.add_done_callback(_finishing.discard)
    return await asyncio.shield(task)


async def unfinished_writes(seconds: float) -> None:
    """Wait, at most ``seconds``, for the writes :func:`to_the_end` still runs."""
    if _finishing:
        await asyncio.wait(set(_finishing), timeout=seconds)


@dataclass(frozen=True, slots=True)
class CronJob:
    """A job on a cron schedule, as :meth:`Jobs.set_crons` takes it: ``fields`` as
    APScheduler's cron trigger takes them (``hour=3, minute=30``), read in ``timezone``."""

    func: JobFunc
    timezone: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def trigger(self) -> CronTrigger:
        zone = ZoneInfo(self.timezone) if self.timezone else None
        return CronTrigger(timezone=zone, **self.fields)


def _same_schedule(old: object, new: CronTrigger) -> bool:
    """Whether two triggers fire at the same times: the same fields in the same zone."""
    return (
        isinstance(old, CronTrigger)
        and str(old) == str(new)
        and str(old.timezone) == str(new.timezone)
    )


class Jobs:
    def __init__(self, timezone: str = "UTC") -> None:
        self._scheduler = AsyncIOScheduler(timezone=ZoneInfo(timezone))
        self.runs: dict[str, int] = {}
        self.failures: dict[str, int] = {}

    async def _run(self, name: str, func: JobFunc) -> None:
        with bound(job=name):
            try:
                await func()
                self.runs[name] = self.runs.get(name, 0) + 1
            except Exception as exc:
                self.failures[name] = self.failures.get(name, 0) + 1
                log.exception("job.failed", error=type(exc).__name__)

    def every(self, name: str, seconds: float, func: JobFunc) -> None:
        self._scheduler.add_job(
            self._run,
            IntervalTrigger(seconds=seconds),
            args=(name, func),
            id=name,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
        )

    def cron(self, name: str, func: JobFunc, *, timezone: str | None = None, **fields: Any) -> None:
        """``fields`` as APScheduler's cron trigger takes them: ``hour=3, minute=30``..."""
        self._add_cron(name, CronJob(func, timezone, fields).trigger(), func)

    def set_crons(self, prefix: str, wanted: Mapping[str, CronJob]) -> None:
        """Make the jobs whose names start with ``prefix`` exactly ``wanted`` (those a config
        schedules, again after a reload). A job whose schedule did not change is left as it
        is, its next fire time too: a time that came due while the machine slept (within
        the misfire grace) or in the instant before still runs; a job with a changed
        schedule or a new one is scheduled; one no longer wanted is removed. A job kept
        keeps its function, so a job must read at each run what a reload may change."""
        for job in self._scheduler.get_jobs():
            if job.id.startswith(prefix) and job.id not in wanted:
                self._scheduler.remove_job(job.id)
        for name, spec in wanted.items():
            if not name.startswith(prefix):
                raise ValueError(f"job {name!r} is not named {prefix!r}...")
            trigger = spec.trigger()
            current = self._scheduler.get_job(name)
            if current is None or not _same_schedule(current.trigger, trigger):
                self._add_cron(name, trigger, spec.func)

    def _add_cron(self, name: str, trigger: CronTrigger, func: JobFunc) -> None:
        self._scheduler.add_job(
            self._run,
            trigger,
            args=(name, func),
            id=name,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=3600,
        )

    def names(self) -> list[str]:
        return [job.id for job in self._scheduler.get_jobs()]

    def next_run(self, name: str, after: datetime | None = None) -> datetime | None:
        """When job ``name`` fires next: after ``after`` by its trigger (in the trigger's own
        time zone), or as the running scheduler has it; None for no such job."""
        job = self._scheduler.get_job(name)
        if job is None:
            return None
        if after is None:
            return cast(datetime | None, getattr(job, "next_run_time", None))
        return cast(datetime | None, job.trigger.get_next_fire_time(None, after))

    async def run_now(self, name: str) -> bool:
        """Fire job ``name`` now, through the same entry point as its schedule (context and
        error handling alike); whether there was such a job."""
        job = self._scheduler.get_job(name)
        if job is None:
            return False
        await self._run(*job.args)
        return True

    def start(self) -> None:
        if not self._scheduler.running:
            self._scheduler.start()

    def stop(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
