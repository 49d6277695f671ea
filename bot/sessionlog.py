"""The day's session log: ``sessions/YYYY-MM-DD.md`` in the persona's folder.

Each turn is appended as markdown and fsynced before the reply goes out::

    ### 14:02:11 · user · scott · telegram

    What time is the dentist tomorrow?

    ### 14:02:15 · persona · inara · telegram

    At 9:30. Want a reminder at 8?

The date and times are the user's local ones. ``/new`` appends an ``event`` heading; the
conversation restored after a restart starts after the last one. An answer the platform did
not take at once is followed by an ``answer queued`` event, and by ``answer delivered`` when
the outbox delivered it: a queued answer with no delivered line after it never reached the
room. A message line that looks like a heading is written with a leading backslash and read
back without it.
Nothing is ever written here while a session is Off The Record: callers check, and
:meth:`SessionLog.append` refuses an Off The Record entry as a last line of defence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.atomic import append_durably
from bot.conversation import Entry
from bot.disk import run_blocking

__all__ = ["LoggedTurn", "SessionLog"]

_HEADING = re.compile(r"^### (\d\d:\d\d:\d\d) · (user|persona|event) · (.*)$")
_ESCAPED = re.compile(r"^\\+### \d\d:\d\d:\d\d · ")


@dataclass(frozen=True, slots=True)
class LoggedTurn:
    speaker: str
    entry: Entry


def _escape(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if _HEADING.match(line) or _ESCAPED.match(line):
            line = "\\" + line
        lines.append(line)
    return "\n".join(lines)


def _unescape(line: str) -> str:
    return line[1:] if _ESCAPED.match(line) else line


class SessionLog:
    """Appends to and reads back one persona's daily session files."""

    def __init__(self, persona_dir: Path, persona: str) -> None:
        self.directory = persona_dir / "sessions"
        self.persona = persona
        self._day: tuple[date, Path] | None = None  # the last day asked for, and its file

    def path_for(self, day: date) -> Path:
        if self._day is None or self._day[0] != day:  # one day after another: made once
            self._day = (day, self.directory / f"{day.isoformat()}.md")
        return self._day[1]

    def _render(self, turns: Sequence[LoggedTurn], zone: ZoneInfo) -> tuple[date, str]:
        parts = []
        day = turns[0].entry.at.astimezone(zone).date()
        for turn in turns:
            entry = turn.entry
            if entry.otr:
                raise ValueError("an Off The Record entry must never reach the session log")
            local = entry.at.astimezone(zone)
            role = "user" if entry.role == "user" else "persona"
            clock = f"{local.hour:02}:{local.minute:02}:{local.second:02}"
            parts.append(
                f"### {clock} · {role} · {turn.speaker} · {entry.platform}\n\n"
                f"{_escape(entry.text.strip())}\n\n"
            )
        return day, "".join(parts)

    async def append(self, turns: Sequence[LoggedTurn], zone: ZoneInfo) -> Path:
        """Append ``turns`` (all of one local day) and fsync before returning."""
        day, text = self._render(turns, zone)
        path = self.path_for(day)
        await run_blocking(append_durably, path, text, self._header(day))
        return path

    def _header(self, day: date) -> str:
        return f"# Session log {day.isoformat()} · {self.persona}\n\n"

    async def mark_new_conversation(self, at: datetime, zone: ZoneInfo) -> None:
        await self.mark_event(at, zone, "new conversation")

    async def mark_event(self, at: datetime, zone: ZoneInfo, what: str) -> None:
        """Append an ``event`` heading (``new conversation``, ``answer queued``, ...)."""
        local = at.astimezone(zone)
        path = self.path_for(local.date())
        text = f"### {local:%H:%M:%S} · event · {what}\n\n"
        await run_blocking(append_durably, path, text, self._header(local.date()))

    def read_day(self, day: date, zone: ZoneInfo) -> list[Entry | None]:
        """Entries of one day in order; ``None`` marks a new-conversation event."""
        path = self.path_for(day)
        try:
            raw = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        result: list[Entry | None] = []
        current: tuple[str, str, str] | None = None
        body: list[str] = []

        def flush() -> None:
            if current is None:
                return
            clock, role, rest = current
            at = datetime.combine(day, time.fromisoformat(clock), tzinfo=zone)
            if role == "event":
                if rest.strip() == "new conversation":
                    result.append(None)
                return
            _speaker, _, platform = rest.rpartition(" · ")
            text = "\n".join(body).strip()
            result.append(
                Entry(
                    role="user" if role == "user" else "assistant",
                    text=text,
                    at=at,
                    platform=platform or "console",
                )
            )

        for line in raw.splitlines():
            match = _HEADING.match(line)
            if match:
                flush()
                current = (match.group(1), match.group(2), match.group(3))
                body = []
            elif current is not None:
                body.append(_unescape(line))
        flush()
        return result

    def restore(self, day: date, zone: ZoneInfo, *, limit: int) -> list[Entry]:
        """The current conversation of ``day``: entries after the last ``/new``, newest
        ``limit`` of them."""
        entries = self.read_day(day, zone)
        last_new = max((i for i, e in enumerate(entries) if e is None), default=-1)
        current = [e for e in entries[last_new + 1 :] if e is not None]
        return current[-limit:]

    def days(self) -> list[date]:
        if not self.directory.is_dir():
            return []
        found = []
        for path in self.directory.glob("????-??-??.md"):
            try:
                found.append(date.fromisoformat(path.stem))
            except ValueError:
                continue
        return sorted(found)
