"""When each distillation level is due, what ran last, and catching up after downtime.

The levels run at fixed local times: short daily at 03:00, mid on Sunday at 03:30, long on
the 1st of the month at 04:00 (:data:`PLANS`). Every run, ok or failed, is recorded per user,
persona and level in the state database's key-value table (:class:`DistillRuns`), so the
record, and ``/distill/status``, survive a restart. A daemon that was down when a level was
due runs it once after start (:func:`missed_levels`): the level is missed when its last run is
older than its most recent due time, however many due times passed since. A persona with no
record yet has missed nothing: the first start sets its baseline instead of running every
level at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from bot.delivery.state import StateStore

__all__ = ["PLANS", "DistillKind", "DistillRuns", "Plan", "RunRecord", "last_due", "missed_levels"]

DistillKind = Literal["short", "mid", "long"]


@dataclass(frozen=True, slots=True)
class Plan:
    """One level's schedule: cron fields as APScheduler takes them."""

    kind: DistillKind
    cron: dict[str, Any]


PLANS: tuple[Plan, ...] = (
    Plan("short", {"hour": 3, "minute": 0}),
    Plan("mid", {"day_of_week": "sun", "hour": 3, "minute": 30}),
    Plan("long", {"day": 1, "hour": 4, "minute": 0}),
)

_SUNDAY = 6


def _at(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=zone)


def last_due(kind: DistillKind, now: datetime, zone: ZoneInfo) -> datetime:
    """The most recent time at or before ``now`` when ``kind`` was due, in ``zone``."""
    local = now.astimezone(zone)
    today = local.date()
    if kind == "short":
        due = _at(today, 3, 0, zone)
        return due if due <= local else _at(today - timedelta(days=1), 3, 0, zone)
    if kind == "mid":
        sunday = today - timedelta(days=(today.weekday() - _SUNDAY) % 7)
        due = _at(sunday, 3, 30, zone)
        return due if due <= local else _at(sunday - timedelta(days=7), 3, 30, zone)
    first = today.replace(day=1)
    due = _at(first, 4, 0, zone)
    if due <= local:
        return due
    previous = (first - timedelta(days=1)).replace(day=1)
    return _at(previous, 4, 0, zone)


@dataclass(frozen=True, slots=True)
class RunRecord:
    at: datetime
    outcome: str

    def describe(self) -> str:
        return f"{self.at.astimezone(UTC).isoformat(timespec='seconds')} {self.outcome}"


def _key(user: str, persona: str, kind: str) -> str:
    return f"distill.last_run.{user}/{persona}.{kind}"


class DistillRuns:
    """The last run of each level, per user and persona, in ``personad.db``'s kv table."""

    def __init__(self, state: StateStore) -> None:
        self.state = state

    async def record(self, user: str, persona: str, kind: str, at: datetime, outcome: str) -> None:
        value = json.dumps({"at": at.astimezone(UTC).isoformat(), "outcome": outcome})
        await self.state.kv_set(_key(user, persona, kind), value)

    async def last(self, user: str, persona: str, kind: str) -> RunRecord | None:
        raw = await self.state.kv_get(_key(user, persona, kind))
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            return RunRecord(datetime.fromisoformat(data["at"]), str(data["outcome"]))
        except (ValueError, KeyError, TypeError):
            return None  # an unreadable record counts as none: the level is not re-run

    async def status(self, pairs: list[tuple[str, str]]) -> dict[str, dict[str, str]]:
        """``{"user/persona": {"short": "2026-05-09T07:00:00+00:00 ok", ...}}``."""
        result: dict[str, dict[str, str]] = {}
        for user, persona in pairs:
            for plan in PLANS:
                found = await self.last(user, persona, plan.kind)
                if found is not None:
                    result.setdefault(f"{user}/{persona}", {})[plan.kind] = found.describe()
        return result


async def missed_levels(
    runs: DistillRuns,
    user: str,
    persona: str,
    kinds: list[DistillKind],
    now: datetime,
    zone: ZoneInfo,
) -> list[DistillKind]:
    """The levels of ``kinds`` whose most recent due time passed without a run, in order
    (short before mid before long). A level never recorded gets its baseline (``now``)."""
    missed: list[DistillKind] = []
    for kind in kinds:
        found = await runs.last(user, persona, kind)
        if found is None:
            await runs.record(user, persona, kind, now, "baseline")
        elif found.at < last_due(kind, now, zone):
            missed.append(kind)
    return missed
