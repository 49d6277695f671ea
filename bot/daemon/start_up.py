"""The daemon's start: everything it runs, built and wired together in order.

State database, language models, sessions and router, adapters (created so webhook adapters
can add their routes), HTTP server, adapters started, outbox, the messages an earlier
process left unanswered handed back to the router (:mod:`bot.delivery.inbox`), watchdog and
jobs. An adapter that cannot start does not stop the others: one that failed for good is
reported failed, any other is left to the watchdog. A start that fails half-way is undone
by the daemon's stop (:meth:`bot.daemon.daemon.Daemon.start`).
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import Awaitable, Callable
from functools import partial
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
from bot.daemon.scheduled_jobs import ScheduledJobs
from bot.daemon.watchdog import Watchdog
from bot.delivery.outbox import Outbox
from bot.llm.base import LLMBackend
from bot.media.prepare import MediaReader
from bot.media.servers import AudioServer, Speaker, Transcriber
from bot.memory.base import MemoryBackend
from bot.memory.distill.distiller import Distiller
from bot.memory.distill.schedule import DistillRuns
from bot.memory.extraction import EXTRACT_ROLE, FactExtractor
from bot.persona.identity.observer import IdentityObserver
from bot.setup.config_llm import BackendConfig
from bot.setup.permissions import secure_data_dir
from bot.turn.rooms import GroupsHeard
from bot.turn.router import Router
from bot.turn.session_types import SessionDeps
from bot.turn.sessions import SessionManager

__all__ = ["StartUp"]

log = structlog.get_logger(__name__)


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


class StartUp(ScheduledJobs):
    """The daemon's start (a part of :class:`~bot.daemon.daemon.Daemon`)."""

    # what it uses of the daemon
    env: dict[str, str]
    http_enabled: bool
    jobs_enabled: bool
    started_at: float
    http_port: int | None
    adapters: dict[str, Adapter]
    router: Router | None
    groups: GroupsHeard
    outbox: Outbox
    health: HealthCheck
    model_health: ModelHealth
    watchdog: Watchdog | None
    speaker: Speaker | None
    _given_backends: dict[str, LLMBackend] | None
    _given_adapters: dict[str, Adapter]
    _pinned: dict[tuple[str, str], str]
    _stall_seconds: dict[str, float]
    _media_servers: list[AudioServer]
    _runner: web.AppRunner | None
    _replay: asyncio.Task[None] | None
    reload: Callable[[], Awaitable[str]]

    async def _start(self) -> None:
        """Build and start everything, in the order the module's docstring gives."""
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
            groups=self.groups,
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
            adapter.context.off_the_record = partial(self._private_room, adapter.platform)

    def _private_room(self, platform: str, room: str) -> bool:
        """Whether what an adapter remembers of a send to ``room`` must stay in memory:
        someone is Off The Record there now, a message said Off The Record is being answered
        there, or such an answer waits for it (each stays Off The Record when the mode is
        switched off before it goes out)."""
        router = self.router
        assert router is not None
        return (
            router.otr.in_room(platform, room)
            or router.answers_off_record(platform, room)
            or self.outbox.holds_unwritten(platform, room)
        )

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
