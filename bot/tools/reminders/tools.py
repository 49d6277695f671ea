"""The model's reminder tools: ``reminder_add``, ``reminder_list`` and ``reminder_done``.

They read and edit REMINDERS.md through :mod:`bot.tools.reminders.checklist`, so a tool call
and the minute job that surfaces due reminders never overwrite each other's change. Times the
model passes are local to the user's zone; a mistake comes back as a
:class:`~bot.tools.registry.ToolFailed`
sentence the model can act on, and the file stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.persona.store import PersonaStore
from bot.tools.clock import Clock
from bot.tools.registry import Tool, ToolFailed, find_by_words, saving
from bot.tools.reminders.checklist import (
    FILENAME,
    Reminder,
    UnreadableFile,
    advance,
    edit_reminders,
    every_words,
    mark_done,
    parse_line,
    parse_reminders,
    replace_lines,
    reschedule,
    unreadable_items,
)
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["add_reminder", "reminder_tools"]

_RECURRENCES = ("day", "week", "month")


def _a_day_alone(text: str) -> bool:
    """Whether ``text`` names a day without a time of day ("2026-12-01")."""
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _when_arg(value: object, zone: ZoneInfo) -> datetime:
    if not isinstance(value, str):
        raise ToolFailed("'when' must be a local date and time like 2026-11-30T09:00")
    not_a_time = f"'when' {value!r} is not a date and time like 2026-11-30T09:00"
    if _a_day_alone(value.strip()):
        # a day alone would be read as its midnight: a notice in the night nobody asked for
        raise ToolFailed(
            f"'when' {value!r} has no time of day; ask for one, e.g. {value.strip()}T09:00"
        )
    try:
        when = datetime.fromisoformat(value.strip())
        if when.tzinfo is not None:
            when = when.astimezone(zone).replace(tzinfo=None)
    except (ValueError, OverflowError):  # OverflowError: an offset past the calendar's end
        raise ToolFailed(not_a_time) from None
    return when.replace(second=0, microsecond=0)


def _text_arg(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolFailed("'text' must say what to remind of")
    text = " ".join(value.split())
    if len(text) > 500:
        raise ToolFailed("keep a reminder under 500 characters")
    if re.match(r"every\s+(day|week|month)\b", text, re.IGNORECASE):
        raise ToolFailed("start the text with something else; pass the repetition as 'recurrence'")
    return text


def _describe(reminder: Reminder) -> str:
    every = f" {reminder.repeats}" if reminder.every else ""
    return f"{reminder.when:%a %Y-%m-%d %H:%M}{every} — {reminder.text}"


def _pick(pending: list[Reminder], args: dict[str, Any]) -> Reminder:
    index, match = args.get("index"), args.get("match")
    if isinstance(index, int) and not isinstance(index, bool):
        if not 1 <= index <= len(pending):
            raise ToolFailed(f"there is no pending reminder {index}; reminder_list numbers them")
        return pending[index - 1]
    if not isinstance(match, str) or not match.strip():
        raise ToolFailed("give 'index' (from reminder_list) or 'match' (words of the text)")
    return find_by_words(
        pending,
        match,
        lambda reminder: reminder.text,
        _describe,
        subject="pending reminder",
        plural="reminders",
        key="index",
    )


async def _edit(
    store: PersonaStore,
    user: str,
    persona: str,
    path: str,
    change: Callable[[list[str]], list[str] | None],
) -> None:
    try:
        with saving(path):
            await edit_reminders(store, user, persona, change, path)
    except UnreadableFile as exc:
        raise ToolFailed(f"{exc}; fix REMINDERS.md by hand first") from None


async def add_reminder(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    clock: Clock,
    args: dict[str, Any],
    *,
    day: int | None = None,
    audience: Audience = DIRECT_ROOM,
) -> str:
    """What ``reminder_add`` does with ``args``: the line checked and appended to the
    audience's REMINDERS.md. ``day``: the day of the month a monthly reminder falls on when
    it is not its date's own (the web page's edit of a line ``on the 31st`` dated the 28th of
    February keeps it); without it the date's day is the day."""
    text = _text_arg(args.get("text"))
    when = _when_arg(args.get("when"), zone)
    every = args.get("recurrence") or None
    if every is not None and every not in _RECURRENCES:
        raise ToolFailed("'recurrence' must be day, week or month")
    if every == "month" and re.match(r"on\s+the\s+\d{1,2}(st|nd|rd|th)\b", text, re.I):
        # it would be read back as the day of the month the reminder falls on
        raise ToolFailed(
            "start the text with something else; the day of the month comes from 'when'"
        )
    now = clock().astimezone(zone)
    if when.replace(tzinfo=zone) < now - timedelta(minutes=1):
        raise ToolFailed(f"{when:%Y-%m-%d %H:%M} is in the past (now: {now:%Y-%m-%d %H:%M})")
    month_day = when.day if day is None else day
    repeats = f" {every_words(every, month_day, named=month_day != when.day)}" if every else ""
    line = f"- [ ] {when:%Y-%m-%d %H:%M}{repeats} {text}"

    def append(lines: list[str]) -> list[str]:
        while lines and not lines[-1].strip():
            lines.pop()
        return [*(lines or ["# Reminders", ""]), line]

    await _edit(store, user, persona, audience.own(FILENAME), append)
    return f"Reminder set: {_describe(_reparse(line))} ({zone.key})."


