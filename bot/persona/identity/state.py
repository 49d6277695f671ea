"""How often each trait was seen, and which value each bullet holds: identity_state.json.

The file lives in the persona folder and is written through :meth:`PersonaStore.write`
(atomic). The state read last stays in memory (re-read only when the file changes), and the
observer's saves are deferred: :func:`save_state` with ``defer=True`` marks it to be written
:data:`SAVE_DELAY` seconds later, so a burst of messages costs one write; :func:`flush_states`
writes what is pending now (the daemon calls it when it stops). A crash loses at most the
last half minute of counts, which are soft state.

Per slot it keeps the sightings per value, the value applied and whether that value came
from an explicit request. Exclusive kinds compete: a sighting of one value takes one off
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

from bot.persona.store import FileText, PersonaStore

__all__ = [
    "SAVE_DELAY",
    "STATE_FILE",
    "IdentityState",
    "SlotState",
    "edit_lock",
    "flush_states",
    "load_state",
    "save_state",
]

log = structlog.get_logger(__name__)

STATE_FILE = "identity_state.json"
_VERSION = 1

#: seconds between a deferred save and its write
SAVE_DELAY = 30.0

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
        return json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"

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


@dataclass(slots=True)
class _Held:
    """One persona's state in memory: what it was read from, and whether it awaits a write."""

    state: IdentityState
    source: FileText | None
    dirty: bool = False


@dataclass(slots=True)
class _Book:
    """The states held for one store, and the timer that writes the dirty ones."""

    held: dict[tuple[str, str], _Held] = field(default_factory=dict)
    timer: asyncio.Task[None] | None = None
    writing: asyncio.Lock = field(default_factory=asyncio.Lock)


_books: weakref.WeakKeyDictionary[PersonaStore, _Book] = weakref.WeakKeyDictionary()


def _book(store: PersonaStore) -> _Book:
    book = _books.get(store)
    if book is None:
        book = _books[store] = _Book()
    return book


async def load_state(store: PersonaStore, user: str, persona: str) -> IdentityState:
    """The state (the held one while its file is unchanged or its write is pending); an
    empty one when there is none or it cannot be read. Call it holding :func:`edit_lock`."""
    book = _book(store)
    held = book.held.get((user, persona))
    file = store.read(user, persona, STATE_FILE)
    if held is not None and (held.dirty or file is held.source):
        return held.state
    state = await _parse(store, user, persona, file)
    book.held[(user, persona)] = _Held(state, file)
    return state


async def _parse(store: PersonaStore, user: str, persona: str, file: FileText) -> IdentityState:
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


async def save_state(
    store: PersonaStore, user: str, persona: str, state: IdentityState, *, defer: bool = False
) -> None:
    """Write ``state`` now, or (``defer``) within :data:`SAVE_DELAY` seconds. Call it holding
    :func:`edit_lock`."""
    book = _book(store)
    book.held[(user, persona)] = _Held(state, None, dirty=True)
    if defer:
        if book.timer is None or book.timer.done():
            book.timer = asyncio.create_task(_flush_later(store))
        return
    errors = await _flush(store, only=(user, persona))
    if errors:
        raise errors[0]


async def _flush_later(store: PersonaStore) -> None:
    await asyncio.sleep(SAVE_DELAY)
    book = _book(store)
    if book.timer is asyncio.current_task():
        book.timer = None  # a save deferred while this one writes starts a new timer
    await _flush(store)


async def flush_states(store: PersonaStore) -> None:
    """Write every deferred state of ``store`` now."""
    book = _books.get(store)
    if book is None:
        return
    timer, book.timer = book.timer, None
    if timer is not None and timer is not asyncio.current_task():
        timer.cancel()
    await _flush(store)


async def _flush(store: PersonaStore, only: tuple[str, str] | None = None) -> list[OSError]:
    """Write the dirty states (or the one of ``only``) in one trip to the disk. Writes are
    serialised, so an older text never lands after a newer one."""
    book = _book(store)
    async with book.writing:
        batch = [
            (key, held)
            for key, held in book.held.items()
            if held.dirty and (only is None or key == only)
        ]
        for _key, held in batch:
            held.dirty = False  # a change from now on marks it dirty again
        # counts are soft state: atomic, but not worth two fsyncs per write
        errors = await store.write_many(
            [(user, persona, STATE_FILE, held.state.to_json()) for (user, persona), held in batch],
            durable=False,
        )
    failed = []
    for ((user, persona), held), error in zip(batch, errors, strict=True):
        if error is not None:
            held.dirty = True
            log.error("identity.state_save_failed", error=str(error))
            failed.append(error)
        elif not held.dirty:
            held.source = store.read(user, persona, STATE_FILE)
    return failed
