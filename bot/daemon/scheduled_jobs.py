"""What the daemon runs on its own schedule (:mod:`bot.daemon.scheduler`): idle sessions ended
(their facts extracted), old events pruned, the persona's minute jobs (reminders, scheduled
jobs: :mod:`bot.tools.jobs`), and, when ``distill.auto`` is on, each enabled distillation
level at its hour in each user's time zone (scheduled again after a reload), with the levels
that fell due while the daemon was down run once after start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from bot.daemon.errors import PersonadError
from bot.daemon.notify import Notifier
from bot.daemon.scheduler import CronJob, Jobs
from bot.delivery.state import StateStore
from bot.llm.base import LLMBackend
from bot.memory.distill.distiller import Distiller, DistillKind
from bot.memory.distill.schedule import PLANS, missed_levels
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.tools.clock import Clock
from bot.tools.jobs import schedule_persona_jobs
from bot.turn.sessions import SessionManager

__all__ = ["ScheduledJobs"]

log = structlog.get_logger(__name__)


class ScheduledJobs:
    """The daemon's scheduled jobs (a part of :class:`~bot.daemon.daemon.Daemon`)."""

    # what it uses of the daemon
    config: Config
    store: PersonaStore
    state: StateStore
    clock: Clock
    backends: dict[str, LLMBackend]
    sessions: SessionManager | None
    distiller: Distiller | None
    notifier: Notifier
    jobs: Jobs
    catching_up: asyncio.Task[None] | None
    #: a coroutine function, as the HTTP API's view of the daemon (``DaemonView``) asks
    distill: Callable[[str, str, str], Coroutine[Any, Any, str]]

    def _schedule(self) -> None:
        assert self.sessions is not None
        sessions = self.sessions

        async def end_idle() -> None:
            # read at each run: a reload may have changed it
            await sessions.end_idle(self.config.daemon.idle_minutes * 60)

        async def prune() -> None:
            await self.state.prune_events()

        self.jobs.every("sessions.end_idle", 60, end_idle)
        self.jobs.every("events.prune", 6 * 3600, prune)
        schedule_persona_jobs(
            self.jobs,
            config=self.config,
            store=self.store,
            notifier=self.notifier,
            backends=self.backends,
            clock=self.clock,
        )
        self._schedule_distillation()
        if self.config.distill.auto:
            self.catching_up = asyncio.create_task(self._catch_up_distillation())

    def _schedule_distillation(self) -> None:
        """Each enabled level for each configured user at its hour in the user's zone, when
        ``distill.auto`` is on; called again after a reload, so a user added, a zone changed
        or a level turned on or off takes effect without a restart, while a job whose time
        and zone did not change is left alone (a run that just fell due is not lost)."""
        wanted: dict[str, CronJob] = {}
        if self.config.distill.auto:
            levels = self._distill_levels()
            for user, user_config in self.config.users.items():
                for plan in PLANS:
                    if plan.kind in levels:
                        job = self._distill_all_job(user, plan.kind)
                        wanted[f"distill.{plan.kind}.{user}"] = CronJob(
                            job, user_config.timezone, plan.cron
                        )
        self.jobs.set_crons("distill.", wanted)

    def _distill_levels(self) -> list[DistillKind]:
        distill = self.config.distill
        enabled = {"short": distill.short, "mid": distill.mid, "long": distill.long}
        return [plan.kind for plan in PLANS if enabled[plan.kind]]

    async def _catch_up_distillation(self) -> None:
        """Run, once each, the levels that fell due while the daemon was down. A reload while
        it runs replaces the config: each step reads it anew, so a user removed, a level or
        ``distill.auto`` turned off is not distilled any more."""
        assert self.distiller is not None and self.distiller.runs is not None
        runs = self.distiller.runs
        now = self.clock()
        for user in list(self.config.users):
            for persona in self.store.list_personas(user):
                try:
                    if not self._catching_up(user):
                        break
                    zone = self.config.users[user].zone
                    levels = self._distill_levels()
                    missed = await missed_levels(runs, user, persona, levels, now, zone)
                    for kind in missed:
                        if not self._catching_up(user, kind):
                            break
                        log.info("distill.catching_up", kind=kind)
                        await self.distill(user, persona, kind)
                except PersonadError as exc:
                    log.error("distill.catch_up_failed", error=str(exc))

    def _catching_up(self, user: str, kind: DistillKind | None = None) -> bool:
        """Whether catching up still runs for ``user`` (and level ``kind``), as the config
        says now."""
        if not self.config.distill.auto or user not in self.config.users:
            return False
        return kind is None or kind in self._distill_levels()

    def _distill_all_job(self, user: str, kind: DistillKind) -> Any:
        async def job() -> None:
            for persona in self.store.list_personas(user):
                await self.distill(user, persona, kind)

        return job
