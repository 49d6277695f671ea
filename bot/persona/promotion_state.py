"""What promotion remembers between sessions: how often each candidate fact was stated, and
which promotions were undone (``promotion_state.json`` in the persona's folder).

Apart from :mod:`bot.persona.promotion` so that ``/undo`` (:mod:`bot.persona.identity.undo`) can
mark a fact declined without importing the promoter, which itself writes through the identity
changelog.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from bot.daemon.disk import run_blocking
from bot.persona.atomic import atomic_write_text
from bot.persona.sessionlog.search import index_terms
from bot.persona.store import PersonaStore

if TYPE_CHECKING:
    from bot.persona.identity.changelog import Change

__all__ = ["PROMOTION_KIND", "STATE_FILE", "decline", "fact_key", "read_state", "write_state"]

#: the changelog kind of a promotion
PROMOTION_KIND = "promotion"
STATE_FILE = "promotion_state.json"

State = dict[str, dict[str, int]]


#: the terms of a subject pronoun a fact may say or leave out ("eu moro em Lisboa", "moro em
#: Lisboa"): no part of its key
_SUBJECTS = frozenset({"i", "eu", "we", "nos"})


def fact_key(text: str) -> str:
    """One key for a fact however its words are ordered or inflected, its subject pronoun
    said or not."""
    return _without_subject(index_terms(text).split())


def _without_subject(terms: list[str]) -> str:
    return " ".join(sorted(set(terms) - _SUBJECTS))


def _merged(table: object, combine: Callable[[int, int], int]) -> dict[str, int]:
    """A state table by the keys of now: a key written with a subject pronoun (as keys were
    before they left it out) counts as the one without it."""
    merged: dict[str, int] = {}
    if not isinstance(table, dict):
        return merged
    for key, value in table.items():
        if not isinstance(key, str) or not isinstance(value, int):
            continue
        now = _without_subject(key.split())
        merged[now] = combine(merged[now], value) if now in merged else value
    return merged


def read_state(path: str) -> State:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        return {
            "counts": _merged(data.get("counts", {}), operator.add),
            "declined": _merged(data.get("declined", {}), max),
        }
    except (OSError, ValueError, AttributeError):
        return {"counts": {}, "declined": {}}


async def write_state(store: PersonaStore, user: str, persona: str, state: State) -> None:
    path = store.directory(user, persona) / STATE_FILE
    text = json.dumps(state, ensure_ascii=False, sort_keys=True)
    await run_blocking(partial(atomic_write_text, root=store.data_dir), path, text)


async def decline(store: PersonaStore, user: str, persona: str, change: Change) -> None:
    """An undone promotion is not promoted again unasked (the caller holds the edit lock)."""
    path = store.directory(user, persona) / STATE_FILE
    state = await run_blocking(read_state, str(path))
    key = fact_key(change.value)
    state["counts"].pop(key, None)
    state["declined"][key] = 1
    await write_state(store, user, persona, state)