def reminder_tools(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    clock: Clock,
    audience: Audience = DIRECT_ROOM,
) -> list[Tool]:
    """``reminder_add``, ``reminder_list`` and ``reminder_done`` for one persona, on the
    reminders of ``audience``: a shared room's own (``rooms/<room>/REMINDERS.md``) are sent
    to that room, so they are not withheld there."""
    path = audience.own(FILENAME)
    where = "the user's notification room" if audience.private else "this room"

    async def edit(change: Callable[[list[str]], list[str] | None]) -> None:
        await _edit(store, user, persona, path, change)

    def read() -> str:
        file = store.read(user, persona, path)
        if file.problem:
            raise ToolFailed(f"{file.problem}; fix REMINDERS.md by hand first")
        return file.text

    async def add(args: dict[str, Any]) -> str:
        return await add_reminder(store, user, persona, zone, clock, args, audience=audience)

    async def list_(_args: dict[str, Any]) -> str:
        text = read()
        reminders = parse_reminders(text)
        pending = [r for r in reminders if not r.done]
        lines = [f"Pending reminders (times in {zone.key}):"]
        lines += [f"{n}. {_describe(r)}" for n, r in enumerate(pending, 1)] or ["(none)"]
        if done := len(reminders) - len(pending):
            lines.append(f"({done} done reminder(s) kept in REMINDERS.md)")
        if bad := unreadable_items(text):
            lines.append("Lines not understood (they need '- [ ] YYYY-MM-DD HH:MM text'):")
            lines += [f"  {raw.strip()}" for raw in bad]
        return "\n".join(lines)

    async def done(args: dict[str, Any]) -> str:
        pending = [r for r in parse_reminders(read()) if not r.done]
        chosen = _pick(pending, args)
        if chosen.every is not None and not args.get("stop"):
            after = max(clock().astimezone(zone), chosen.at(zone))
            new = reschedule(chosen.raw, advance(chosen, after))
            result = f"Done; next time: {_describe(_reparse(new))}."
        else:
            new = mark_done(chosen.raw)
            result = f"Marked done: {chosen.text}."
        found = False

        def tick(lines: list[str]) -> list[str] | None:
            nonlocal found
            updated = replace_lines(lines, [(chosen, new)])
            found = updated is not None
            return updated

        await edit(tick)
        if not found:
            raise ToolFailed("REMINDERS.md changed meanwhile; call reminder_list and try again")
        return result

    return [
        Tool(
            name="reminder_add",
            description=(
                f"Set a reminder, sent to {where} at that time. "
                f"'when' is a local date and time in the user's zone ({zone.key}), "
                "like 2026-11-30T09:00. 'recurrence' repeats it every day, week or month."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "what to remind of"},
                    "when": {"type": "string", "description": "local time, 2026-11-30T09:00"},
                    "recurrence": {"type": "string", "enum": list(_RECURRENCES)},
                },
                "required": ["text", "when"],
            },
            handler=add,
            persists=True,
        ),
        Tool(
            name="reminder_list",
            description="List the pending reminders, numbered (REMINDERS.md).",
            input_schema={"type": "object", "properties": {}},
            handler=list_,
            private=audience.private,
        ),
        Tool(
            name="reminder_done",
            description=(
                "Mark a pending reminder done, by 'index' (from reminder_list) or 'match' "
                "(words of its text). A recurring one moves to its next time unless 'stop'."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "index": {"type": "integer", "minimum": 1},
                    "match": {"type": "string"},
                    "stop": {"type": "boolean", "description": "end a recurring reminder"},
                },
            },
            handler=done,
            persists=True,
            private=audience.private,
        ),
    ]


def _reparse(line: str) -> Reminder:
    reminder = parse_line(0, line)
    if reminder is None:
        raise ToolFailed(f"could not read back the line {line!r}")
    return reminder
