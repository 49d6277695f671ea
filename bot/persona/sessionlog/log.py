"""The day's session log: ``sessions/YYYY-MM-DD.md`` in the persona's folder.

Each turn is appended as markdown and fsynced before the reply goes out. A log that cannot be
written (the disk full or read-only) does not stop the answer: the reply still goes out,
``sessionlog.append_failed`` says why, and what was not written waits in memory, in order, and
is written before anything else once the disk takes it again
(:mod:`bot.persona.sessionlog.waiting`; ``/status`` says how many are waiting)::

    ### 14:02:11 · user · scott · telegram:123456

    What time is the dentist tomorrow?

    ### 14:02:15 · persona · inara · telegram:123456

    At 9:30. Want a reminder at 8?

The date and times are the user's local ones; the last field is the room (``platform:id``;
older logs name only the platform). ``/new`` appends an ``event`` heading naming its room;
the conversation of a room restored after a restart starts after the last one there. An
answer the platform did not take at once is followed by an ``answer queued`` event, and by
``answer delivered`` when the outbox delivered it: a queued answer with no delivered line
after it never reached the room. A message whose turn failed (the model could not be reached)
is followed by ``not answered · ROOM``: the user was told, and a restored conversation leaves
it out, as the live one did. A message line that looks like a heading is written with a
leading backslash and read back without it.
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

import structlog

from bot.daemon.disk import run_blocking
from bot.persona.nofollow import LinkRefused, read_own_text
from bot.persona.sessionlog.waiting import waiting_for
from bot.turn.conversation import Entry

__all__ = [
    "LoggedTurn",
    "NewConversation",
    "NotAnswered",
    "SessionLog",
    "blocks_by_room",
]

#: the event line after a message whose turn failed
NOT_ANSWERED = "not answered"

log = structlog.get_logger(__name__)

#: how a message heading marks a room that was shared when it was said
_SHARED = " · shared"
_HEADING = re.compile(r"^### (\d\d:\d\d:\d\d) · (user|persona|event) · (.*)$")
_ESCAPED = re.compile(r"^\\+### \d\d:\d\d:\d\d · ")


@dataclass(frozen=True, slots=True)
class NewConversation:
    """A ``/new`` in the log: in ``room``, or in every room when the log names none."""

    room: str = ""


@dataclass(frozen=True, slots=True)
class NotAnswered:
    """The event after a message of ``room`` whose turn failed: it is not part of the
    conversation the next turns send."""

    room: str


@dataclass(frozen=True, slots=True)
class LoggedTurn:
    speaker: str
    entry: Entry


def _where(rest: str) -> tuple[str, bool]:
    """The room a message heading names after its speaker, and whether it was shared then."""
    shared = rest.endswith(_SHARED)
    return rest.removesuffix(_SHARED).rpartition(" · ")[2], shared


def blocks_by_room(text: str) -> list[tuple[str, bool, str]]:
    """A day's log text cut into its headed messages, each with the room its heading names
    (``platform:id``; "" for an older log's platform-only heading) and whether that room was
    a shared one when it was said, in order. An event line goes with the message before it
    (an "answer queued" is about that answer), a ``/new`` is left out (it says nothing), and
    so is the file's own header; other text before the first heading counts as direct."""
    blocks: list[tuple[str, bool, str]] = []
    room, shared, lines = "", False, list[str]()
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match is None:
            if not (line.startswith("# Session log ") and not blocks and not lines):
                lines.append(line)
        elif match.group(2) == "event":
            if not match.group(3).startswith("new conversation"):
                lines.append(line)
        else:
            blocks.append((room, shared, "\n".join(lines).strip()))
            where, shared = _where(match.group(3))
            room, lines = (where if ":" in where else ""), [line]
    blocks.append((room, shared, "\n".join(lines).strip()))
    return [block for block in blocks if block[2]]


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
        #: the data folder (``DATA_DIR/user/persona/NAME``): no folder below it may be a link
        self._root = persona_dir.parent.parent.parent
        self._day: tuple[date, Path] | None = None  # the last day asked for, and its file
        self._waiting = waiting_for(self.directory, self._root)

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
                f"### {clock} · {role} · {turn.speaker} · {entry.room or entry.platform}"
                f"{_SHARED if entry.shared else ''}\n\n"
                f"{_escape(entry.text.strip())}\n\n"
            )
        return day, "".join(parts)

    async def append(self, turns: Sequence[LoggedTurn], zone: ZoneInfo) -> Path:
        """Append ``turns`` (all of one local day) and fsync before returning."""
        day, text = self._render(turns, zone)
        path = self.path_for(day)
        await run_blocking(self._waiting.append, path, self._header(day), text)
        return path

    @property
    def waiting(self) -> tuple[int, str]:
        """How many texts wait for the disk, and why the last write failed ("" if none)."""
        waiting = self._waiting
        return len(waiting.texts), waiting.error if waiting.texts else ""

    def _header(self, day: date) -> str:
        return f"# Session log {day.isoformat()} · {self.persona}\n\n"

    async def mark_new_conversation(self, at: datetime, zone: ZoneInfo, room: str) -> None:
        await self.mark_event(at, zone, f"new conversation · {room}")

    async def mark_unanswered(self, at: datetime, zone: ZoneInfo, room: str) -> None:
        await self.mark_event(at, zone, f"{NOT_ANSWERED} · {room}")

    async def mark_event(self, at: datetime, zone: ZoneInfo, what: str) -> None:
        """Append an ``event`` heading (``new conversation · ROOM``, ``answer queued``, ...).
        A note about a turn, never worth the turn: a file that cannot be written (the disk
        full, read-only) keeps the note waiting with the turns, logged, and whatever called
        goes on (a queued answer is still marked queued in memory, so it is never sent
        twice)."""
        local = at.astimezone(zone)
        path = self.path_for(local.date())
        text = f"### {local:%H:%M:%S} · event · {what}\n\n"
        try:
            await run_blocking(self._waiting.append, path, self._header(local.date()), text)
        except LinkRefused:
            raise  # a link planted in the folder: refused loudly, as every write there is
        except OSError as exc:
            log.error("sessionlog.event_failed", note=what, error=str(exc))

    def read_day(self, day: date, zone: ZoneInfo) -> list[Entry | NewConversation | NotAnswered]:
        """Entries of one day in order, with the new-conversation events among them."""
        path = self.path_for(day)
        try:
            raw = read_own_text(path, self._root)
        except FileNotFoundError:
            return []
        except LinkRefused:  # a link planted here would feed another file to the model
            log.warning("sessionlog.link_refused", file=path.name)
            return []
        result: list[Entry | NewConversation | NotAnswered] = []
        current: tuple[str, str, str] | None = None
        body: list[str] = []

        def flush() -> None:
            if current is None:
                return
            clock, role, rest = current
            at = datetime.combine(day, time.fromisoformat(clock), tzinfo=zone)
            if role == "event":
                what, _, room = rest.strip().partition(" · ")
                if what == "new conversation":
                    result.append(NewConversation(room))
                elif what == NOT_ANSWERED and room:
                    result.append(NotAnswered(room))
                return
            where, shared = _where(rest)
            platform, colon, _id = where.partition(":")
            text = "\n".join(body).strip()
            result.append(
                Entry(
                    role="user" if role == "user" else "assistant",
                    text=text,
                    at=at,
                    platform=platform or "console",
                    room=where if colon else "",
                    shared=shared,
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

    def restore(self, day: date, zone: ZoneInfo, *, limit: int) -> dict[str, list[Entry]]:
        """The current conversation of each room on ``day``: its entries after the last
        ``/new`` there, newest ``limit`` of them. Entries of an older log that names no room
        belong to no room: they are not restored anywhere."""
        rooms: dict[str, list[Entry]] = {}
        for item in self.read_day(day, zone):
            if isinstance(item, NewConversation):
                if item.room:
                    rooms.pop(item.room, None)
                else:
                    rooms.clear()
            elif isinstance(item, NotAnswered):
                entries = rooms.get(item.room)
                if entries and entries[-1].role == "user":
                    entries.pop()
            elif item.room:
                rooms.setdefault(item.room, []).append(item)
        return {room: entries[-limit:] for room, entries in rooms.items()}

    def days(self) -> list[date]:
        if not self.directory.is_dir():
            return []
        found = []
        for path in self.directory.glob("????-??-??.md"):
            if path.is_symlink():  # never read (see read_day), so not a day of the log
                continue
            try:
                found.append(date.fromisoformat(path.stem))
            except ValueError:
                continue
        return sorted(found)
