"""The console's shared objects, reached from any handler through the application."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from bot.web.adapter import WebAdapter
from bot.web.auth import WebSession, WebStore

if TYPE_CHECKING:
    from bot.daemon import Daemon

__all__ = ["CONSOLE", "SESSION", "Console"]


@dataclass(slots=True)
class Console:
    daemon: Daemon
    store: WebStore
    adapter: WebAdapter
    #: the note each browser session is shown on its next page (after a form's redirect),
    #: kept here so no address can make a page say something: ``(text, is_error)``
    notes: dict[str, tuple[str, bool]] = field(default_factory=dict)


CONSOLE: web.AppKey[Console] = web.AppKey("console", Console)
#: the request key of the signed-in browser session (a WebSession; None: not signed in)
SESSION: web.RequestKey[WebSession | None] = web.RequestKey("session")
