"""The daemon: one asyncio process with the adapters, router, sessions, scheduler and HTTP API,
and its lifecycle.

Start order (:mod:`bot.daemon.start_up`): state database, language models, sessions and
router, adapters (created so webhook adapters can add their routes), HTTP server, adapters
started, outbox, watchdog and jobs (:mod:`bot.daemon.scheduled_jobs`). Stop order is the
reverse, after draining: turns in flight finish first (those still running when the drain
ends are cancelled and stay unfinished, answered after the restart), the outbox stops (its
on-record answers wait in the database), then adapters stop, then every session ends (its
facts extracted into memory) and the stores close. A start that fails half-way undoes what
it did. SIGTERM and SIGINT stop the daemon; SIGHUP reloads the config and persona files.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping

import structlog
from aiohttp import web

from adapters.base import Adapter
from bot.commands.table import RELOAD_REFUSED
from bot.daemon.errors import ConfigError
from bot.daemon.health import HealthCheck
from bot.daemon.model_health import ModelHealth
from bot.daemon.notify import Notifier
from bot.daemon.scheduler import Jobs, unfinished_writes
from bot.daemon.start_up import StartUp
from bot.daemon.watchdog import Watchdog
from bot.delivery.outbox import Outbox
from bot.delivery.parcel import Parcel
from bot.delivery.refusals import Refusal
from bot.delivery.state import StateStore
from bot.llm.base import LLMBackend
from bot.media.servers import AudioServer, Speaker
from bot.memory.distill.distiller import Distiller
from bot.persona.identity.state import flush_states
from bot.persona.sessionlog.log import SessionLog
from bot.persona.sessionlog.search import close_indexes
from bot.persona.sessionlog.waiting import write_waiting
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.setup.config_loader import load_config
from bot.tools.clock import Clock, utc_now
from bot.turn.answer_delivery import DELIVERED, REFUSED, WITHHELD
from bot.turn.rooms import GroupsHeard
from bot.turn.router import Router
from bot.turn.sessions import SessionManager

__all__ = ["Daemon"]

log = structlog.get_logger(__name__)

DRAIN_SECONDS = 60.0


class Daemon(StartUp):
    """personad's one process: built here, started by :class:`~bot.daemon.start_up.StartUp`,
    stopped here."""

    def __init__(
        self,
        config: Config,
        *,
        backends: Mapping[str, LLMBackend] | None = None,
        adapters: Mapping[str, Adapter] | None = None,
        env: Mapping[str, str] | None = None,
        clock: Clock = utc_now,
        http: bool | None = None,
        jobs: bool = True,
        pinned: Mapping[tuple[str, str], str] | None = None,
    ) -> None:
        self.config = config
        self.env = dict(os.environ if env is None else env)
        self._given_backends = dict(backends) if backends else None
        self._given_adapters = dict(adapters or {})
        self.clock = clock
        self.http_enabled = config.http.enabled if http is None else http
        self.jobs_enabled = jobs
        self._pinned = dict(pinned or {})
        self.store = PersonaStore(config.data_dir, lambda name: self.config.prompt.limit(name))
        self.state = StateStore(config.data_dir / "personad.db")
        self.adapters: dict[str, Adapter] = {}
        #: the watchdog's limit per configured adapter (adapters attached by the caller,
        #: such as the console, are not watched)
        self._stall_seconds: dict[str, float] = {}
        self.backends: dict[str, LLMBackend] = {}
        #: the speech server answers are spoken through, and every media server to close
        self.speaker: Speaker | None = None
        self._media_servers: list[AudioServer] = []
        self.sessions: SessionManager | None = None
        self.router: Router | None = None
        self.distiller: Distiller | None = None
        #: the rooms a message showed to be groups: the router hears them, the notifier
        #: holds private notices back from them
        self.groups = GroupsHeard()
        self.notifier = Notifier(config, self.adapters, self.store, groups=self.groups)
        self.jobs = Jobs()
        self.watchdog: Watchdog | None = None
        self.outbox = Outbox(
            self.state,
            self.adapters,
            on_delivered=self._log_delivered,
            on_refused=self._log_refused,
            groups=self.groups,
        )
        #: whether the chat model answers (its backend is watched once built)
        self.model_health = ModelHealth()
        self.health = HealthCheck(
            self.adapters, self._stall_seconds, self.outbox, model=self.model_health
        )
        #: how long stop waits for turns in flight before cancelling them
        self.drain_seconds = DRAIN_SECONDS
        self.started_at = time.monotonic()
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self.http_port: int | None = None
        self._background: set[asyncio.Task[str]] = set()
        self._replay: asyncio.Task[None] | None = None
        #: the distillation levels missed while the daemon was down, run once after start
        self.catching_up: asyncio.Task[None] | None = None

    def attach(self, name: str, adapter: Adapter) -> None:
        """Add an adapter built by the caller (the console); call before :meth:`start`."""
        self._given_adapters[name] = adapter

    # -- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> Daemon:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start everything (:mod:`bot.daemon.start_up`); a start that fails half-way is
        undone by :meth:`stop`."""
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def drain(self, seconds: float | None = None) -> bool:
        """Wait until no event is being handled (or ``seconds`` pass); whether it emptied."""
        deadline = time.monotonic() + (self.drain_seconds if seconds is None else seconds)
        while self.router is not None and self.router.in_flight:
            if time.monotonic() >= deadline:
                log.warning("daemon.drain_timeout", in_flight=self.router.in_flight)
                return False
            await asyncio.sleep(0.05)
        return True

    async def _log_delivered(self, parcel: Parcel) -> None:
        """The session log notes that a queued on-record answer reached the room, or that a
        note went in its place (the room became a group); an Off The Record one leaves no
        trace there."""
        user = self.config.users.get(parcel.user)
        if user is None or not parcel.durable:
            return
        directory = self.store.directory(parcel.user, parcel.persona)
        line = WITHHELD if parcel.withheld else DELIVERED
        await SessionLog(directory, parcel.persona).mark_event(self.clock(), user.zone, line)

    async def _log_refused(self, refusal: Refusal) -> None:
        """The session log notes that an on-record answer will never reach the room (an Off
        The Record one leaves no trace there)."""
        user = self.config.users.get(refusal.user)
        if user is None or not refusal.durable or not refusal.persona:
            return
        directory = self.store.directory(refusal.user, refusal.persona)
        await SessionLog(directory, refusal.persona).mark_event(self.clock(), user.zone, REFUSED)

    async def stop(self) -> None:
        self._stopping.set()
        if self.router is not None:
            self.router.closing = True
        if self._replay is not None:
            self._replay.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._replay
        self.jobs.stop()
        await unfinished_writes(seconds=10.0)  # a reminder ticked, a job's run recorded
        if self.catching_up is not None:
            self.catching_up.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.catching_up
        if self.watchdog is not None:
            await self.watchdog.stop()
        if not await self.drain() and self.router is not None:
            # what is still running is cut off: its events stay unfinished and are
            # answered after the restart, editing what they had already sent
            self.router.cancel_handling()
            await self.drain(5)
        await self.outbox.stop()
        for name, adapter in list(self.adapters.items()):
            try:
                await asyncio.wait_for(adapter.stop(), timeout=30)
            except Exception as exc:
                log.error("adapter.stop_failed", adapter=name, error=str(exc))
        await self.drain(10)
        if lost := await asyncio.to_thread(write_waiting, self.config.data_dir):
            log.error("sessionlog.lost", texts=lost)
        await flush_states(self.store)
        self.store.unwatch_files()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.sessions is not None:
            await self.sessions.close()
        close_indexes()
        for backend in self.backends.values():
            try:
                await backend.close()
            except Exception as exc:
                log.error("llm.close_failed", error=str(exc))
        for server in self._media_servers:
            await server.close()
        await self.groups.saved()
        await self.state.close()
        log.info("daemon.stopped")

    async def run_until_signalled(self) -> None:
        """Start, serve until SIGTERM or SIGINT, then stop cleanly."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stopping.set)
        loop.add_signal_handler(signal.SIGHUP, self._reload_in_background)
        await self.start()
        try:
            await self._stopping.wait()
            log.info("daemon.stopping")
        finally:
            await self.stop()

    def _reload_in_background(self) -> None:
        task = asyncio.get_running_loop().create_task(self.reload())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- admin operations -------------------------------------------------------------------

    async def distill(self, user: str, persona: str, kind: str) -> str:
        assert self.distiller is not None
        if kind not in ("short", "mid", "long"):
            return "Use short, mid or long."
        return await self.distiller.run(user, persona, kind)  # type: ignore[arg-type]

    async def reload(self) -> str:
        """Re-read the config file and persona files without a restart."""
        self.store.invalidate()
        source = self.config.source
        if source is None:
            return "Persona files re-read. (No config file is in use, so there is none to reload.)"
        try:
            fresh = load_config(source, self.env)
        except ConfigError as exc:
            log.error("config.reload_failed", error=str(exc))
            return f"{RELOAD_REFUSED}: {exc}"
        later = [
            what
            for what, changed in (
                ("Adapter", fresh.adapters != self.config.adapters),
                ("HTTP", fresh.http != self.config.http),
            )
            if changed
        ]
        note = f" {' and '.join(later)} changes take effect at the next restart." if later else ""
        # the terminal of `personad chat` keeps speaking for its user while they are configured
        for user, platform in self._pinned:
            kept = fresh.users.get(user)
            if platform == "console" and kept and f"console:{user}" not in kept.identities:
                kept.identities.append(f"console:{user}")
        for section in ("users", "prompt", "memory", "distill", "daemon"):
            setattr(self.config, section, getattr(fresh, section))
        self.config.llm.max_tool_steps = fresh.llm.max_tool_steps
        if self.jobs_enabled:
            self._schedule_distillation()  # the users, their zones and the levels it runs
        log.info("config.reloaded")
        return "Config and persona files reloaded." + note
