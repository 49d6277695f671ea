"""Reminders, tasks and scheduled jobs: listed with their next time; added, edited, deleted.

Adding does what the persona's own tools do (``reminder_add``, ``task_add``, ``cron_add``),
so a form is checked exactly as the model's call would be and gets the same sentence back
when something is wrong. A task or a job is edited in place (it keeps its number and, for a
job, its run history) with the same checks; a reminder, a line of REMINDERS.md without a
number, is edited by adding the new line first and only then removing the old one; an edit
that keeps a monthly reminder on the same day of its date keeps the day its line names
(``every month on the 31st``). A refused edit changes nothing. Deleting a task or a job keeps
it in its file as removed (as the tools do); a reminder's line is taken out of REMINDERS.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from bot.tools.crons.jobfile import is_enabled, why_it_cannot_run
from bot.tools.crons.schedule import parse_schedule
from bot.tools.crons.tools import cron_tools, edit_job
from bot.tools.jsonlist import CorruptFile, Item, load_json_list
from bot.tools.registry import Tool, ToolFailed
from bot.tools.reminders.checklist import (
    FILENAME as REMINDERS,
)
from bot.tools.reminders.checklist import (
    UnreadableFile,
    edit_reminders,
    parse_line,
    parse_reminders,
)
from bot.tools.reminders.tools import add_reminder
from bot.tools.tasks import edit_task, task_tools
from bot.web.views import console, form_text, own_persona, redirect_with_note, render

__all__ = ["routes"]

routes = web.RouteTableDef()

_BASE = "/u/{user}/{persona}/schedule"
#: the form fields each kind's add tool takes
_FIELDS = {
    "reminder": ("when", "text", "recurrence"),
    "task": ("title", "due"),
    "cron": ("schedule", "prompt"),
}


def _zone(request: web.Request, user: str) -> ZoneInfo:
    return console(request).daemon.config.users[user].zone


def _tools(request: web.Request, user: str, persona: str) -> dict[str, Tool]:
    store = console(request).daemon.store
    zone, clock = _zone(request, user), console(request).daemon.clock
    tools = [
        *task_tools(store, user, persona, zone, clock),
        *cron_tools(store, user, persona, zone, clock),
    ]
    return {tool.name: tool for tool in tools}


def _next_run(job: Item, zone: ZoneInfo, now: datetime) -> str:
    if (problem := why_it_cannot_run(job)) is not None:
        return f"never ({problem})"
    try:
        fire = parse_schedule(str(job.get("schedule", "")), zone).get_next_fire_time(None, now)
    except ValueError:
        return "never (the schedule does not read)"
    return fire.strftime("%Y-%m-%d %H:%M") if fire else "never"


def _listing(request: web.Request, user: str, persona: str) -> dict[str, Any]:
    store = console(request).daemon.store
    zone = _zone(request, user)
    now = console(request).daemon.clock().astimezone(zone)
    problems: list[str] = []
    reminders = parse_reminders(store.read(user, persona, REMINDERS).text)
    pending = sorted((r for r in reminders if not r.done), key=lambda r: r.when)
    tasks: list[dict[str, Any]] = []
    jobs: list[dict[str, Any]] = []
    try:
        tasks = [
            t
            for t in load_json_list(store, user, persona, "TASKS.json")
            if t.get("status") == "open"
        ]
    except CorruptFile as exc:
        problems.append(str(exc))
    try:
        jobs = [
            {**job, "next": _next_run(job, zone, now)}
            for job in load_json_list(store, user, persona, "CRONS.json")
            if is_enabled(job)
        ]
    except CorruptFile as exc:
        problems.append(str(exc))
    return {
        "reminders": pending,
        "tasks": tasks,
        "jobs": jobs,
        "problems": problems,
        "zone": str(zone),
        "now": now.strftime("%Y-%m-%d %H:%M"),
    }


@routes.get(_BASE)
async def page(request: web.Request) -> web.Response:
    user, persona = own_persona(request)
    return render(
        request,
        "schedule.html",
        persona=persona,
        kept={},
        **_listing(request, user, persona),
    )


async def _delete(request: web.Request, user: str, persona: str, kind: str, key: str) -> str:
    tools = _tools(request, user, persona)
    if kind == "task":
        return await tools["task_remove"].handler({"id": int(key)})
    if kind == "cron":
        return await tools["cron_remove"].handler({"id": int(key)})

    def drop(lines: list[str]) -> list[str] | None:
        return [line for line in lines if line != key] if key in lines else None

    before = console(request).daemon.store.read(user, persona, REMINDERS).text
    after = await edit_reminders(console(request).daemon.store, user, persona, drop)
    return "Reminder deleted." if after != before else "That reminder is not in the file any more."


def _named_day(old: str, args: dict[str, str]) -> int | None:
    """The day of the month the edited line named (``every month on the 31st``), when the edit
    keeps it monthly on the same day of its date: a text or a time changed on a reminder dated
    the 28th of February still stands for the 31st. A new day of the month is the new day, as
    ``reminder_add`` has it; so is a line added (no ``old``)."""
    before = parse_line(0, old) if old else None
    if before is None or before.day is None or args.get("recurrence") != "month":
        return None
    try:
        when = datetime.fromisoformat(args.get("when", ""))
    except ValueError:
        return None  # the add refuses it and says why
    return before.day if when.day == before.when.day else None


async def _add_reminder(
    request: web.Request, user: str, persona: str, args: dict[str, str], day: int | None
) -> str:
    daemon = console(request).daemon
    zone = _zone(request, user)
    return await add_reminder(daemon.store, user, persona, zone, daemon.clock, args, day=day)


async def _edit(
    request: web.Request, user: str, persona: str, kind: str, ident: int, args: dict[str, str]
) -> str:
    """A task or a job changed in place: same number, same file, one atomic write."""
    daemon = console(request).daemon
    zone = _zone(request, user)
    if kind == "task":
        return await edit_task(daemon.store, user, persona, zone, ident, args)
    now = daemon.clock().astimezone(zone).replace(microsecond=0)
    return await edit_job(daemon.store, user, persona, zone, now, ident, args)


@routes.post(_BASE + "/{kind}")
async def change(request: web.Request) -> web.Response:
    """Add (no ``old``), edit (``old`` and the new fields) or delete (``old``, ``delete``)."""
    user, persona = own_persona(request)
    kind = request.match_info["kind"]
    if kind not in _FIELDS:
        raise web.HTTPNotFound(text="There is no such list.")
    old = await form_text(request, "old")
    typed = {name: await form_text(request, name) for name in _FIELDS[kind]}
    try:
        if old and await form_text(request, "delete"):
            note = await _delete(request, user, persona, kind, old)
        else:
            args = {name: value.strip() for name, value in typed.items() if value.strip()}
            if old and kind != "reminder":
                note = await _edit(request, user, persona, kind, int(old), args)
            elif kind == "reminder":
                note = await _add_reminder(request, user, persona, args, _named_day(old, args))
            else:
                note = await _tools(request, user, persona)[f"{kind}_add"].handler(args)
            if old and kind == "reminder":
                await _delete(request, user, persona, kind, old)
                note = "Changed. " + note
    except (ToolFailed, CorruptFile, UnreadableFile) as exc:
        return _refused(request, user, persona, kind, typed, f"Nothing was changed: {exc}")
    except ValueError:  # a number the form sends that is none (a page from before an edit)
        return _refused(
            request,
            user,
            persona,
            kind,
            typed,
            "Nothing was changed: that item is not in the list any more. Reload the page.",
        )
    redirect_with_note(request, f"/u/{user}/{persona}/schedule", note)


def _refused(
    request: web.Request, user: str, persona: str, kind: str, typed: dict[str, str], why: str
) -> web.Response:
    """The page again, the refusal shown as an error and what was typed still in its form."""
    response = render(
        request,
        "schedule.html",
        persona=persona,
        note=why,
        note_error=True,
        kept={kind: typed},
        **_listing(request, user, persona),
    )
    response.set_status(400)
    return response
