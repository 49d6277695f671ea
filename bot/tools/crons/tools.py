"""The model's scheduled-job tools: ``cron_add``, ``cron_list`` and ``cron_remove``.

They edit CRONS.json through :func:`~bot.tools.crons.jobfile.edit_crons`, one change at a
time. A job added here must have a schedule that runs no more often than
:data:`~bot.tools.crons.schedule.MIN_INTERVAL` (each run is a paid model call), and a persona
has at most :data:`MAX_JOBS` enabled jobs. Removing a job disables it; it stays in the file
for a while and is then pruned (:func:`~bot.tools.crons.jobfile.prune_removed`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from bot.persona.store import PersonaStore
from bot.tools.clock import Clock
from bot.tools.crons.jobfile import (
    FILENAME,
    KEEP_REMOVED,
    edit_crons,
    has_prompt,
    is_enabled,
    next_free_id,
    why_it_cannot_run,
)
from bot.tools.crons.schedule import check_schedule, parse_schedule
from bot.tools.jsonlist import Item, corrupt_file_as_tool_failure, load_json_list
from bot.tools.registry import Tool, ToolFailed
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["MAX_JOBS", "cron_tools", "edit_job"]

#: enabled jobs a persona may have
MAX_JOBS = 20


def _describe(job: Item, zone: tzinfo, now: datetime) -> str:
    line = f"#{job.get('id', '?')} [{job.get('schedule')}]"
    if has_prompt(job):
        line += f" {job['prompt']}"
    try:
        fire = parse_schedule(str(job.get("schedule", "")), zone).get_next_fire_time(None, now)
    except ValueError as exc:
        return f"{line} — not valid: {exc}"
    if (problem := why_it_cannot_run(job)) is not None:
        return f"{line} — does not run: {problem}"
    if fire is not None:
        line += f" — next {fire:%a %Y-%m-%d %H:%M}"
    if job.get("last_error"):
        line += f" — last try failed: {job['last_error']}"
    return line


def _job_args(args: dict[str, Any], zone: ZoneInfo, at: datetime) -> tuple[str, str, CronTrigger]:
    """The schedule, prompt and trigger of ``cron_add``'s arguments, checked; ToolFailed says
    why not."""
    schedule, prompt = args.get("schedule"), args.get("prompt")
    if not isinstance(schedule, str) or not isinstance(prompt, str) or not prompt.strip():
        raise ToolFailed("give 'schedule' (five cron fields) and 'prompt' (what to do)")
    if len(prompt) > 2000:
        raise ToolFailed("keep a job's prompt under 2000 characters")
    schedule = " ".join(schedule.split())
    try:
        trigger = check_schedule(schedule, zone, at)
    except ValueError as exc:
        raise ToolFailed(str(exc)) from None
    return schedule, prompt.strip(), trigger


async def edit_job(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    now: datetime,
    job_id: int,
    args: dict[str, Any],
) -> str:
    """Change an enabled job's ``schedule`` and ``prompt`` in place (same id, its run history
    kept), checked as ``cron_add`` checks them; a refused change writes nothing."""
    schedule, prompt, _trigger = _job_args(args, zone, now)

    def change(items: list[Item]) -> str:
        found = [item for item in items if is_enabled(item) and item.get("id") == job_id]
        if not found:
            raise ToolFailed(f"there is no enabled job #{job_id}; see cron_list")
        found[0].update(schedule=schedule, prompt=prompt)
        found[0].pop("last_error", None)  # it was about the job as it was
        return f"Job changed: {_describe(found[0], zone, now)}"

    with corrupt_file_as_tool_failure(FILENAME):
        return await edit_crons(store, user, persona, change, now)


def cron_tools(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    clock: Clock,
    audience: Audience = DIRECT_ROOM,
) -> list[Tool]:
    """``cron_add``, ``cron_list`` and ``cron_remove`` for one persona, on the jobs of
    ``audience``: a shared room's own (``rooms/<room>/CRONS.json``) answer in that room, so
    they are not withheld there."""
    path = audience.own(FILENAME)
    where = "the user's notification room" if audience.private else "this room"

    def now() -> datetime:
        return clock().astimezone(zone).replace(microsecond=0)

    async def edit(change: Callable[[list[Item]], str]) -> str:
        with corrupt_file_as_tool_failure(path):
            return await edit_crons(store, user, persona, change, now(), path)

    async def add(args: dict[str, Any]) -> str:
        at = now()
        schedule, prompt, trigger = _job_args(args, zone, at)

        def change(items: list[Item]) -> str:
            enabled = [item for item in items if is_enabled(item)]
            if len(enabled) >= MAX_JOBS:
                raise ToolFailed(f"there are already {MAX_JOBS} jobs; remove one first")
            job: Item = {"id": next_free_id(items), "schedule": schedule}
            job.update(prompt=prompt, enabled=True, created=at.isoformat())
            items.append(job)
            fire = trigger.get_next_fire_time(None, at)
            return (
                f"Scheduled job #{job['id']} added; next run {fire:%a %Y-%m-%d %H:%M} "
                f"({zone.key}). Its answers are sent to {where}."
            )

        return await edit(change)

    async def list_(_args: dict[str, Any]) -> str:
        with corrupt_file_as_tool_failure(path):
            items = load_json_list(store, user, persona, path)
        at = now()
        shown = [_describe(job, zone, at) for job in items if is_enabled(job)]
        return (
            "\n".join([f"Scheduled jobs (times in {zone.key}):", *shown])
            if shown
            else ("No scheduled jobs.")
        )

    async def remove(args: dict[str, Any]) -> str:
        ident, match = args.get("id"), args.get("match")

        def change(items: list[Item]) -> str:
            live = [item for item in items if is_enabled(item)]
            if ident is not None and ident != "":
                found = [item for item in live if str(item.get("id")) == str(ident)]
            elif isinstance(match, str) and match.strip():
                needle = match.strip().casefold()
                found = [item for item in live if needle in str(item.get("prompt")).casefold()]
            else:
                raise ToolFailed("give the job's 'id' or 'match' (words of its prompt)")
            if len(found) != 1:
                what = "no" if not found else "more than one"
                raise ToolFailed(f"{what} enabled job matches; see cron_list and use 'id'")
            found[0]["enabled"] = False
            found[0]["disabled_at"] = now().isoformat()
            return (
                f"Job #{found[0].get('id')} stopped (kept in {path}, disabled, for "
                f"{KEEP_REMOVED.days} days)."
            )

        return await edit(change)

    return [
        Tool(
            name="cron_add",
            description=(
                "Schedule a job you run on your own, e.g. a morning briefing. 'schedule' is a "
                "five-field cron expression (minute hour day-of-month month day-of-week; "
                f"0 = Sunday) in the user's zone ({zone.key}), e.g. '0 7 * * 1-5' for 07:00 "
                f"on weekdays. 'prompt' says what to do; the answer goes to {where}."
            ),
            input_schema={
                "type": "object",
                "properties": {"schedule": {"type": "string"}, "prompt": {"type": "string"}},
                "required": ["schedule", "prompt"],
            },
            handler=add,
            persists=True,
        ),
        Tool(
            name="cron_list",
            description="List your scheduled jobs with their next run time.",
            input_schema={"type": "object", "properties": {}},
            handler=list_,
            private=audience.private,
        ),
        Tool(
            name="cron_remove",
            description="Stop a scheduled job, by 'id' or 'match'.",
            input_schema={
                "type": "object",
                "properties": {"id": {"type": "integer"}, "match": {"type": "string"}},
            },
            handler=remove,
            persists=True,
            private=audience.private,
        ),
    ]
