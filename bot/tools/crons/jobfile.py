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
is never pruned. ``enabled`` is true or false (a job without it is enabled); anything else
(``0``, ``"no"``) is no answer, so such a job does not run and says why
(:func:`why_it_cannot_run`) until the user writes one. Every job needs an id of its own, a
whole number above 0 (as :func:`next_free_id` gives), by which its runs are recorded and its
answers named: :func:`number_jobs` gives one to a job written by hand without it (or with
one that is no whole number), or copied with another's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeGuard, TypeVar

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
    "next_free_id",
    "number_jobs",
    "numbered",
    "prune_removed",
    "stamp_of",
    "update_job",
    "why_it_cannot_run",
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
    """Whether the job is the user's live one (not turned off): one whose ``enabled`` cannot
    be read stays listed and removable, but does not run (:func:`why_it_cannot_run`)."""
    return job.get("enabled", True) is not False


#: why a job without a prompt is not run (its ``last_error``, and ``cron_list`` says so)
NO_PROMPT = "the job has no prompt, so there is nothing to ask; give it a 'prompt'"


def has_prompt(job: Item) -> bool:
    """Whether the job says what to do (a hand-written one may not)."""
    prompt = job.get("prompt")
    return isinstance(prompt, str) and bool(prompt.strip())


def why_it_cannot_run(job: Item) -> str | None:
    """Why a job not turned off still does not run, as its ``last_error``, ``cron_list`` and
    the web console's schedule page say it; None when it can. Its ``enabled`` is neither true
    nor false (``0``, ``"no"``; written by hand: whether the user wants it is unknown), or it
    has no prompt (asked without one, the model would answer "None": a paid call for
    nothing)."""
    value = job.get("enabled", True)
    if not isinstance(value, bool):
        return (
            f"'enabled' is {json.dumps(value, ensure_ascii=False)}, neither true nor false, "
            "so the job does not run; write true or false"
        )
    return None if has_prompt(job) else NO_PROMPT


def _own_id(value: object) -> TypeGuard[int]:
    """Whether ``value`` can be a job's id: a whole number above 0, as ``cron_add`` gives.
    An answer is named, and ``cron_remove`` finds a job, by the id as text, so ``3`` and
    ``"3"`` (or ``1`` and ``1.0``) would be one job there; ``true`` is no number either."""
    return type(value) is int and value > 0


def next_free_id(items: list[Item]) -> int:
    """The id a new job gets: one more than the highest of the file (removed jobs too, so an
    id is never given again while its job is in the file)."""
    return max((item["id"] for item in items if _own_id(item.get("id"))), default=0) + 1


def numbered(items: list[Item]) -> bool:
    """Whether every job has an id of its own (a whole number, none given twice)."""
    seen: set[int] = set()
    for item in items:
        ident = item.get("id")
        if not _own_id(ident) or ident in seen:
            return False
        seen.add(ident)
    return True


def number_jobs(items: list[Item]) -> list[Item]:
    """Give each job without an id of its own (none, one that is no whole number, or one an
    earlier job has: a job copied by hand) the next free number, as ``cron_add`` would; the
    first holder keeps its id. A copy's waiting answer (``undelivered``) is its original's,
    sent by that one, so the copy's is dropped. Returns ``items``, changed in place."""
    holders = {item["id"] for item in items if _own_id(item.get("id"))}
    named = {str(ident) for ident in holders}  # an answer is named by its job's id as text
    following = next_free_id(items)
    for item in items:
        ident = item.get("id")
        if _own_id(ident) and ident in holders:
            holders.discard(ident)  # the first holder keeps it
            continue
        if ident is not None:
            if str(ident) in named:  # a copy: its waiting answer is the original's
                item.pop("undelivered", None)
            named.add(str(ident))
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
