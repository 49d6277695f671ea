"""Searching a persona's past session logs, for ``GET /sessions/search`` and ``/search``.

Words match whatever their case, accents and inflection: each word is folded (``Café`` →
``cafe``) and stemmed in English and in Portuguese (``trips`` → ``trip``, ``viagens`` →
``viagen``), both stems kept, and a query word matches a logged word sharing either stem. Every
query word must appear in the turn. The search runs on an index
(:mod:`bot.persona.sessionlog.index`), not a scan of the files. Results are grouped by date, newest
first, each turn with an excerpt whose matched words are marked: as ``**bold**`` in the excerpt
text, and as character spans (``marks``) in the API's JSON.

Room privacy: from a shared room only turns said in that same room are searched (its members
saw them); from a direct room, and through the admin API, every room's turns are.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import Stemmer

from bot.daemon.disk import run_blocking
from bot.persona.sessionlog.index import IndexedTurn, SessionIndex

__all__ = [
    "MAX_QUERY",
    "close_indexes",
    "fold",
    "highlight",
    "search_sessions",
    "word_keys",
]

#: the longest query, in characters, that ``/search`` and ``GET /sessions/search`` take
MAX_QUERY = 500
_WORD = re.compile(r"\w+")
_EXCERPT = 80
_HITS_PER_DAY = 5
#: a Snowball stemmer is not safe to share between threads (searches run in disk threads,
#: marking on the event loop): each thread has its own pair
_local = threading.local()
_INDEXES: dict[Path, SessionIndex] = {}


def fold(text: str) -> str:
    """Lowercase without accents, full-width forms as their plain letters and digits:
    ``Café`` → ``cafe``, ``ｐａｓｓ`` → ``pass``. Keeps one character per character (a
    ligature such as ``ﬁ``, two letters, stays as it is)."""
    out = []
    for char in text:
        base = "".join(
            part for part in unicodedata.normalize("NFKD", char) if not unicodedata.combining(part)
        )
        if len(base) != 1:
            base = unicodedata.normalize("NFD", char)[0]
        out.append(base.lower() if len(base.lower()) == 1 else char)
    return "".join(out)


@lru_cache(maxsize=65536)
def word_keys(word: str) -> tuple[str, ...]:
    """The index keys of one word: its folded English and Portuguese stems (one if equal)."""
    folded = fold(word)
    return tuple(dict.fromkeys(stemmer.stemWord(folded) for stemmer in _stemmers()))


def _stemmers() -> tuple[Stemmer.Stemmer, Stemmer.Stemmer]:
    pair: tuple[Stemmer.Stemmer, Stemmer.Stemmer] | None = getattr(_local, "pair", None)
    if pair is None:
        pair = _local.pair = (Stemmer.Stemmer("english"), Stemmer.Stemmer("portuguese"))
    return pair


def index_terms(text: str) -> str:
    """What the index stores for a turn's text: every key of every word."""
    return " ".join(key for word in _WORD.findall(text) for key in word_keys(word))


def _match_expression(query: str) -> tuple[str, set[str]]:
    """The FTS5 expression for ``query`` (each word by either stem, all words required) and
    the set of keys that count as a match when marking."""
    groups: list[str] = []
    keys: set[str] = set()
    for word in dict.fromkeys(_WORD.findall(query)):
        found = word_keys(word)
        keys.update(found)
        groups.append("(" + " OR ".join(f'"{key}"' for key in found) + ")")
    return " AND ".join(groups), keys


@dataclass(frozen=True, slots=True)
class Marked:
    text: str
    marks: list[tuple[int, int]]

    @property
    def bold(self) -> str:
        parts, last = [], 0
        for start, end in self.marks:
            parts.append(self.text[last:start] + "**" + self.text[start:end] + "**")
            last = end
        return "".join(parts) + self.text[last:]


def highlight(text: str, keys: set[str]) -> Marked:
    """An excerpt of ``text`` around its first matching word, the matching words marked."""
    flat = " ".join(text.split())
    words = _WORD.finditer(flat)
    spans = [(m.start(), m.end()) for m in words if keys.intersection(word_keys(m.group()))]
    if not spans:
        return Marked(flat[: 2 * _EXCERPT], [])
    left = max(0, spans[0][0] - _EXCERPT)
    right = min(len(flat), spans[0][1] + _EXCERPT)
    while left > 0 and not flat[left - 1].isspace():  # never cut a word in two
        left -= 1
    while right < len(flat) and not flat[right].isspace():
        right += 1
    prefix = "…" if left else ""
    excerpt = prefix + flat[left:right] + ("…" if right < len(flat) else "")
    shift = len(prefix) - left
    marks = [(start + shift, end + shift) for start, end in spans if left <= start and end <= right]
    return Marked(excerpt, marks)


def _group(turns: list[IndexedTurn], keys: set[str]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for turn in turns:
        if not results or results[-1]["date"] != turn.day:
            results.append({"date": turn.day, "hits": [], "excerpts": []})
        group = results[-1]
        marked = highlight(turn.text, keys)
        group["hits"].append(
            {
                "time": turn.clock,
                "role": turn.role,
                "room": turn.room,
                "excerpt": marked.text,
                "marks": [list(span) for span in marked.marks],
                "highlighted": marked.bold,
            }
        )
        group["excerpts"].append(marked.bold)
    for group in results:  # a day's hits read in the order they were said
        group["hits"].reverse()
        group["excerpts"].reverse()
    return results


def _index_for(persona_dir: Path, persona: str) -> SessionIndex:
    index = _INDEXES.get(persona_dir)
    if index is None:
        index = _INDEXES[persona_dir] = SessionIndex(persona_dir, persona, index_terms)
    return index


def close_indexes() -> None:
    """Close every open index (the daemon's stop)."""
    for index in _INDEXES.values():
        index.close()
    _INDEXES.clear()


def _search(
    persona_dir: Path, persona: str, query: str, room: str | None, days: int, shared_only: bool
) -> list[dict[str, Any]]:
    match, keys = _match_expression(query)
    if not match:
        return []
    index = _index_for(persona_dir, persona)
    turns = index.search(
        match, room=room, days=days, per_day=_HITS_PER_DAY, shared_only=shared_only
    )
    return _group(turns, keys)


async def search_sessions(
    persona_dir: Path,
    persona: str,
    query: str,
    *,
    room: str | None = None,
    days: int = 30,
    shared_only: bool = False,
) -> list[dict[str, Any]]:
    """Up to ``days`` dates whose turns hold every word of ``query``, newest first, each with
    up to five marked excerpts; only turns of ``room`` when given, and with ``shared_only``
    only those said while it was a shared room."""
    return await run_blocking(_search, persona_dir, persona, query, room, days, shared_only)
