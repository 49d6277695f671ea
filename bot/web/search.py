"""The search box of the Files panel: past conversations by date, and memories.

Conversations are searched like ``GET /sessions/search``, on the session index: every word
of the query is required and matches whatever its case, accents and inflection; the results
are grouped by day with the matched words marked. The memory tab searches the persona's
memory backend: each hit with its citation, its score and the parts the score is made of, its
words marked the same way (whole words, by stem), an explanation page, Forget, and an export
of everything as JSON. Every piece of text reaches the page through the template's escaping,
the marks included.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from aiohttp import web

from bot.memory.base import MemoryBackend, MemoryHit
from bot.persona.sessionlog.search import highlight, search_sessions, word_keys
from bot.web.views import console, form_text, own_persona, render

__all__ = ["marked_words", "routes"]

routes = web.RouteTableDef()

_BASE = "/u/{user}/{persona}"
_WORD = re.compile(r"\w+")


def _marked(text: str, marks: list[list[int]]) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, matched) parts at the index's marks."""
    parts: list[tuple[str, bool]] = []
    at = 0
    for start, end in marks:
        if start > at:
            parts.append((text[at:start], False))
        parts.append((text[start:end], True))
        at = end
    if at < len(text):
        parts.append((text[at:], False))
    return parts


def marked_words(text: str, query: str) -> list[tuple[str, bool]]:
    """An excerpt of ``text`` cut into (piece, matched) parts: the words sharing a stem with a
    word of ``query`` are marked, as the conversation search marks them."""
    keys = {key for word in _WORD.findall(query) for key in word_keys(word)}
    excerpt = highlight(text, keys)
    return _marked(excerpt.text, [list(span) for span in excerpt.marks])


def _day(stamp: str) -> str:
    try:
        return date.fromisoformat(stamp).strftime("%A %-d %B %Y")
    except ValueError:
        return stamp


async def _memory(request: web.Request, user: str, persona: str) -> MemoryBackend | None:
    router = console(request).daemon.router
    assert router is not None
    return (await router.sessions.get(user, persona)).memory


#: what each part of a memory's score measures, in a person's words
PART_WORDS = {
    "bm25": "words in common",
    "cosine": "meaning",
    "recency": "how recent",
    "importance": "kind of memory",
    "time": "said in the time asked about",
    "says_when": "names a time (asked when)",
    "names_work": "names a line of work (asked about work)",
    "answer": "answers the question",
    "structure": "same subject",
    "lexical": "words in common",
}


def readable(hit: MemoryHit, best: float) -> dict[str, Any]:
    """A hit's score as a person reads it: how strong a match, against the best one found
    (100%), and the share of each part in its own score."""
    strength = round(100 * hit.score / best) if best > 0 else 0
    parts = [
        (PART_WORDS.get(name, name), round(100 * value / hit.score))
        for name, value in sorted(hit.parts.items(), key=lambda part: -part[1])
        if value > 0 and hit.score > 0
    ]
    return {"strength": strength, "parts": [(name, share) for name, share in parts if share]}


@routes.get(_BASE + "/search")
async def search(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    query = request.query.get("q", "").strip()
    where = "memory" if request.query.get("in") == "memory" else "sessions"
    days: list[dict[str, Any]] = []
    hits: list[Any] = []
    memory_off = False
    if query and where == "sessions":
        directory = console(request).daemon.store.directory(user, persona)
        for result in await search_sessions(directory, persona, query):
            days.append(
                {
                    "date": result["date"],
                    "day": _day(result["date"]),
                    "excerpts": [_marked(hit["excerpt"], hit["marks"]) for hit in result["hits"]],
                }
            )
    elif query:
        memory = await _memory(request, user, persona)
        memory_off = memory is None
        if memory is not None:
            found = await memory.search(query, limit=20)
            best = max((hit.score for hit in found), default=0.0)
            hits = [
                {
                    "hit": hit,
                    "text": marked_words(hit.item.text, query),
                    "score": readable(hit, best),
                }
                for hit in found
            ]
    return render(
        request,
        "search.html",
        persona=persona,
        query=query,
        where=where,
        days=days,
        hits=hits,
        memory_off=memory_off,
    )


@routes.get(_BASE + "/memory/export")
async def export(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    memory = await _memory(request, user, persona)
    items = await memory.export() if memory is not None else []
    body = json.dumps(
        {"user": user, "persona": persona, "items": items},
        indent=2,
        ensure_ascii=False,
        default=str,
    )
    return web.Response(
        text=body + "\n",
        content_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{persona}-memories.json"'},
    )


@routes.get(_BASE + "/memory/{item}")
async def explain(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    memory = await _memory(request, user, persona)
    details: dict[str, Any] = {}
    if memory is not None:
        try:
            details = await memory.explain(request.match_info["item"])
        except KeyError:
            details = {}
    if not details:
        raise web.HTTPNotFound(text="There is no such memory.")
    history = details.pop("history", None)
    events = history if isinstance(history, list) else []
    rows = [
        (
            key,
            json.dumps(value, ensure_ascii=False, default=str)
            if not isinstance(value, str)
            else value,
        )
        for key, value in details.items()
    ]
    query = request.query.get("q", "").strip()
    scored = None
    if query and memory is not None:  # the score this item had in that search, part by part
        hits = await memory.search(query, limit=50)
        scored = next((h for h in hits if str(h.item.id) == request.match_info["item"]), None)
    return render(
        request,
        "memory_item.html",
        persona=persona,
        item=request.match_info["item"],
        rows=rows,
        history=[e for e in events if isinstance(e, dict)],
        query=query,
        scored=scored,
    )


@routes.post(_BASE + "/memory/{item}/forget")
async def forget(request: web.Request) -> web.Response:
    """Forget a memory, once its user has confirmed it on a page that shows what it is."""
    user, persona = own_persona(request)
    memory = await _memory(request, user, persona)
    item = request.match_info["item"]
    if await form_text(request, "confirm") != "yes":
        text = ""
        if memory is not None:
            try:
                text = str((await memory.explain(item)).get("text", ""))
            except (KeyError, ValueError):
                text = ""
        return render(request, "memory_forget.html", persona=persona, item=item, text=text)
    forgotten = memory is not None and await memory.forget(item)
    note = (
        "Forgotten: it stays in the store as forgotten and is never recalled again."
        if (forgotten)
        else "There is no such memory."
    )
    return render(request, "memory_item.html", persona=persona, item=item, rows=[], note=note)
