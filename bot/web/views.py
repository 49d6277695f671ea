"""What console handlers share: who is signed in, whose persona a page is, rendering."""

from __future__ import annotations

import re
from typing import Any, NoReturn

import aiohttp_jinja2
from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage
from multidict import MultiDictProxy

from bot.web.auth import WebSession
from bot.web.state import CONSOLE, SESSION, Console

__all__ = [
    "console",
    "conversation_id",
    "form_text",
    "is_admin",
    "own_persona",
    "read_form",
    "redirect_with_note",
    "render",
    "signed_in",
]

#: what a body the console cannot read gets (a clean 400, never a traceback)
UNREADABLE_FORM = "The form could not be read. Reload the page and try again."

_CONVERSATION = re.compile(r"^[a-z0-9]{1,32}$")


def console(request: web.Request) -> Console:
    return request.app[CONSOLE]


def signed_in(request: web.Request) -> WebSession:
    session: WebSession | None = request.get(SESSION)
    if session is None:  # the guard lets no such request through; a safety net
        raise web.HTTPFound("/login")
    return session


def is_admin(request: web.Request) -> bool:
    user = console(request).daemon.config.users.get(signed_in(request).user)
    return bool(user and user.admin)


def own_persona(request: web.Request) -> tuple[str, str]:
    """The ``{user}`` and ``{persona}`` of the path: 403 unless the user is the one signed
    in, 404 when the persona does not exist."""
    user = request.match_info["user"]
    persona = request.match_info["persona"]
    if user != signed_in(request).user:
        raise web.HTTPForbidden(text="That page belongs to another user.")
    store = console(request).daemon.store
    try:
        exists = store.directory(user, persona).is_dir()
    except Exception as exc:  # a name the store refuses
        raise web.HTTPNotFound(text="There is no such persona.") from exc
    if not exists:
        raise web.HTTPNotFound(text="There is no such persona.")
    return user, persona


def conversation_id(request: web.Request) -> str:
    conv = request.match_info["conv"]
    if not _CONVERSATION.match(conv):
        raise web.HTTPNotFound(text="There is no such conversation.")
    return conv


async def read_form(request: web.Request) -> MultiDictProxy[Any]:
    """The request's form; a body that is not one (a broken multipart, bad encoding) is a
    400 with one sentence."""
    try:
        return await request.post()
    except (BadHttpMessage, ValueError, UnicodeDecodeError, AssertionError) as exc:
        raise web.HTTPBadRequest(text=UNREADABLE_FORM) from exc


async def form_text(request: web.Request, name: str) -> str:
    value = (await read_form(request)).get(name, "")
    return value if isinstance(value, str) else ""


def redirect_with_note(
    request: web.Request, to: str, note: str, *, error: bool = False
) -> NoReturn:
    """Go to ``to`` (303), which then shows ``note``: said by the server, never read from
    the address."""
    session: WebSession | None = request.get(SESSION)
    if session is not None and note:
        console(request).notes[session.csrf] = (note, error)
    raise web.HTTPSeeOther(to)


def _note(request: web.Request) -> tuple[str, bool]:
    session: WebSession | None = request.get(SESSION)
    if session is None:
        return "", False
    return console(request).notes.pop(session.csrf, ("", False))


def render(request: web.Request, template: str, **context: Any) -> web.Response:
    session: WebSession | None = request.get(SESSION)
    daemon = console(request).daemon
    note, error = _note(request)
    base: dict[str, Any] = {
        "session": session,
        "admin": False,
        "personas": [],
        "persona": None,
        "note": note,
        "note_error": error,
    }
    if session is not None:
        base["admin"] = is_admin(request)
        base["personas"] = daemon.store.list_personas(session.user)
    base.update(context)
    return aiohttp_jinja2.render_template(template, request, base)
