"""Reminders: REMINDERS.md read and written as a markdown checklist a person can also edit.

One reminder a line, in the user's local time zone, optionally recurring::

    - [ ] 2026-11-30 09:00 Call the dentist
    - [ ] 2026-12-01 08:00 every week Water the plants
    - [x] 2026-11-02 18:30 Book the train

Any other line (headings, notes, a checklist item with a date that does not exist) is kept
exactly as it is; an edit rewrites only the line it concerns. Every minute the daemon calls
:func:`surface_due`: each due reminder is sent once to the user's notification room, then
marked done, or moved to its next time when it recurs. A notice that could not be sent leaves
the reminder pending, so it is tried again the next minute. The model manages reminders
through the tools of :func:`reminder_tools`.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from calendar import monthrange
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo

import structlog

from bot.config import Config, UserConfig
from bot.notify import Notifier
from bot.persona.store import PersonaStore
from bot.tools import Tool, ToolFailed

__all__ = [
    "FILENAME",
    "LATE_AFTER",
    "Clock",
    "Recurrence",
    "Reminder",
    "UnreadableFile",
    "advance",
    "due",
    "edit_reminders",
    "format_notice",
    "mark_done",
    "parse_reminders",
    "reminder_tools",
    "reschedule",
    "surface_due",
    "unreadable_items",
]

log = structlog.get_logger(__name__)

FILENAME = "REMINDERS.md"
#: a reminder surfaced later than this after its time says when it was due
LATE_AFTER = timedelta(minutes=5)

Recurrence = Literal["day", "week", "month"]
Clock = Callable[[], datetime]

_LINE = re.compile(
    r"^(?P<lead>\s*[-*+]\s+\[)(?P<mark>[ xX])(?P<close>\]\s+)"
    r"(?P<when>(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{1,2}:\d{2}))"
    r"(?:\s+every\s+(?P<every>day|week|month)\b)?"
    r"\s+(?P<text>\S.*?)\s*$",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^\s*[-*+]\s+\[[ xX]\]")


@dataclass(frozen=True, slots=True)
class Reminder:
    """One reminder line: ``line`` is its index in the file, ``raw`` its exact text."""

    line: int
    raw: str
    when: datetime  # naive, in the user's local time
    text: str
    done: bool = False
    every: Recurrence | None = None

    def at(self, zone: tzinfo) -> datetime:
        return self.when.replace(tzinfo=zone)


def _parse_line(index: int, raw: str) -> Reminder | None:
    match = _LINE.match(raw)
    if match is None:
        return None
    try:
        when = datetime.strptime(f"{match['date']} {match['time']}", "%Y-%m-%d %H:%M")
    except ValueError:
        return None
    every = match["every"].lower() if match["every"] else None
    return Reminder(
        line=index,
        raw=raw,
        when=when,
        text=match["text"],
        done=match["mark"] != " ",
        every=every,  # type: ignore[arg-type]
    )


def parse_reminders(text: str) -> list[Reminder]:
    """Every line of ``text`` that reads as a reminder, done ones included, in file order."""
    found = (_parse_line(i, raw) for i, raw in enumerate(text.splitlines()))
    return [reminder for reminder in found if reminder is not None]


def unreadable_items(text: str) -> list[str]:
    """Checklist lines that look like reminders but cannot be read (no or a wrong date)."""
    return [
        raw
        for i, raw in enumerate(text.splitlines())
        if _ITEM.match(raw) and _parse_line(i, raw) is None
    ]


def due(reminders: list[Reminder], now: datetime) -> list[Reminder]:
    """The pending reminders whose time has come; ``now`` must be time-zone aware and in
    the user's zone, which is the zone the reminders' times are read in."""
    zone = now.tzinfo
    if zone is None:
        raise ValueError("now must be time-zone aware")
    return [r for r in reminders if not r.done and r.at(zone) <= now]


def _add_months(when: datetime, months: int) -> datetime:
    index = when.month - 1 + months
    year, month = when.year + index // 12, index % 12 + 1
    return when.replace(year=year, month=month, day=min(when.day, monthrange(year, month)[1]))


def advance(reminder: Reminder, now: datetime) -> datetime:
    """The first time of a recurring reminder after ``now`` (missed occurrences are skipped,
    so a daemon that was down for a week sends one notice, not seven)."""
    if reminder.every is None:
        raise ValueError("only a recurring reminder advances")
    zone = now.tzinfo
    if zone is None:
        raise ValueError("now must be time-zone aware")
    step = 1
    while True:
        if reminder.every == "month":
            candidate = _add_months(reminder.when, step)
        else:
            days = 1 if reminder.every == "day" else 7
            candidate = reminder.when + timedelta(days=days * step)
        if candidate.replace(tzinfo=zone) > now:
            return candidate
        step += 1


def mark_done(raw: str) -> str:
    """The line with its box ticked; everything else about it unchanged."""
    return _LINE.sub(lambda m: f"{m['lead']}x{m['close']}" + raw[m.end("close") :], raw, count=1)


def reschedule(raw: str, when: datetime) -> str:
    """The line with its date and time replaced by ``when``."""
    match = _LINE.match(raw)
    if match is None:
        raise ValueError(f"not a reminder line: {raw!r}")
    return raw[: match.start("when")] + when.strftime("%Y-%m-%d %H:%M") + raw[match.end("when") :]


def format_notice(reminder: Reminder, persona: str, now: datetime) -> str:
    """``⏰ Reminder from Inara: Call the dentist (09:00)``, or ``(was due ...)`` when late."""
    zone = now.tzinfo
    assert zone is not None
    late = now - reminder.at(zone) >= LATE_AFTER
    if not late:
        when = reminder.when.strftime("%H:%M")
    elif reminder.when.date() == now.date():
        when = "was due " + reminder.when.strftime("%H:%M")
    else:
        when = "was due " + reminder.when.strftime("%Y-%m-%d %H:%M")
    return f"⏰ Reminder from {persona.capitalize()}: {reminder.text} ({when})"


# -- editing ------------------------------------------------------------------------------

_locks: weakref.WeakKeyDictionary[PersonaStore, dict[tuple[str, str], asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def _lock(store: PersonaStore, user: str, persona: str) -> asyncio.Lock:
    locks = _locks.setdefault(store, {})
    return locks.setdefault((user, persona), asyncio.Lock())


class UnreadableFile(Exception):
    """REMINDERS.md exists but cannot be read, so it must not be rewritten."""


async def edit_reminders(
    store: PersonaStore, user: str, persona: str, change: Callable[[list[str]], list[str] | None]
) -> str:
    """Read REMINDERS.md, let ``change`` edit its lines, write the result atomically.

    Edits of one persona's reminders run one at a time, so the minute job and a tool call
    never overwrite each other's change. ``change`` returns None to leave the file as it is.
    Returns the text now in the file.
    """
    async with _lock(store, user, persona):
        file = store.read(user, persona, FILENAME)
        if file.problem:
            raise UnreadableFile(file.problem)
        newline = "\r\n" if "\r\n" in file.text else "\n"  # keep a hand-edited file's endings
        lines = change(file.text.splitlines())
        if lines is None:
            return file.text
        text = newline.join(lines) + newline
        await store.write(user, persona, FILENAME, text)
        return text


# -- the minute job -----------------------------------------------------------------------


async def surface_due(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    user: str,
    persona: str,
    now: datetime,
) -> int:
    """Send each due reminder of one persona to the user's notification room; returns how
    many were sent. Sent ones are ticked (or moved on, when recurring); the rest wait."""
    zone = (config.users.get(user) or UserConfig()).zone
    local = now.astimezone(zone)
    file = store.read(user, persona, FILENAME)
    if file.problem:
        log.warning("reminders.unreadable", user=user, persona=persona, problem=file.problem)
        return 0
    pending = due(parse_reminders(file.text), local)
    if not pending:
        return 0
    sent: list[tuple[Reminder, str]] = []
    for reminder in pending:
        if not await notifier.notify(user, format_notice(reminder, persona, local)):
            log.info("reminder.deferred", user=user, persona=persona, line=reminder.line)
            continue
        if reminder.every is None:
            sent.append((reminder, mark_done(reminder.raw)))
        else:
            sent.append((reminder, reschedule(reminder.raw, advance(reminder, local))))
    if sent:
        try:
            await edit_reminders(store, user, persona, lambda lines: _replace(lines, sent))
        except UnreadableFile as exc:
            log.warning("reminders.unreadable", user=user, persona=persona, problem=str(exc))
        log.info("reminders.surfaced", user=user, persona=persona, sent=len(sent))
    return len(sent)


def _replace(lines: list[str], sent: list[tuple[Reminder, str]]) -> list[str] | None:
    """Apply the new text of each sent reminder to the file as it is now. The file may have
    changed while the notices went out: a line is found again by its exact old text, and a
    line edited meanwhile keeps its edit (it is surfaced again if it is still due)."""
    changed = False
    for reminder, new in sent:
        if reminder.line < len(lines) and lines[reminder.line] == reminder.raw:
            index = reminder.line
        elif reminder.raw in lines:
            index = lines.index(reminder.raw)
        else:
            continue
        lines[index] = new
        changed = True
    return lines if changed else None


# -- tools for the model ------------------------------------------------------------------

_RECURRENCES = ("day", "week", "month")


def _when_arg(value: object, zone: ZoneInfo) -> datetime:
    if not isinstance(value, str):
        raise ToolFailed("'when' must be a local date and time like 2026-11-30T09:00")
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ToolFailed(f"'when' {value!r} is not a date and time like 2026-11-30T09:00") from None
    if when.tzinfo is not None:
        when = when.astimezone(zone).replace(tzinfo=None)
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
    every = f" every {reminder.every}" if reminder.every else ""
    return f"{reminder.when:%a %Y-%m-%d %H:%M}{every} — {reminder.text}"


def _pick(pending: list[Reminder], args: dict[str, Any]) -> Reminder:
    index, match = args.get("index"), args.get("match")
    if isinstance(index, int) and not isinstance(index, bool):
        if not 1 <= index <= len(pending):
            raise ToolFailed(f"there is no pending reminder {index}; reminder_list numbers them")
        return pending[index - 1]
    if not isinstance(match, str) or not match.strip():
        raise ToolFailed("give 'index' (from reminder_list) or 'match' (words of the text)")
    needle = match.strip().casefold()
    found = [r for r in pending if needle in r.text.casefold()]
    exact = [r for r in found if r.text.casefold() == needle]
    if len(exact) == 1 or len(found) == 1:
        return (exact or found)[0]
    if not found:
        raise ToolFailed(f"no pending reminder mentions {match!r}")
    listing = "; ".join(_describe(r) for r in found)
    raise ToolFailed(f"{match!r} matches several reminders ({listing}); use 'index'")


def reminder_tools(
    store: PersonaStore, user: str, persona: str, zone: ZoneInfo, clock: Clock
) -> list[Tool]:
    """``reminder_add``, ``reminder_list`` and ``reminder_done`` for one persona."""

    async def edit(change: Callable[[list[str]], list[str] | None]) -> None:
        try:
            await edit_reminders(store, user, persona, change)
        except UnreadableFile as exc:
            raise ToolFailed(f"{exc}; fix REMINDERS.md by hand first") from None

    def read() -> str:
        file = store.read(user, persona, FILENAME)
        if file.problem:
            raise ToolFailed(f"{file.problem}; fix REMINDERS.md by hand first")
        return file.text

    async def add(args: dict[str, Any]) -> str:
        text = _text_arg(args.get("text"))
        when = _when_arg(args.get("when"), zone)
        every = args.get("recurrence") or None
        if every is not None and every not in _RECURRENCES:
            raise ToolFailed("'recurrence' must be day, week or month")
        now = clock().astimezone(zone)
        if when.replace(tzinfo=zone) < now - timedelta(minutes=1):
            raise ToolFailed(f"{when:%Y-%m-%d %H:%M} is in the past (now: {now:%Y-%m-%d %H:%M})")
        line = f"- [ ] {when:%Y-%m-%d %H:%M}{f' every {every}' if every else ''} {text}"

        def append(lines: list[str]) -> list[str]:
            while lines and not lines[-1].strip():
                lines.pop()
            return [*(lines or ["# Reminders", ""]), line]

        await edit(append)
        return f"Reminder set: {_describe(_reparse(line))} ({zone.key})."

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
            updated = _replace(lines, [(chosen, new)])
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
                "Set a reminder, sent to the user's notification room at that time. "
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
        ),
        Tool(
            name="reminder_list",
            description="List the pending reminders, numbered (REMINDERS.md).",
            input_schema={"type": "object", "properties": {}},
            handler=list_,
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
        ),
    ]


def _reparse(line: str) -> Reminder:
    reminder = _parse_line(0, line)
    if reminder is None:
        raise ToolFailed(f"could not read back the line {line!r}")
    return reminder
