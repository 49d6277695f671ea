"""The admin page: adapters and their health, the outbox, users, distillation, for admins only.

Each adapter shows its health as ``/healthz`` judges it (ok, or why not: not running,
stalled, outbox backing up), when it last reported in, its reconnects and restarts and its
last error. The outbox lists the answers waiting for a platform to take them, and those a
platform refused for good (the bot was kicked or blocked), with its reason. Distillation
shows the last run of each kind per persona and runs one now. Everyone who is not an admin
gets 403.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from bot.web.views import console, form_text, is_admin, redirect_with_note, render

__all__ = ["routes"]

routes = web.RouteTableDef()


def _admin_only(request: web.Request) -> None:
    if not is_admin(request):
        raise web.HTTPForbidden(text="The admin page is for admins.")


def _ago(seconds: float) -> str:
    if seconds == float("inf"):
        return "never"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    return f"{seconds / 60:.0f} min ago"


@routes.get("/admin")
async def page(request: web.Request) -> web.Response:
    _admin_only(request)
    daemon = console(request).daemon
    health = daemon.health
    adapters = []
    for name, adapter in sorted(daemon.adapters.items()):
        report = health.report(name)
        adapters.append(
            {
                "name": name,
                "state": report["state"],
                "problem": report["problem"] or "",
                "seen": _ago(adapter.health.age()),
                "reconnects": adapter.health.reconnects,
                "restarts": adapter.health.restarts,
                "detail": adapter.health.last_error or adapter.health.detail,
            }
        )
    outbox = [
        {
            "platform": parcel.platform,
            "room": parcel.room,
            "user": parcel.user,
            "waiting": _ago(time.time() - parcel.created_at),
            "attempts": parcel.attempts,
        }
        for parcel in daemon.outbox.parcels
    ]
    refused = [
        {
            "platform": refusal.platform,
            "room": refusal.room,
            "user": refusal.user,
            "when": _ago(time.time() - refusal.failed_at),
            "reason": refusal.reason,
        }
        for refusal in daemon.outbox.refusals()
    ]
    users: list[dict[str, Any]] = [
        {
            "name": name,
            "admin": user.admin,
            "timezone": user.timezone,
            "identities": user.identities,
            "personas": daemon.store.list_personas(name),
            "password": bool(user.web_password),
        }
        for name, user in sorted(daemon.config.users.items())
    ]
    runs = await daemon.distiller.status() if daemon.distiller else {}
    sessions = daemon.sessions.all() if daemon.sessions else []
    return render(
        request,
        "admin.html",
        adapters=adapters,
        outbox=outbox,
        refused=refused,
        users=users,
        runs=sorted(runs.items()),
        uptime=round((time.monotonic() - daemon.started_at) / 60),
        sessions=len(sessions),
    )


@routes.post("/admin/distill")
async def distill(request: web.Request) -> web.Response:
    _admin_only(request)
    daemon = console(request).daemon
    target = await form_text(request, "persona")
    kind = await form_text(request, "kind")
    user, _, persona = target.partition("/")
    if user not in daemon.config.users or persona not in daemon.store.list_personas(user):
        note = "There is no such persona."
    else:
        note = await daemon.distill(user, persona, kind)
    redirect_with_note(request, "/admin", note)
