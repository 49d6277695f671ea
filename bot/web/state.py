"""The console's shared objects, reached from any handler through the application.

:class:`DaemonView` is what the console, and the API it is mounted beside, use of the running
daemon: the daemon hands itself over as one, so neither imports the daemon that starts them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from aiohttp import web

from bot.web.adapter import WebAdapter
from bot.web.auth import WebSession, WebStore
from bot.web.passwords import PASSWORD_LOCKS

if TYPE_CHECKING:
    from adapters.base import Adapter
    from bot.daemon.health import HealthCheck
    from bot.delivery.outbox import Outbox
    from bot.delivery.state import StateStore
    from bot.memory.distill.distiller import Distiller
    from bot.persona.store import PersonaStore
    from bot.setup.config import Config
    from bot.tools.clock import Clock
    from bot.turn.router import Router
    from bot.turn.sessions import SessionManager

__all__ = ["CONSOLE", "SESSION", "Console", "DaemonView"]


class DaemonView(Protocol):
    """The running daemon, as the HTTP API and the web console see it."""

    config: Config
    store: PersonaStore
    state: StateStore
    clock: Clock
    adapters: dict[str, Adapter]
    health: HealthCheck
    outbox: Outbox
    started_at: float
    http_port: int | None
    router: Router | None
    sessions: SessionManager | None
    distiller: Distiller | None

    async def distill(self, user: str, persona: str, kind: str) -> str: ...


@dataclass(slots=True)
class Console:
    daemon: DaemonView
    store: WebStore
    adapter: WebAdapter
    #: the note each browser session is shown on its next page (after a form's redirect),
    #: kept here so no address can make a page say something: ``(text, is_error)``
    notes: dict[str, tuple[str, bool]] = field(default_factory=dict)
    #: the locks a password check holds, one of which each name tried falls to by a keyed
    #: hash (:func:`bot.web.login.lock_of`): guesses sent all at once for one name are counted
    #: one after the other and none gets past the pause, while whether two names wait for
    #: each other says nothing of whether either is configured
    passwords: list[asyncio.Lock] = field(
        default_factory=lambda: [asyncio.Lock() for _ in range(PASSWORD_LOCKS)]
    )


CONSOLE: web.AppKey[Console] = web.AppKey("console", Console)
#: the request key of the signed-in browser session (a WebSession; None: not signed in)
SESSION: web.RequestKey[WebSession | None] = web.RequestKey("session")
