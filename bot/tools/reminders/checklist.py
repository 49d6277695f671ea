"""Reminders: REMINDERS.md read and written as a markdown checklist a person can also edit.

One reminder a line, in the user's local time zone, optionally recurring::

    - [ ] 2026-11-30 09:00 Call the dentist
    - [ ] 2026-12-01 08:00 every week Water the plants
    - [ ] 2027-02-28 09:00 every month on the 31st Pay the rent
    - [x] 2026-11-02 18:30 Book the train

A monthly reminder falls on the same day each month; one past the 28th names its day (``on
the 31st``), so a month too short for it (the 28th of February) does not become its day for
good: the month after, it is back on the 31st. The date is always the next time; the named
day, when there is one, governs the times after it. A line without it takes its day from its
date, as it always did.

Any other line (headings, notes, a checklist item with a date that does not exist) is kept
exactly as it is; an edit rewrites only the line it concerns, through :func:`edit_reminders`,
which the model's tools (:mod:`bot.tools.reminders.tools`) and the minute job that surfaces
due reminders (:mod:`bot.tools.reminders.job`) share.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from calendar import monthrange
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Literal

from bot.persona.store import PersonaStore

__all__ = [
    "FILENAME",
    "LATE_AFTER",
    "Recurrence",
    "Reminder",
    "UnreadableFile",
    "advance",
    "due",
    "edit_reminders",
    "every_words",
    "format_notice",
    "mark_done",
    "parse_line",
    "parse_reminders",
    "replace_lines",
    "reschedule",
    "unreadable_items",
]

FILENAME = "REMINDERS.md"
#: a reminder surfaced later than this after its time says when it was due
LATE_AFTER = timedelta(minutes=5)

Recurrence = Literal["day", "week", "month"]

_LINE = re.compile(
    r"^(?P<lead>\s*[-*+]\s+\[)(?P<mark>[ xX])(?P<close>\]\s+)"
    r"(?P<when>(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{1,2}:\d{2}))"
    r"(?:\s+every\s+(?P<every>day|week|month)\b"
    r"(?:(?<=month)\s+on\s+the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\b)?)?"
    r"\s+(?P<text>\S.*?)\s*$",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^\s*[-*+]\s+\[[ xX]\]")
#: a month's day past this is not in every month, so a monthly line names it
_EVERY_MONTH_HAS = 28


@dataclass(frozen=True, slots=True)
class Reminder:
    """One reminder line: ``line`` is its index in the file, ``raw`` its exact text."""

    line: int
    raw: str
    when: datetime  # naive, in the user's local time
    text: str
    done: bool = False
    every: Recurrence | None = None
    day: int | None = None  # a monthly one's day (``on the 31st``), when the line names it

    def at(self, zone: tzinfo) -> datetime:
        return self.when.replace(tzinfo=zone)

    @property
    def month_day(self) -> int:
        """The day of the month a monthly reminder falls on (in a month that has it)."""
        return self.day if self.day is not None else self.when.day

    @property
    def repeats(self) -> str:
        """How it recurs, in a line's words: ``every week``, ``every month on the 31st`` (a
        day the line names, or one past the 28th); empty for a reminder that does not."""
        if self.every is None:
            return ""
        return every_words(self.every, self.month_day, named=self.day is not None)


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def every_words(every: Recurrence, day: int | None = None, *, named: bool = False) -> str:
    """The words of a line's recurrence: ``every day``; a monthly one on ``day`` names it
    when not every month has that day (``every month on the 30th``), or when ``named`` (a day
    that is not its date's own)."""
    if every == "month" and day is not None and (named or day > _EVERY_MONTH_HAS):
        return f"every month on the {_ordinal(day)}"
    return f"every {every}"


def parse_line(index: int, raw: str) -> Reminder | None:
    """Line ``index`` of a file as a reminder, or None when it does not read as one."""
    match = _LINE.match(raw)
    if match is None:
        return None
    try:
        when = datetime.strptime(f"{match['date']} {match['time']}", "%Y-%m-%d %H:%M")
    except ValueError:
        return None
    every = match["every"].lower() if match["every"] else None
    day = int(match["day"]) if match["day"] else None
    if day is not None and not 1 <= day <= 31:
        return None  # a day no month has, like a date that does not exist
    return Reminder(
        line=index,
        raw=raw,
        when=when,
        text=match["text"],
        done=match["mark"] != " ",
        every=every,  # type: ignore[arg-type]
        day=day,
    )


def parse_reminders(text: str) -> list[Reminder]:
    """Every line of ``text`` that reads as a reminder, done ones included, in file order."""
    found = (parse_line(i, raw) for i, raw in enumerate(text.splitlines()))
    return [reminder for reminder in found if reminder is not None]


def unreadable_items(text: str) -> list[str]:
    """Checklist lines that look like reminders but cannot be read (no or a wrong date)."""
    return [
        raw
        for i, raw in enumerate(text.splitlines())
        if _ITEM.match(raw) and parse_line(i, raw) is None
    ]


def due(reminders: list[Reminder], now: datetime) -> list[Reminder]:
    """The pending reminders whose time has come; ``now`` must be time-zone aware and in
    the user's zone, which is the zone the reminders' times are read in."""
    zone = now.tzinfo
    if zone is None:
        raise ValueError("now must be time-zone aware")
    return [r for r in reminders if not r.done and r.at(zone) <= now]


def _add_months(when: datetime, months: int, day: int) -> datetime:
    """``when`` moved on by ``months``, on ``day``, or the month's last day when shorter."""
    index = when.month - 1 + months
    year, month = when.year + index // 12, index % 12 + 1
    return when.replace(year=year, month=month, day=min(day, monthrange(year, month)[1]))


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
            candidate = _add_months(reminder.when, step, reminder.month_day)
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
    """The line with its date and time replaced by ``when``. A monthly line past the 28th
    that does not name its day yet gets ``on the 31st`` after ``every month``, so the day is
    not lost to a shorter month; the rest of the line is kept as it is."""
    match = _LINE.match(raw)
    if match is None:
        raise ValueError(f"not a reminder line: {raw!r}")
    head = raw[: match.start("when")] + when.strftime("%Y-%m-%d %H:%M")
    rest = raw[match.end("when") :]
    if match["every"] and match["every"].lower() == "month" and match["day"] is None:
        day = int(match["date"][8:10])
        if day > _EVERY_MONTH_HAS:
            cut = match.end("every") - match.end("when")
            rest = rest[:cut] + f" on the {_ordinal(day)}" + rest[cut:]
    return head + rest


def format_notice(reminder: Reminder, persona: str, now: datetime) -> str:
    """``⏰ Reminder from Inara: Call the dentist (09:00)``, or ``(was due ...)`` when late."""
    zone = now.tzinfo
    assert zone is not None
    # as instants: 02:30 on the night clocks skip from 02:00 to 03:00 is not late at 03:00
    late = now.astimezone(UTC) - reminder.at(zone).astimezone(UTC) >= LATE_AFTER
    if not late:
        when = reminder.when.strftime("%H:%M")
    elif reminder.when.date() == now.date():
        when = "was due " + reminder.when.strftime("%H:%M")
    else:
        when = "was due " + reminder.when.strftime("%Y-%m-%d %H:%M")
    return f"⏰ Reminder from {persona.capitalize()}: {reminder.text} ({when})"


# -- editing ------------------------------------------------------------------------------

_locks: weakref.WeakKeyDictionary[PersonaStore, dict[tuple[str, str, str], asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def _lock(store: PersonaStore, user: str, persona: str, path: str) -> asyncio.Lock:
    locks = _locks.setdefault(store, {})
    return locks.setdefault((user, persona, path), asyncio.Lock())


class UnreadableFile(Exception):
    """REMINDERS.md exists but cannot be read, so it must not be rewritten."""


async def edit_reminders(
    store: PersonaStore,
    user: str,
    persona: str,
    change: Callable[[list[str]], list[str] | None],
    path: str = FILENAME,
) -> str:
    """Read REMINDERS.md (or an audience's copy at ``path``), let ``change`` edit its lines,
    write the result atomically.

    Edits of one persona's reminders run one at a time, so the minute job and a tool call
    never overwrite each other's change. ``change`` returns None to leave the file as it is.
    Returns the text now in the file.
    """
    async with _lock(store, user, persona, path):
        file = store.read(user, persona, path)
        if file.problem:
            raise UnreadableFile(file.problem)
        newline = "\r\n" if "\r\n" in file.text else "\n"  # keep a hand-edited file's endings
        lines = change(file.text.splitlines())
        if lines is None:
            return file.text
        text = newline.join(lines) + newline
        await store.write(user, persona, path, text)
        return text


def replace_lines(lines: list[str], sent: list[tuple[Reminder, str]]) -> list[str] | None:
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
