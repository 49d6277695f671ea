"""Searching a persona's past session logs (``GET /sessions/search``).

A case- and accent-insensitive substring search over the daily files, newest day first, each
hit with a short excerpt around the match.
"""

from __future__ import annotations

import asyncio
import unicodedata
from pathlib import Path
from typing import Any

__all__ = ["fold", "search_sessions"]

_EXCERPT = 80


def fold(text: str) -> str:
    """Lowercase without accents: ``Café`` → ``cafe``. Keeps one character per character."""
    out = []
    for char in text:
        base = unicodedata.normalize("NFD", char)[0]
        out.append(base.lower() if len(base.lower()) == 1 else char)
    return "".join(out)


def _search(directory: Path, query: str, limit: int) -> list[dict[str, Any]]:
    needle = fold(query.strip())
    if not needle or not directory.is_dir():
        return []
    results: list[dict[str, Any]] = []
    for path in sorted(directory.glob("????-??-??.md"), reverse=True):
        text = path.read_text(encoding="utf-8", errors="replace")
        haystack = fold(text)
        start = 0
        excerpts: list[str] = []
        while len(excerpts) < 5:
            found = haystack.find(needle, start)
            if found < 0:
                break
            left = max(0, found - _EXCERPT)
            right = min(len(text), found + len(needle) + _EXCERPT)
            excerpts.append(text[left:right].replace("\n", " ").strip())
            start = found + len(needle)
        if excerpts:
            results.append({"date": path.stem, "excerpts": excerpts})
        if len(results) >= limit:
            break
    return results


async def search_sessions(directory: Path, query: str, *, limit: int = 30) -> list[dict[str, Any]]:
    return await asyncio.to_thread(_search, directory, query, limit)
