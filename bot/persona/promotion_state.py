"""What promotion remembers between sessions: how often each candidate fact was stated, and
which promotions were undone (``promotion_state.json`` in the persona's folder).

Apart from :mod:`bot.persona.promotion` so that ``/undo`` (:mod:`bot.persona.identity.undo`) can
mark a fact declined without importing the promoter, which itself writes through the identity
changelog.
"""

from __future__ import annotations

import json
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


def fact_key(text: str) -> str:
    """One key for a fact however its words are ordered or inflected."""
    return " ".join(sorted(set(index_terms(text).split())))


def read_state(path: str) -> State:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        return {"counts": dict(data.get("counts", {})), "declined": dict(data.get("declined", {}))}
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
