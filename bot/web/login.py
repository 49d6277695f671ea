"""Signing in and out: the one-time link, an optional password, the session cookie."""

from __future__ import annotations

import asyncio
import time

import structlog
from aiohttp import web

from bot.web.auth import SESSION_SECONDS
from bot.web.guard import COOKIE, secure_request
from bot.web.passwords import check_password, lock_of
from bot.web.views import console, form_text, render

__all__ = ["FAILURE_WINDOW", "MAX_FAILURES", "routes"]

log = structlog.get_logger(__name__)

routes = web.RouteTableDef()

#: wrong passwords for one user name before sign-in by password pauses for it
MAX_FAILURES = 5
#: how long the pause lasts, and how long a wrong password counts (kept in personad.db, so a
#: restart does not reset it; sign-in links still work while a name is paused)
FAILURE_WINDOW = 15 * 60.0


@routes.get("/login")
async def login_page(request: web.Request) -> web.Response:
    # the link only shows a button: a link previewer fetching it does not use the token up
    return render(request, "login.html", token=request.query.get("token", ""), problem="")


async def _signed_in_as(request: web.Request, user: str) -> web.HTTPFound:
    cookie, _session = await console(request).store.open_session(user)
    response = web.HTTPFound("/")
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=SESSION_SECONDS,
        httponly=True,
        samesite="Strict",
        secure=secure_request(request),
        path="/",
    )
    log.info("web.signed_in", user=user)
    return response


async def _password_right(request: web.Request, name: str, password: str) -> bool | None:
    """Whether ``password`` is ``name``'s (a wrong one is counted); None while wrong ones
    have paused sign-in by password for that name."""
    config = console(request).daemon.config.users.get(name)
    store = console(request).store
    now = time.time()
    if await store.password_failures(name, now - FAILURE_WINDOW) >= MAX_FAILURES:
        log.warning("web.login_refused", how="password", paused=True)
        return None
    stored = config.web_password if config is not None and config.web_password else None
    # a name with no password takes a whole check too: how fast the answer comes does not
    # tell which names have one
    if await asyncio.to_thread(check_password, password, stored):
        return True
    await store.add_password_failure(name, now, forget_before=now - FAILURE_WINDOW)
    log.warning("web.login_refused", how="password")
    return False


@routes.post("/login")
async def login(request: web.Request) -> web.Response:
    token = await form_text(request, "token")
    users = console(request).daemon.config.users
    if token:
        user = await console(request).store.redeem_login(token)
        if user is not None and user in users:
            raise await _signed_in_as(request, user)
        log.warning("web.login_refused", how="link")
        problem = "That sign-in link is used up or expired. Ask for a new one."
    else:
        name = await form_text(request, "user")
        password = await form_text(request, "password")
        # one check at a time for a name, so none skips the count; names share a few locks
        # by chance alone, configured or not
        async with console(request).passwords[lock_of(name)]:
            right = await _password_right(request, name, password)
        if right is True:
            raise await _signed_in_as(request, name)
        problem = (
            "Wrong user name or password."
            if right is False
            else "Too many wrong passwords for this name; wait a while, or use a link."
        )
    response = render(request, "login.html", token="", problem=problem)
    response.set_status(403)
    return response


@routes.post("/logout")
async def logout(request: web.Request) -> web.Response:
    cookie = request.cookies.get(COOKIE)
    if cookie:
        await console(request).store.close_session(cookie)
    response = web.HTTPFound("/login")
    response.del_cookie(COOKIE, path="/")
    raise response
