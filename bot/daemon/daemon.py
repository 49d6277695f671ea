"""Wiring: one asyncio process with the adapters, router, sessions, scheduler and HTTP API.

Start order: state database, language models, sessions and router, adapters (created so
webhook adapters can add their routes), HTTP server, adapters started, outbox, watchdog and
jobs. Stop order is the reverse, after draining: turns in flight finish first (those still
running when the drain ends are cancelled and stay unfinished, answered after the restart),
the outbox stops (its on-record answers wait in the database), then adapters stop, then
every session ends (its facts extracted into memory) and the stores close. A start that
fails half-way undoes what it did.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from adapters import registry
from adapters.base import Adapter, AdapterContext, AdapterSettings, Incoming
from bot.commands.table import command_menu
from bot.daemon.api import build_app
from bot.daemon.errors import ConfigError, PersonadError, is_permanent
from bot.daemon.health import HealthCheck
from bot.daemon.logs import register_secret, register_secrets_from_env
from bot.daemon.model_health import ModelHealth
from bot.daemon.notify import Notifier
from bot.daemon.scheduler import Jobs
from bot.daemon.watchdog import Watchdog
from bot.delivery.outbox import Outbox, Parcel, Refusal
from bot.delivery.state import StateStore
from bot.llm.base import LLMBackend
from bot.media.prepare import MediaReader
from bot.media.servers import AudioServer, Speaker, Transcriber
from bot.memory.base import MemoryBackend
from bot.memory.distill.distiller import Distiller, DistillKind
from bot.memory.distill.schedule import PLANS, DistillRuns, missed_levels
from bot.memory.extraction import EXTRACT_ROLE, FactExtractor
from bot.persona.identity.observer import IdentityObserver
from bot.persona.identity.state import flush_states
from bot.persona.sessionlog.log import SessionLog
from bot.persona.sessionlog.search import close_indexes
from bot.persona.store import PersonaStore
from bot.setup.config import BackendConfig, Config
from bot.setup.config_loader import load_config
from bot.setup.permissions import secure_data_dir
from bot.tools.jobs import schedule_persona_jobs
from bot.turn.router import DELIVERED, REFUSED, Router
from bot.turn.session import Clock, SessionDeps, utc_now
from bot.turn.sessions import SessionManager

__all__ = ["Daemon"]

log = structlog.get_logger(__name__)

DRAIN_SECONDS = 60.0


def _listen_problem(host: str, port: int, exc: OSError) -> str:
    """One sentence a person can act on when the HTTP server cannot listen."""
    where = f"http.host/http.port: cannot listen on {host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where}, another program uses that port; stop it or choose another http.port"
    if exc.errno == errno.EACCES:
        return f"{where}, ports below 1024 need privileges; choose http.port 1024 or above"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{where}, this machine has no such address; use 127.0.0.1 or 0.0.0.0"
    return f"{where} ({exc.strerror or exc})"


class Daemon:
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
        self.notifier = Notifier(config, self.adapters, self.store)
        self.jobs = Jobs()
        self.watchdog: Watchdog | None = None
        self.outbox = Outbox(
            self.state,
            self.adapters,
            on_delivered=self._log_delivered,
            on_refused=self._log_refused,
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
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        register_secrets_from_env(self.env)
        await secure_data_dir(self.config.data_dir)
        await self.state.open()
        self.store.watch_files()
        if self._given_backends is not None:
            self.backends = dict(self._given_backends)
        else:
            from bot.llm.factory import build_backends

            self.backends = build_backends(self.config.llm, self.env)
        chat_name, chat_spec = self.config.llm.backend_for("chat")
        deps = SessionDeps(
            config=self.config,
            store=self.store,
            state=self.state,
            chat_llm=self.model_health.watch(self.backends[chat_name]),
            context_window=self.config.llm.context_window(chat_spec),
            clock=self.clock,
            identity=(
                IdentityObserver(self.store, thresholds=self.config.identity.thresholds or None)
                if self.config.identity.enabled
                else None
            ),
            extractor=FactExtractor(self.backends[self.config.llm.backend_for(EXTRACT_ROLE)[0]]),
        )
        self.sessions = SessionManager(deps, self._memory_opener())
        self.router = Router(
            config=self.config,
            state=self.state,
            store=self.store,
            sessions=self.sessions,
            reload=self.reload,
            distill=self.distill,
        )
        self.router.adapters = self.adapters
        self.router.outbox = self.outbox
        self.router.health = self.health
        self.router.media = self._media_reader(chat_spec)
        await self.outbox.load()
        await self.router.load()
        self.router.pinned.update(self._pinned)
        self.distiller = Distiller(
            self.config,
            self.store,
            self.backends,
            notify=self.notifier.notify,
            runs=DistillRuns(self.state),
        )
        app = build_app(self, self._api_token()) if self.http_enabled else None
        self._create_adapters(app)
        if app is not None:
            await self._start_http(app)
        await self._start_adapters()
        self.outbox.start()
        self._replay = asyncio.create_task(self._answer_what_was_cut_off())
        self.watchdog = Watchdog(self.adapters, self._stall_seconds, given_up=self.health.failed)
        self.watchdog.start()
        if self.jobs_enabled:
            self._schedule()
            self.jobs.start()
        for backend in self.backends.values():
            backend.warm()
        running = sorted(n for n, a in self.adapters.items() if a.health.running)
        log.info(
            "daemon.started",
            adapters=running,
            failed=sorted(self.health.failed),
            not_running=sorted(set(self.adapters) - set(running) - set(self.health.failed)),
            http=self.http_port,
        )

    def _api_token(self) -> str | None:
        token = self.env.get(self.config.http.token_env) or None
        register_secret(token)
        return token

    def _memory_opener(self) -> Any:
        if self.config.memory.backend == "none":
            return None
        config = self.config

        async def open_memory(directory: Path) -> MemoryBackend:
            from bot.memory.factory import open_memory as factory

            backend: MemoryBackend = await factory(config, directory)
            return backend

        return open_memory

    def _adapter_settings(self, name: str, raw: dict[str, Any]) -> AdapterSettings:
        raw = dict(raw)
        if name == "matrix" and "allowed_inviters" not in raw:
            raw["allowed_inviters"] = [
                ident.partition(":")[2]
                for user in self.config.users.values()
                for ident in user.identities
                if ident.startswith("matrix:")
            ]
        return registry.settings_for(name, raw)

    def _media_reader(self, chat_spec: BackendConfig) -> MediaReader:
        """The reader of attachments, with the transcription server and the speech server
        the ``transcribe`` and ``speech`` roles name (each None when not configured)."""
        llm, media = self.config.llm, self.config.media
        spec = llm.media_backend("transcribe")
        transcriber = Transcriber("transcribe", spec, self.env) if spec else None
        spec = llm.media_backend("speech")
        self.speaker = Speaker("speech", spec, self.env, voice=media.speech_voice) if spec else None
        self._media_servers = [s for s in (transcriber, self.speaker) if s is not None]
        return MediaReader(media, vision=chat_spec.sees_images, transcriber=transcriber)

    def _create_adapters(self, app: web.Application | None) -> None:
        def add_route(method: str, path: str, handler: Any) -> None:
            if app is None:
                raise ConfigError("http.enabled: webhook adapters need the HTTP server")
            app.router.add_route(method, path, handler)

        assert self.router is not None
        for name, raw in sorted(self.config.adapters.items()):
            if not raw.get("enabled", False) or name in self._given_adapters:
                continue
            settings = self._adapter_settings(name, raw)
            context = AdapterContext(
                handler=self.router.handle,
                state=self.state.for_adapter(name),
                data_dir=self.config.data_dir / "adapters" / name,
                command_menu=command_menu(),
                add_route=add_route if app is not None else None,
            )
            context.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.adapters[name] = registry.create(name, settings, context)
            self._stall_seconds[name] = settings.stall_seconds
        self.adapters.update(self._given_adapters)
        for adapter in self.adapters.values():  # the console's and a test's adapters too
            if adapter.context.speak is None and self.speaker is not None:
                adapter.context.speak = self.speaker.speak

    async def _start_http(self, app: web.Application) -> None:
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        host, port = self.config.http.host, self.config.http.port
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            raise ConfigError(_listen_problem(host, port, exc)) from exc
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        self.http_port = sockets[0].getsockname()[1] if sockets else self.config.http.port

    async def _start_adapters(self) -> None:
        """Start each adapter. One that fails for good (:func:`~bot.daemon.errors.is_permanent`) is
        reported failed with its reason and never retried; any other failure is left to the
        watchdog's backoff. Either way the daemon and the other adapters go on."""
        for name, adapter in self.adapters.items():
            try:
                await adapter.start()
                log.info("adapter.started", adapter=name)
            except PersonadError as exc:
                adapter.health.failed(str(exc))
                if is_permanent(exc):
                    self.health.failed[name] = str(exc)
                    log.error("adapter.failed", adapter=name, error=str(exc), retrying=False)
                else:
                    log.error("adapter.start_failed", adapter=name, error=str(exc))
            except Exception as exc:
                adapter.health.failed(type(exc).__name__)
                log.exception("adapter.start_failed", adapter=name, error=type(exc).__name__)

    def _schedule(self) -> None:
        assert self.sessions is not None
        sessions = self.sessions
        idle = self.config.daemon.idle_minutes * 60

        async def end_idle() -> None:
            await sessions.end_idle(idle)

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
        if not self.config.distill.auto:
            return
        for user, user_config in self.config.users.items():
            for plan in PLANS:
                if plan.kind in self._distill_levels():
                    self.jobs.cron(
                        f"distill.{plan.kind}.{user}",
                        self._distill_all_job(user, plan.kind),
                        timezone=user_config.timezone,
                        **plan.cron,
                    )
        self.catching_up = asyncio.create_task(self._catch_up_distillation())

    def _distill_levels(self) -> list[DistillKind]:
        distill = self.config.distill
        enabled = {"short": distill.short, "mid": distill.mid, "long": distill.long}
        return [plan.kind for plan in PLANS if enabled[plan.kind]]

    async def _catch_up_distillation(self) -> None:
        """Run, once each, the levels that fell due while the daemon was down."""
        assert self.distiller is not None and self.distiller.runs is not None
        now = self.clock()
        for user, user_config in self.config.users.items():
            for persona in self.store.list_personas(user):
                try:
                    missed = await missed_levels(
                        self.distiller.runs,
                        user,
                        persona,
                        self._distill_levels(),
                        now,
                        user_config.zone,
                    )
                    for kind in missed:
                        log.info("distill.catching_up", kind=kind)
                        await self.distill(user, persona, kind)
                except PersonadError as exc:
                    log.error("distill.catch_up_failed", error=str(exc))

    def _distill_all_job(self, user: str, kind: DistillKind) -> Any:
        async def job() -> None:
            for persona in self.store.list_personas(user):
                await self.distill(user, persona, kind)

        return job

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
        """The session log notes that a queued answer reached the room."""
        user = self.config.users.get(parcel.user)
        if user is None:
            return
        directory = self.store.directory(parcel.user, parcel.persona)
        await SessionLog(directory, parcel.persona).mark_event(self.clock(), user.zone, DELIVERED)

    async def _log_refused(self, refusal: Refusal) -> None:
        """The session log notes that an on-record answer will never reach the room (an Off
        The Record one leaves no trace there)."""
        user = self.config.users.get(refusal.user)
        if user is None or not refusal.durable or not refusal.persona:
            return
        directory = self.store.directory(refusal.user, refusal.persona)
        await SessionLog(directory, refusal.persona).mark_event(self.clock(), user.zone, REFUSED)

    async def _answer_what_was_cut_off(self) -> None:
        """Hand the router the on-record messages an earlier process claimed and never
        answered (:mod:`bot.delivery.inbox`): in order within each room, the rooms side by side."""
        rooms: dict[tuple[str, str], list[Incoming]] = {}
        try:
            unanswered = await self.state.unanswered(time.time())
        except PersonadError as exc:
            log.error("inbox.unreadable", error=str(exc))
            return
        for incoming in unanswered:
            rooms.setdefault((incoming.platform, incoming.room), []).append(incoming)
        if rooms:
            log.info("inbox.replaying", messages=sum(map(len, rooms.values())), rooms=len(rooms))

        async def in_order(messages: list[Incoming]) -> None:
            assert self.router is not None
            for incoming in messages:
                if incoming.platform in self.adapters:
                    await self.router.handle(incoming)

        await asyncio.gather(*(in_order(messages) for messages in rooms.values()))

    async def stop(self) -> None:
        self._stopping.set()
        if self.router is not None:
            self.router.closing = True
        if self._replay is not None:
            self._replay.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._replay
        self.jobs.stop()
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
            return f"Config not reloaded, it has problems: {exc}"
        later = [
            what
            for what, changed in (
                ("Adapter", fresh.adapters != self.config.adapters),
                ("HTTP", fresh.http != self.config.http),
            )
            if changed
        ]
        note = f" {' and '.join(later)} changes take effect at the next restart." if later else ""
        for section in ("users", "prompt", "memory", "distill", "daemon"):
            setattr(self.config, section, getattr(fresh, section))
        self.config.llm.max_tool_steps = fresh.llm.max_tool_steps
        log.info("config.reloaded")
        return "Config and persona files reloaded." + note
