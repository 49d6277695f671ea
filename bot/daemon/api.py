"""The daemon's small HTTP API (aiohttp), bound to 127.0.0.1 unless configured otherwise.

``GET /healthz`` is open: 200 when every adapter is healthy, else 503 with each unhealthy
adapter's reason (not running, stalled past its limit, outbox backing up; see
:mod:`bot.daemon.health`). Every other endpoint wants ``Authorization: Bearer <token>``, the
token read from the environment variable named by ``http.token_env``. With no token set the
guarded endpoints answer 503: an API without a token is closed, not open. Paths under
``/webhooks/`` carry their own authentication (Nextcloud Talk signs its webhooks) and pass.

Endpoints: ``GET /status``, ``POST /distill/{short|mid|long}?user=U&persona=P``,
``GET /distill/status``, ``GET /sessions/search?q=…&user=U&persona=P[&room=PLATFORM:ID]``
(grouped by date, matched words marked; see :mod:`bot.persona.sessionlog.search`),
``POST /setup/persona`` (JSON ``{"user", "name", "template"}``). The web console
(:mod:`bot.web`) shares the server and has its own sign-in.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web

from bot.daemon.api_input import Field, json_fields, query_fields
from bot.daemon.errors import PersonadError
from bot.persona.sessionlog.search import search_sessions
from bot.persona.template import create_persona
from bot.web.app import mount_console
from bot.web.guard import is_console_request
from bot.web.state import DaemonView

__all__ = ["build_app"]

log = structlog.get_logger(__name__)

_OPEN_PATHS = ("/healthz",)
_DAEMON: web.AppKey[DaemonView] = web.AppKey("daemon")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _bearer_middleware(token: str | None) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        if path in _OPEN_PATHS or path.startswith("/webhooks/") or is_console_request(request):
            return await handler(request)
        if not token:
            return web.json_response(
                {"error": "the API is disabled: set its bearer token in the environment"},
                status=503,
            )
        given = request.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            return web.json_response(
                {"error": "missing or wrong bearer token"},
                status=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        return await handler(request)

    return middleware


@web.middleware
async def _errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except PersonadError as exc:
        return web.json_response({"error": exc.user_message}, status=400)
    except Exception:
        log.exception("api.crashed", path=request.path)
        return web.json_response({"error": "internal error"}, status=500)


_USER, _PERSONA = Field("user"), Field("persona")


async def _healthz(request: web.Request) -> web.Response:
    health = request.app[_DAEMON].health
    problems = health.problems()
    adapters = {
        name: {key: report[key] for key in ("state", "running", "synced", "last_ok_age")}
        for name, report in ((name, health.report(name)) for name in sorted(health.adapters))
    }
    model = health.model.report() if health.model is not None else None
    if problems:
        problems.update(health.degraded())
        return web.json_response(
            {"status": "unhealthy", "problems": problems, "adapters": adapters, "model": model},
            status=503,
        )
    degraded = health.degraded()
    if degraded:
        # a restart would not bring the model back: still 200, and the body says what is wrong
        return web.json_response(
            {"status": "degraded", "problems": degraded, "adapters": adapters, "model": model}
        )
    return web.json_response({"status": "ok", "adapters": adapters, "model": model})


async def _status(request: web.Request) -> web.Response:
    daemon = request.app[_DAEMON]
    sessions = daemon.sessions.all() if daemon.sessions else []
    return web.json_response(
        {
            "uptime_s": round(time.monotonic() - daemon.started_at, 1),
            "sessions": len(sessions),
            "adapters": {name: daemon.health.report(name) for name in sorted(daemon.adapters)},
            "model": daemon.health.model.report() if daemon.health.model is not None else None,
            "problems": {**daemon.health.problems(), **daemon.health.degraded()},
            "refused": [
                {
                    "platform": r.platform,
                    "room": r.room,
                    "user": r.user,
                    "persona": r.persona,
                    "reason": r.reason,
                    "attempts": r.attempts,
                    "failed_at": round(r.failed_at, 1),
                }
                for r in daemon.outbox.refusals()
            ],
        }
    )


async def _distill(request: web.Request) -> web.Response:
    daemon = request.app[_DAEMON]
    kind = request.match_info["kind"]
    if kind not in ("short", "mid", "long"):
        raise web.HTTPNotFound()
    fields = query_fields(request, _USER, _PERSONA)
    outcome = await daemon.distill(fields["user"], fields["persona"], kind)
    return web.json_response({"kind": kind, "result": outcome})


async def _distill_status(request: web.Request) -> web.Response:
    daemon = request.app[_DAEMON]
    last_runs = await daemon.distiller.status() if daemon.distiller else {}
    return web.json_response({"last_runs": last_runs})


async def _search(request: web.Request) -> web.Response:
    daemon = request.app[_DAEMON]
    fields = query_fields(
        request, Field("q", "text"), _USER, _PERSONA, Field("room", "room", optional=True)
    )
    query = fields["q"]
    directory = daemon.store.require(fields["user"], fields["persona"])
    results = await search_sessions(directory, fields["persona"], query, room=fields.get("room"))
    return web.json_response({"query": query, "results": results})


async def _setup_persona(request: web.Request) -> web.Response:
    daemon = request.app[_DAEMON]
    body = await json_fields(request, _USER, Field("name"), Field("template", optional=True))
    path = create_persona(daemon.store, body["user"], body["name"], template=body.get("template"))
    return web.json_response({"created": str(path)}, status=201)


def build_app(daemon: DaemonView, token: str | None) -> web.Application:
    app = web.Application(
        middlewares=[_errors_middleware, _bearer_middleware(token)], client_max_size=2 * 1024**2
    )
    app[_DAEMON] = daemon
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/status", _status)
    app.router.add_post("/distill/{kind}", _distill)
    app.router.add_get("/distill/status", _distill_status)
    app.router.add_get("/sessions/search", _search)
    mount_console(app, daemon, setup_api=_setup_persona)  # the web console, at /
    return app
