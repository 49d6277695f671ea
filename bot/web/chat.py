"""Chat in the browser: a conversation page, its event stream, and sending to it.

Each conversation is a room of the ``web`` platform (``<user>:<persona>:<id>``), direct and
talking to the persona in its path. A message (commands included: the toggle for Off The
Record and the tier selector send ``/otr on`` and ``/tier N``) goes through the router like
any platform's; the answer streams back as server-sent events. A conversation's persona is
its own: ``/persona NAME`` here opens a conversation with that persona (Off The Record when
this one is) and leaves the user's default persona (the one other platforms use) as it is;
sent with files it does neither, and the page says so with the text and files still there
(a browser without scripts shows the reason on a page of its own).
An open stream of a conversation ends at its next event once its browser is signed out.
The mode indicator shows only when something other than the default is in effect: Off The
Record, or a tier other than the configured one.

"Chat" opens the conversation the user had last with that persona (the session's web rooms,
newest first, listed beside it), so visiting another page never loses it; "New conversation"
starts an empty one.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from typing import Any

from aiohttp import web

from bot.daemon.newest import keep_newest
from bot.turn.rooms import Room
from bot.web.guard import COOKIE
from bot.web.uploads import Sent, read_sent
from bot.web.views import console, conversation_id, form_text, own_persona, render

__all__ = ["PERSONA_WITH_FILES", "conversations", "mode_of", "routes"]

#: the answer to ``/persona NAME`` sent with files: neither is done
PERSONA_WITH_FILES = (
    "/persona opens another conversation and takes no files: send the files on their own,"
    " here or there."
)
#: how much of a conversation's first message names it in the list
_TITLE_CHARS = 60
#: web conversations whose persona the router holds, the ones written to last
_ROOMS_TOLD = 1024

routes = web.RouteTableDef()

_BASE = "/u/{user}/{persona}/chat"


def _room_id(user: str, persona: str, conv: str) -> str:
    return f"{user}:{persona}:{conv}"


async def mode_of(request: web.Request, user: str, persona: str, conv: str) -> dict[str, Any]:
    """What the indicator shows: Off The Record, and the tier when it is not the default."""
    daemon = console(request).daemon
    router = daemon.router
    assert router is not None
    otr = router.otr.is_on(user, Room("web", _room_id(user, persona, conv)))
    session = await router.sessions.get(user, persona)
    default = daemon.config.prompt.default_tier
    tier = session.tier if session.tier != default else None
    return {"otr": otr, "tier": tier, "default_tier": default, "current_tier": session.tier}


async def conversations(request: web.Request, user: str, persona: str) -> list[dict[str, Any]]:
    """The user's conversations with ``persona`` in the console that the session holds (today's,
    restored after a restart too), newest first: each its id, a title (its first message) and
    how many messages it has."""
    router = console(request).daemon.router
    assert router is not None
    session = await router.sessions.get(user, persona)
    prefix = f"web:{_room_id(user, persona, '')}"
    found = []
    for key, conversation in session.rooms.items():
        turns = [entry for entry in conversation.entries if entry.kind == "turn"]
        if not key.startswith(prefix) or not turns:
            continue
        first = next((e.text for e in turns if e.role == "user"), turns[0].text)
        title = " ".join(first.split())
        if len(title) > _TITLE_CHARS:
            title = title[: _TITLE_CHARS - 1].rstrip() + "…"
        found.append(
            {
                "conv": key.removeprefix(prefix),
                "title": title,
                "count": len(turns),
                "at": turns[-1].at,
            }
        )
    return sorted(found, key=lambda item: item["at"], reverse=True)


@routes.get(_BASE)
async def latest_conversation(request: web.Request) -> web.Response:
    """The conversation the user had last with this persona, or a new one."""
    user, persona = own_persona(request)
    known = await conversations(request, user, persona)
    conv = known[0]["conv"] if known else secrets.token_hex(6)
    raise web.HTTPFound(f"/u/{user}/{persona}/chat/{conv}")


@routes.get(_BASE + "/new")
async def new_conversation(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    raise web.HTTPFound(f"/u/{user}/{persona}/chat/{secrets.token_hex(6)}")


async def _restore(request: web.Request, user: str, persona: str, conv: str) -> None:
    """After a restart the feed is empty: show what the session restored of this room from
    the day's log (the room's own conversation, as the persona remembers it)."""
    adapter = console(request).adapter
    room = _room_id(user, persona, conv)
    if adapter.feeds.get(room) is not None:
        return
    router = console(request).daemon.router
    assert router is not None
    session = await router.sessions.get(user, persona)
    feed = adapter.feed(room)
    for index, entry in enumerate(session.entries(Room("web", room))):
        if entry.kind == "turn":
            role = "user" if entry.role == "user" else "persona"
            feed.say(f"r{index}", role, entry.text)


@routes.get(_BASE + "/{conv}")
async def conversation(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    conv = conversation_id(request)
    await _restore(request, user, persona, conv)
    feed = console(request).adapter.feed(_room_id(user, persona, conv))
    return render(
        request,
        "chat.html",
        persona=persona,
        conv=conv,
        messages=list(feed.messages.values()),
        mode=await mode_of(request, user, persona, conv),
        conversations=await conversations(request, user, persona),
    )


def _persona_asked(request: web.Request, user: str, text: str) -> str | None:
    """The persona a ``/persona NAME`` asks for, when it is one of the user's; an unknown
    name goes to the router like any command, which says what is wrong."""
    words = text.split()
    if len(words) != 2 or words[0].lower() != "/persona":
        return None
    names = console(request).daemon.store.list_personas(user)
    return words[1] if words[1] in names else None


async def _switch(request: web.Request, user: str, persona: str, conv: str, wanted: str) -> str:
    """Where ``/persona wanted`` leads: a new conversation with that persona, Off The Record
    when this one is (what the user meant to keep out of the logs stays out)."""
    if wanted == persona:
        return f"/u/{user}/{persona}/chat/{conv}"
    router = console(request).daemon.router
    assert router is not None
    fresh = secrets.token_hex(6)
    if router.otr.is_on(user, Room("web", _room_id(user, persona, conv))):
        await router.otr.switch(user, Room("web", _room_id(user, wanted, fresh)), True)
    return f"/u/{user}/{wanted}/chat/{fresh}"


async def _sent(request: web.Request) -> Sent:
    """The message posted: a multipart body (files may come) is read into memory by
    :mod:`bot.web.uploads`, never through aiohttp's reader (it spools files to disk)."""
    if request.content_type != "multipart/form-data":
        return Sent(await form_text(request, "text"))
    media = console(request).daemon.config.media
    limit = max(media.max_image_bytes, media.max_audio_bytes, media.max_document_bytes)
    return await read_sent(request, file_limit=limit, max_files=media.max_attachments)


