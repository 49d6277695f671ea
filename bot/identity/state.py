"""How often each trait was seen, and which value each bullet holds: identity_state.json.

The file lives in the persona folder and is written through :meth:`PersonaStore.write`
(atomic). Per slot it keeps the sightings per value, the value applied and whether that value
came from an explicit request. Exclusive kinds compete: a sighting of one value takes one off
each other value of the same slot, so an inferred trait needs to *dominate*, not merely to
have happened twice over months; counts stop at twice the threshold, so a habit can be
outgrown in a bounded number of messages. A state file that cannot be read is moved aside (never
deleted) and counting starts again.

:func:`edit_lock` is the one lock around every read-modify-write of a persona's identity
(files, changelog and this state), shared by the observer and ``/undo``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from bot.persona.store import PersonaStore

__all__ = ["STATE_FILE", "IdentityState", "SlotState", "edit_lock", "load_state", "save_state"]

log = structlog.get_logger(__name__)

STATE_FILE = "identity_state.json"
_VERSION = 1

_locks: weakref.WeakKeyDictionary[PersonaStore, dict[Path, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def edit_lock(store: PersonaStore, user: str, persona: str) -> asyncio.Lock:
    """The lock serialising identity edits of one persona of ``store``."""
    per_store = _locks.setdefault(store, {})
    directory = store.directory(user, persona)
    lock = per_store.get(directory)
    if lock is None:
        lock = per_store[directory] = asyncio.Lock()
    return lock


@dataclass(slots=True)
class SlotState:
    counts: dict[str, int] = field(default_factory=dict)
    applied: str | None = None
    explicit: bool = False

    def see(self, value: str, *, compete: bool, cap: int) -> int:
        """Count one sighting of ``value`` (at most ``cap``, so an old habit can be outgrown
        in a bounded number of messages); return its count."""
        if compete:
            for other in [v for v in self.counts if v != value]:
                self.counts[other] -= 1
                if self.counts[other] <= 0:
                    del self.counts[other]
        self.counts[value] = min(self.counts.get(value, 0) + 1, cap)
        return self.counts[value]


@dataclass(slots=True)
class IdentityState:
    slots: dict[str, SlotState] = field(default_factory=dict)

    def slot(self, key: str) -> SlotState:
        found = self.slots.get(key)
        if found is None:
            found = self.slots[key] = SlotState()
        return found

    def to_json(self) -> str:
        data = {
            "version": _VERSION,
            "slots": {
                key: {"counts": s.counts, "applied": s.applied, "explicit": s.explicit}
                for key, s in sorted(self.slots.items())
            },
        }
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> IdentityState:
        data: Any = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("slots"), dict):
            raise ValueError("no 'slots' object")
        state = cls()
        for key, raw in data["slots"].items():
            counts = raw.get("counts", {})
            if not isinstance(counts, dict) or not all(
                isinstance(k, str) and isinstance(v, int) for k, v in counts.items()
            ):
                raise ValueError(f"slot {key!r}: counts must map text to whole numbers")
            applied = raw.get("applied")
            state.slots[str(key)] = SlotState(
                dict(counts),
                applied if isinstance(applied, str) else None,
                bool(raw.get("explicit", False)),
            )
        return state


async def load_state(store: PersonaStore, user: str, persona: str) -> IdentityState:
    """The saved state; an empty one when there is none or it cannot be read."""
    file = store.read(user, persona, STATE_FILE)
    if file.problem is None and not file.text.strip():
        return IdentityState()
    try:
        if file.problem:
            raise ValueError(file.problem)
        return IdentityState.from_json(file.text)
    except (ValueError, AttributeError) as exc:
        path = store.file_path(user, persona, STATE_FILE)
        aside = path.with_name(f"identity_state.unreadable-{int(time.time())}.json")
        await asyncio.to_thread(os.replace, path, aside)
        log.warning("identity.state_unreadable", error=str(exc), moved_to=aside.name)
        return IdentityState()


async def save_state(store: PersonaStore, user: str, persona: str, state: IdentityState) -> None:
    # counts are soft state: atomic, but not worth two fsyncs on every message
    await store.write(user, persona, STATE_FILE, state.to_json(), durable=False)
