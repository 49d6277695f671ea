"""CRONS.json, the persona's own scheduled jobs, and every change made to it.

CRONS.json is a JSON list of objects::

    [{"id": 1, "schedule": "0 7 * * 1-5", "prompt": "Give me a short morning briefing.",
      "enabled": true, "created": "2026-11-30T09:00:00-05:00",
      "last_run": "2026-12-01T07:00:02-05:00"}]

It is read and written through :mod:`bot.tools.jsonlist` (one change at a time, atomically,
never over a file that cannot be read). Every change goes through :func:`edit_crons`, which
also prunes removed jobs: ``cron_remove`` disables a job and stamps ``disabled_at``; such a
job stays visible in the file for :data:`KEEP_REMOVED` and at most :data:`MAX_REMOVED` of
them are kept (the latest removed), so adding and removing jobs cannot grow the file without
end. A job disabled by hand (``"enabled": false`` without ``disabled_at``) is the user's and
is never pruned. Every job needs an id of its own, by which its runs are recorded and its
answers named: :func:`number_jobs` gives one to a job written by hand without it, or copied
with another's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot.persona.store import PersonaStore
from bot.tools.jsonlist import Item, edit_json_list

__all__ = [
    "FILENAME",
    "KEEP_REMOVED",
    "MAX_REMOVED",
    "NO_PROMPT",
    "edit_crons",
    "has_prompt",
    "is_enabled",
    "last_seen",
    "number_jobs",
    "numbered",
    "prune_removed",
    "stamp_of",
    "update_job",
]

T = TypeVar("T")

FILENAME = "CRONS.json"
#: how long a removed job stays in the file
KEEP_REMOVED = timedelta(days=7)
#: removed jobs kept at most (the most recently removed)
MAX_REMOVED = 20


def stamp_of(value: object) -> datetime | None:
    """A time-zone aware ISO time stamp of the file, or None."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def is_enabled(job: Item) -> bool:
    return job.get("enabled", True) is not False


#: why a job without a prompt is not run (its ``last_error``, and ``cron_list`` says so)
NO_PROMPT = "the job has no prompt, so there is nothing to ask; give it a 'prompt'"


def has_prompt(job: Item) -> bool:
    """Whether the job says what to do (a hand-written one may not)."""
    prompt = job.get("prompt")
    return isinstance(prompt, str) and bool(prompt.strip())


def _has_id(job: Item) -> bool:
    return job.get("id") is not None


def numbered(items: list[Item]) -> bool:
    """Whether every job has an id of its own (none missing, none given twice)."""
    seen: list[object] = []
    for item in items:
        if not _has_id(item) or item["id"] in seen:
            return False
        seen.append(item["id"])
    return True


def number_jobs(items: list[Item]) -> list[Item]:
    """Give each job without an id, or with one an earlier job has (a job copied by hand),
    the next free number, as ``cron_add`` would; the first holder keeps its id. Returns
    ``items``, changed in place."""
    numbers = [item["id"] for item in items if type(item.get("id")) is int]
    following = max(numbers, default=0) + 1
    seen: list[object] = []
    for item in items:
        if _has_id(item) and item["id"] not in seen:
            seen.append(item["id"])
            continue
        item["id"] = following
        following += 1
    return items


def last_seen(job: Item) -> datetime | None:
    """When the job last ran, was tried, or was created, whichever is latest."""
    stamps = [stamp_of(job.get(key)) for key in ("last_run", "last_attempt", "created")]
    known = [stamp for stamp in stamps if stamp is not None]
    return max(known) if known else None


def prune_removed(items: list[Item], now: datetime) -> int:
    """Drop removed jobs older than :data:`KEEP_REMOVED` and all but the latest
    :data:`MAX_REMOVED` removed ones, in place; returns how many were dropped."""
    removed = [
        (stamp, index)
        for index, item in enumerate(items)
        if not is_enabled(item) and (stamp := stamp_of(item.get("disabled_at"))) is not None
    ]
    removed.sort(reverse=True)  # latest first
    drop = {
        index
        for rank, (stamp, index) in enumerate(removed)
        if rank >= MAX_REMOVED or now - stamp > KEEP_REMOVED
    }
    if drop:
        items[:] = [item for index, item in enumerate(items) if index not in drop]
    return len(drop)


async def edit_crons(
    store: PersonaStore,
    user: str,
    persona: str,
    change: Callable[[list[Item]], T],
    now: datetime,
    path: str = FILENAME,
) -> T:
    """Apply ``change`` to the jobs (of CRONS.json, or an audience's copy at ``path``) and
    prune removed ones, in one atomic write."""

    def apply(items: list[Item]) -> T:
        result = change(items)
        prune_removed(items, now)
        return result

    return await edit_json_list(store, user, persona, path, apply)


async def update_job(
    store: PersonaStore,
    user: str,
    persona: str,
    job_id: object,
    now: datetime,
    set_: dict[str, Any],
    drop: tuple[str, ...] = (),
    path: str = FILENAME,
) -> None:
    """Set ``set_`` and remove the keys ``drop`` on the job ``job_id``, as it is in the file
    now (the user may have edited it meanwhile)."""

    def change(items: list[Item]) -> None:
        for item in items:
            if item.get("id") == job_id:
                item.update(set_)
                for key in drop:
                    item.pop(key, None)

    await edit_crons(store, user, persona, change, now, path)
