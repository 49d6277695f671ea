"""Mounting the web console on the daemon's aiohttp application.

:func:`mount_console` adds the console's pages, its static files and its guard to the app
that already serves the bearer-token API, and registers the ``web`` adapter with the daemon
so browser conversations go through the router like any platform's. Templates are rendered
by Jinja2 with autoescaping on; nothing is built: the templates and static files ship inside
the package.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web

from adapters.base import AdapterContext
from bot.web import admin, chat, files, login, schedule, search
from bot.web.adapter import WebAdapter
from bot.web.auth import WebStore
from bot.web.guard import add_headers, console_guard
from bot.web.onboarding import setup_routes
from bot.web.state import CONSOLE, Console, DaemonView
from bot.web.views import console, render, signed_in

__all__ = ["mount_console"]

_HERE = Path(__file__).parent

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def _home(request: web.Request) -> web.Response:
    user = signed_in(request).user
    personas = console(request).daemon.store.list_personas(user)
    if not personas:
        raise web.HTTPFound("/setup/persona")
    return render(request, "home.html", user=user)


async def _favicon(_request: web.Request) -> web.Response:
    """Browsers ask for ``/favicon.ico`` on every page: the console's icon, not a 401."""
    raise web.HTTPMovedPermanently("/static/favicon.svg")


def mount_console(app: web.Application, daemon: DaemonView, *, setup_api: Handler) -> None:
    """Serve the console from ``app``; ``setup_api`` keeps answering ``POST /setup/persona``
    requests that carry a bearer token."""
    assert daemon.router is not None
    context = AdapterContext(
        handler=daemon.router.handle,
        state=daemon.state.for_adapter("web"),
        data_dir=daemon.config.data_dir / "adapters" / "web",
    )
    adapter = WebAdapter(context)
    daemon.adapters["web"] = adapter
    app[CONSOLE] = Console(daemon=daemon, store=WebStore(daemon.state), adapter=adapter)
    aiohttp_jinja2.setup(
        app,
        loader=jinja2.FileSystemLoader(_HERE / "templates"),
        autoescape=jinja2.select_autoescape(default=True),
    )
    app.middlewares.append(console_guard)
    app.on_response_prepare.append(add_headers)
    app.router.add_get("/", _home)
    app.router.add_static("/static/", _HERE / "static", name="static")
    app.router.add_get("/favicon.ico", _favicon)
    app.router.add_routes(login.routes)
    app.router.add_routes(chat.routes)
    app.router.add_routes(files.routes)
    app.router.add_routes(search.routes)
    app.router.add_routes(schedule.routes)
    app.router.add_routes(admin.routes)
    setup_routes(app, setup_api)
