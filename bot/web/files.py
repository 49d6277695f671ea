"""The Files panel: every persona file against its limit, viewing and editing, the changelog.

Edits go through :func:`bot.persona.edits.edit_file` (the store's atomic writer, the identity
edit lock, an ``edit`` entry in the changelog) and every changelog entry not undone yet has an
Undo. SOUL.md, the persona's values, is saved only after its user confirms. A text over the
file's limit is saved (nothing is lost) with a warning that the prompt will cut it; a JSON
file that does not parse is refused with the text kept in the form.

Beside the persona's own files the panel lists what is shared with every room
(``shared/USER.md``, ``shared/MEMORY.md``) and each shared room's own files
(``rooms/<room>/...``), each with the audience it is read by (:mod:`bot.turn.audience`).
"""

from __future__ import annotations

import difflib
import json

from aiohttp import web
from markupsafe import Markup

from bot.commands.table import COMMANDS
from bot.daemon.errors import PersonaError
from bot.persona.edits import edit_file, undo_change, undoable_changes
from bot.persona.identity.changelog import Change, read_changes
from bot.persona.store import PERSONA_FILES
from bot.turn.audience import (
    ROOM_FILES,
    SHARED_FILES,
    SHARED_FOLDER,
    Audience,
    describe,
    label_of_path,
    room_of_folder,
)
from bot.web.markup import render_message
from bot.web.views import console, form_text, is_admin, own_persona, redirect_with_note, render

__all__ = ["NEAR_LIMIT", "routes"]

routes = web.RouteTableDef()

#: the share of a file's limit from which its bar turns amber
NEAR_LIMIT = 0.8
#: files the prompt never loads, so they have no limit
_UNLIMITED = ("HELP.md", "CRONS.json")
_BASE = "/u/{user}/{persona}/files"
#: a file's name in an address: ``NAME``, ``shared/NAME`` or ``rooms/ROOM/NAME``
_NAME = "{name:(?:shared/|rooms/[^/]+/)?[^/]+}"
_SHARED_PATHS = tuple(f"{SHARED_FOLDER}/{name}" for name in SHARED_FILES)


def _limit(request: web.Request, filename: str) -> int | None:
    name = filename.rpartition("/")[2]
    if name in _UNLIMITED:
        return None
    return console(request).daemon.config.prompt.limit(name)


def _panel_files(request: web.Request, user: str, persona: str) -> list[str]:
    """The persona's files, then what every room shares, then each shared room's own."""
    store = console(request).daemon.store
    names = [*PERSONA_FILES, *_SHARED_PATHS]
    for room in store.shared_rooms(user, persona):
        audience = Audience(room)
        names += sorted(audience.own(name) for name in ROOM_FILES)
    return names


def _usage(size: int, limit: int | None) -> dict[str, object]:
    if limit is None:
        return {"size": size, "limit": None, "percent": 0, "level": "none"}
    share = size / limit if limit else 1.0
    level = "over" if share > 1 else "near" if share >= NEAR_LIMIT else "ok"
    return {"size": size, "limit": limit, "percent": min(100, round(share * 100)), "level": level}


def _shared_help(admin: bool) -> str:
    return "\n".join(
        f"- `/{c.name}{(' ' + c.usage) if c.usage else ''}`: {c.summary}"
        for c in COMMANDS.values()
        if admin or not c.admin
    )


def change_diff(change: Change) -> list[tuple[str, str]]:
    """What a changelog entry changed, as ``(mark, line)`` pairs (``+`` added, ``-`` taken
    out, `` `` a line of context), so Undo is never blind."""
    before = change.section_before.splitlines()
    after = change.section_after.splitlines()
    lines = []
    for line in difflib.unified_diff(before, after, n=1, lineterm=""):
        if line.startswith(("---", "+++", "@@")):
            continue
        lines.append((line[:1], line[1:]))
    return lines


def _markdown(text: str) -> Markup:
    """Markdown as HTML in the chat's safe subset: any HTML in the text shows as typed."""
    return Markup(render_message(text))  # render_message escapes any raw HTML


@routes.get(_BASE)
async def panel(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    store = console(request).daemon.store
    files = []
    for name in _panel_files(request, user, persona):
        file = await store.load(user, persona, name)
        if "/" in name and not file.text and name not in _SHARED_PATHS:
            continue  # a room's file not written yet
        usage = _usage(len(file.text), _limit(request, name))
        audience = "" if "/" not in name else describe(label_of_path(name))
        files.append({"name": name, "problem": file.problem, "audience": audience, **usage})
    changes = await read_changes(store, user, persona)
    undoable = {c.id for c in undoable_changes(changes)}
    diffs = {change.id: change_diff(change) for change in changes}
    persona_help = store.read(user, persona, "HELP.md").text
    return render(
        request,
        "files.html",
        persona=persona,
        files=files,
        changes=list(reversed(changes)),
        undoable=undoable,
        diffs=diffs,
        shared_help=_markdown(_shared_help(is_admin(request))),
        persona_help=_markdown(persona_help),
    )


def _editable(filename: str) -> str:
    parts = filename.split("/")
    if (
        filename in PERSONA_FILES
        or filename in _SHARED_PATHS
        or (len(parts) == 3 and room_of_folder(parts[1]) is not None and parts[2] in ROOM_FILES)
    ):
        return filename
    raise web.HTTPNotFound(text="There is no such persona file.")


async def _editor(
    request: web.Request, filename: str, text: str, problem: str = "", status: int = 200
) -> web.Response:
    _user, persona = own_persona(request)
    response = render(
        request,
        "file.html",
        persona=persona,
        filename=filename,
        text=text,
        usage=_usage(len(text), _limit(request, filename)),
        problem=problem,
        saved=request.query.get("saved") == "1",
    )
    response.set_status(status)
    return response


@routes.get(_BASE + "/" + _NAME)
async def view(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    filename = _editable(request.match_info["name"])
    file = await console(request).daemon.store.load_whole(user, persona, filename)
    return await _editor(request, filename, file.text, file.problem or "")


@routes.post(_BASE + "/" + _NAME)
async def save(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    filename = _editable(request.match_info["name"])
    text = (await form_text(request, "text")).replace("\r\n", "\n")
    if filename == "SOUL.md" and await form_text(request, "confirm") != "yes":
        return await _editor(
            request,
            filename,
            text,
            "SOUL.md holds the persona's values: tick the box to confirm you mean to change them.",
            400,
        )
    if filename.endswith(".json"):
        try:
            if not isinstance(json.loads(text), list):
                raise ValueError("not a list")
        except ValueError:
            return await _editor(
                request,
                filename,
                text,
                f"{filename} must be a JSON list"
                " ([...]); nothing was saved, your text is still here.",
                400,
            )
    try:
        await edit_file(console(request).daemon.store, user, persona, filename, text, by=user)
    except PersonaError as exc:
        return await _editor(request, filename, text, exc.user_message, 409)
    raise web.HTTPSeeOther(f"/u/{user}/{persona}/files/{filename}?saved=1")


@routes.post("/u/{user}/{persona}/changelog/{change}/undo")
async def undo(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    try:
        change = int(request.match_info["change"])
    except ValueError as exc:
        raise web.HTTPNotFound(text="There is no such change.") from exc
    answer = await undo_change(console(request).daemon.store, user, persona, change, by=user)
    redirect_with_note(request, f"/u/{user}/{persona}/files", answer)
