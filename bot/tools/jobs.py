"""The every-minute jobs the daemon schedules for the persona's reminders and own jobs.

The daemon calls :func:`schedule_persona_jobs` once at start: two jobs run at the start of
every minute, one surfacing due reminders and one running due scheduled jobs, for every
persona of every configured user. They are separate so a slow model answering a scheduled
job never delays a reminder.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime

import structlog

from bot.daemon.notify import Notifier
from bot.daemon.scheduler import Jobs
from bot.llm.base import LLMBackend
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.tools.clock import Clock, utc_now
from bot.tools.crons.job import run_due_crons
from bot.tools.reminders.job import surface_due

__all__ = ["CRON_ROLE", "run_crons_once", "schedule_persona_jobs", "surface_reminders_once"]

log = structlog.get_logger(__name__)

#: the LLM role scheduled jobs use; without an ``llm.roles.cron`` entry, the chat backend
CRON_ROLE = "cron"


def _personas(config: Config, store: PersonaStore) -> Iterator[tuple[str, str]]:
    for user in list(config.users):
        try:
            personas = store.list_personas(user)
        except Exception as exc:
            log.error("persona_jobs.list_failed", user=user, error=str(exc))
            continue
        for persona in personas:
            yield user, persona


async def surface_reminders_once(
    *, config: Config, store: PersonaStore, notifier: Notifier, now: datetime
) -> int:
    """Surface the due reminders of every persona; returns how many notices went out."""
    sent = 0
    for user, persona in _personas(config, store):
        try:
            sent += await surface_due(store, notifier, config, user, persona, now)
        except Exception:
            log.exception("reminders.failed", user=user, persona=persona)
    return sent


async def run_crons_once(
    *,
    config: Config,
    store: PersonaStore,
    notifier: Notifier,
    backends: Mapping[str, LLMBackend],
    now: datetime,
) -> int:
    """Run the due scheduled jobs of every persona; returns how many answers went out."""
    name, _spec = config.llm.backend_for(CRON_ROLE)
    llm = backends.get(name)
    if llm is None:
        log.error("crons.no_backend", backend=name)
        return 0
    sent = 0
    for user, persona in _personas(config, store):
        try:
            sent += await run_due_crons(store, notifier, config, llm, user, persona, now)
        except Exception:
            log.exception("crons.failed", user=user, persona=persona)
    return sent


def schedule_persona_jobs(
    jobs: Jobs,
    *,
    config: Config,
    store: PersonaStore,
    notifier: Notifier,
    backends: Mapping[str, LLMBackend],
    clock: Clock = utc_now,
) -> None:
    """Add the two every-minute jobs (``persona.reminders`` and ``persona.crons``).

    ``config`` and ``backends`` are read at every run, so a reloaded user list is used."""

    async def reminders() -> None:
        await surface_reminders_once(config=config, store=store, notifier=notifier, now=clock())

    async def crons() -> None:
        await run_crons_once(
            config=config, store=store, notifier=notifier, backends=backends, now=clock()
        )

    # second=0: at the start of each minute, so a 09:00 reminder arrives at 09:00:00
    jobs.cron("persona.reminders", reminders, second=0)
    jobs.cron("persona.crons", crons, second=0)
