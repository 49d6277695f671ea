"""JSON list files of a persona (TASKS.json, CRONS.json): loaded, edited one change at a
time, written back atomically, and never overwritten when they cannot be read.

A file that is not valid JSON, or not a list of objects, raises :class:`CorruptFile` whose
message says how to fix it, because the file may hold the user's hand edits. Keys the code
does not know are kept as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from bot.persona.store import PersonaStore
from bot.tools.registry import ToolFailed, saving

__all__ = [
    "CorruptFile",
    "Item",
    "corrupt_file_as_tool_failure",
    "edit_json_list",
    "load_json_list",
]

T = TypeVar("T")
Item = dict[str, Any]


class CorruptFile(Exception):
    """A JSON list file that cannot be read as one; its message says how to fix it."""


def load_json_list(store: PersonaStore, user: str, persona: str, filename: str) -> list[Item]:
    """The objects of a JSON list file; a missing or empty file is an empty list."""
    file = store.read(user, persona, filename)
    if file.problem:
        raise CorruptFile(f"{file.problem}; fix {filename} by hand, it was left untouched")
    if not file.text.strip():
        return []
    try:
        data = json.loads(file.text)
    except json.JSONDecodeError as exc:
        raise CorruptFile(
            f"{filename} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg});"
            f" it was left untouched, fix it by hand"
        ) from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise CorruptFile(
            f"{filename} must be a JSON list of objects; it was left untouched, fix it by hand"
        )
    return data


@contextlib.contextmanager
def corrupt_file_as_tool_failure(filename: str) -> Iterator[None]:
    """Inside a tool: a :class:`CorruptFile` becomes a ToolFailed asking the user to repair
    ``filename``, and a file that cannot be written one saying nothing changed."""
    try:
        with saving(filename):
            yield
    except CorruptFile as exc:
        raise ToolFailed(f"{exc}. Ask the user to repair {filename}.") from None


_locks: weakref.WeakKeyDictionary[PersonaStore, dict[tuple[str, str, str], asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


async def edit_json_list(
    store: PersonaStore,
    user: str,
    persona: str,
    filename: str,
    change: Callable[[list[Item]], T],
) -> T:
    """Load the list, let ``change`` edit it in place, write it back atomically; returns what
    ``change`` returned. Edits of one file run one at a time; an exception from ``change``
    (or :class:`CorruptFile` from loading) leaves the file untouched."""
    lock = _locks.setdefault(store, {}).setdefault((user, persona, filename), asyncio.Lock())
    async with lock:
        items = load_json_list(store, user, persona, filename)
        result = change(items)
        text = json.dumps(items, indent=2, ensure_ascii=False) + "\n"
        await store.write(user, persona, filename, text)
        return result