@routes.post(_BASE + "/{conv}")
async def send(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    conv = conversation_id(request)
    sent = await _sent(request)
    text = sent.text.strip()
    wanted = _persona_asked(request, user, text)
    if wanted is not None and sent.uploads:
        # the files would be left behind in this conversation, unread: nothing is done,
        # and the page keeps the text and the files for the user to send apart
        raise web.HTTPUnprocessableEntity(text=PERSONA_WITH_FILES)
    if wanted is not None:
        target = await _switch(request, user, persona, conv, wanted)
        if request.headers.get("X-CSRF-Token"):
            return web.json_response({"location": target})
        raise web.HTTPSeeOther(target)
    if text or sent.uploads:
        router = console(request).daemon.router
        assert router is not None
        room = _room_id(user, persona, conv)
        # the conversations written to last are known (each message tells it again): a
        # console used for months does not keep every conversation it ever had
        keep_newest(router.room_persona, f"web:{room}", persona, _ROOMS_TOLD)
        console(request).adapter.submit(user, room, text, sent.uploads)
    if request.headers.get("X-CSRF-Token"):  # the page's script: it reads the stream
        return web.Response(status=204)
    raise web.HTTPSeeOther(f"/u/{user}/{persona}/chat/{conv}")


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


@routes.get(_BASE + "/{conv}/events")
async def events(request: web.Request) -> web.StreamResponse:
    user, persona = own_persona(request)
    conv = conversation_id(request)
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
    )
    await response.prepare(request)
    cookie = request.cookies.get(COOKIE, "")
    with contextlib.suppress(ConnectionError):  # the page was closed
        async for event in console(request).adapter.listen(_room_id(user, persona, conv)):
            if await console(request).store.session(cookie) is None:
                break  # signed out meanwhile (`personad web logout`, "Sign out" elsewhere)
            await response.write(_event(event["type"], event))
            if event["type"] == "done":
                await response.write(_event("mode", await mode_of(request, user, persona, conv)))
    return response
