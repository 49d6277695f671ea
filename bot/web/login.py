"""Signing in and out: the one-time link, an optional password, the session cookie."""

from __future__ import annotations

import structlog
from aiohttp import web

from bot.web.auth import SESSION_SECONDS, verify_password
from bot.web.guard import COOKIE, secure_request
from bot.web.views import console, form_text, render

__all__ = ["routes"]

log = structlog.get_logger(__name__)

routes = web.RouteTableDef()


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
        config = users.get(name)
        if config is not None and config.web_password and verify_password(
            password, config.web_password
        ):
            raise await _signed_in_as(request, name)
        log.warning("web.login_refused", how="password")
        problem = "Wrong user name or password."
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
