"""A per-persona SQLite FTS5 index of the session logs (``/search``, ``GET /sessions/search``).

Each turn of ``sessions/YYYY-MM-DD.md`` is one row: its searchable terms (every word folded
to lowercase without accents, then stemmed in English and in Portuguese, see
:func:`bot.persona.sessionlog.search.word_keys`) and, unindexed, its day, time, role, room and text.
The index lives in ``session_index.db`` in the persona's folder and is only a cache of the logs:
deleted, it is rebuilt from them; its schema changed, likewise.

Keeping up with the logs without reading them all on every search: a day whose file changed
size or time is read again whole (a day's log is small). The newest two days are checked on
every search (today's log grows with each turn; a day ends at local midnight), every file
when the folder itself changed (a day added, removed or replaced) or a minute has passed
since the last full check, so an old day edited by hand is seen within a minute. Off The
Record turns never reach a log, so they never reach the index; a secret in a logged turn
is withheld in the index (:func:`bot.memory.policy.redact_secrets`), so a search neither finds
nor shows it. The index file is private (0600) like every store.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

import structlog

from bot.memory.policy import redact_secrets
from bot.persona.sessionlog.log import SessionLog
from bot.setup.permissions import create_private_file
from bot.turn.conversation import Entry

__all__ = ["INDEX_FILE", "IndexedTurn", "SessionIndex"]

log = structlog.get_logger(__name__)

INDEX_FILE = "session_index.db"
_SCHEMA_VERSION = 5
#: a turn's rowid is its day's ordinal times this, plus its place in the day: rowid order is
#: time order (newest first without sorting), and a day's rows are one range
_ROWS_PER_DAY = 100_000
#: how long the index trusts that no old day changed, between full checks of the folder
FULL_CHECK_SECONDS = 60.0
_RECENT_DAYS = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS days (day TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER);
CREATE VIRTUAL TABLE IF NOT EXISTS turns USING fts5(
    terms, day UNINDEXED, clock UNINDEXED, role UNINDEXED, room UNINDEXED, shared UNINDEXED,
    body UNINDEXED,
    tokenize = 'unicode61'
);
"""


@dataclass(frozen=True, slots=True)
class IndexedTurn:
    day: str
    clock: str
    role: str
    room: str
    text: str


Terms = Callable[[str], str]


class SessionIndex:
    """One persona's index; thread-safe (searches run in a worker thread)."""

    def __init__(self, persona_dir: Path, persona: str, terms: Terms) -> None:
        self.path = persona_dir / INDEX_FILE
        self.sessions = SessionLog(persona_dir, persona)
        self._terms = terms
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._folder_mtime = -1
        self._full_check_at = 0.0
        #: the day files as of the last full check, oldest first
        self._names: list[str] = []
        #: (size, mtime) of each indexed day, as the ``days`` table holds them
        self._known: dict[str, tuple[int, int]] = {}

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            db = self._open()
        except sqlite3.DatabaseError as exc:  # a damaged cache: build it again from the logs
            log.warning("session_index.rebuilding", error=str(exc))
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            db = self._open()
        self._known = {
            row[0]: (row[1], row[2]) for row in db.execute("SELECT day, size, mtime_ns FROM days")
        }
        self._folder_mtime = -1  # a new connection checks every day
        self._db = db
        return db

    def _open(self) -> sqlite3.Connection:
        create_private_file(self.path)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
                # a cache of the logs: an older layout is dropped and built again
                db.executescript("DROP TABLE IF EXISTS days; DROP TABLE IF EXISTS turns;")
                db.executescript(_SCHEMA)
                db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            db.execute("SELECT COUNT(*) FROM days").fetchone()
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _files(self, full: bool) -> dict[str, os.stat_result]:
        """The day files to compare with the index: all of them, or the newest ones."""
        directory = self.sessions.directory
        if full:
            try:
                listed = os.listdir(directory)
            except FileNotFoundError:
                listed = []
            self._names = sorted(n for n in listed if len(n) == 13 and n.endswith(".md"))
        names = self._names
        found: dict[str, os.stat_result] = {}
        for name in names if full else names[-_RECENT_DAYS:]:
            try:
                found[name[:-3]] = os.stat(directory / name, follow_symlinks=False)
            except FileNotFoundError:
                continue
        return found

    def refresh(self) -> int:
        """Bring the index up to date with the logs; returns how many days were (re)read."""
        with self._lock:
            return self._refresh()

    def _refresh(self) -> int:
        db = self._connect()
        try:
            folder_mtime = os.stat(self.sessions.directory).st_mtime_ns
        except FileNotFoundError:
            folder_mtime = 0
        now = time.monotonic()
        full = folder_mtime != self._folder_mtime or now - self._full_check_at > FULL_CHECK_SECONDS
        if full and not self.path.exists():  # the index was deleted: build it again
            db.close()
            self._db = None
            db = self._connect()
        files = self._files(full)
        known = self._known
        stale = [
            day for day, stat in files.items() if known.get(day) != (stat.st_size, stat.st_mtime_ns)
        ]
        gone = [day for day in known if day not in files] if full else []
        if stale or gone:
            db.execute("BEGIN")
            try:
                for day in gone:
                    self._drop(db, day)
                for day in stale:
                    self._index_day(db, day, files[day])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            log.info("session_index.refreshed", days=len(stale), removed=len(gone))
        if full:
            self._folder_mtime, self._full_check_at = folder_mtime, now
        return len(stale)

    def _drop(self, db: sqlite3.Connection, day: str) -> None:
        try:
            first = date.fromisoformat(day).toordinal() * _ROWS_PER_DAY
        except ValueError:
            first = None
        if first is not None:
            db.execute(
                "DELETE FROM turns WHERE rowid BETWEEN ? AND ?", (first, first + _ROWS_PER_DAY - 1)
            )
        db.execute("DELETE FROM days WHERE day = ?", (day,))
        self._known.pop(day, None)

    def _index_day(self, db: sqlite3.Connection, day: str, stat: os.stat_result) -> None:
        self._drop(db, day)
        try:
            parsed = date.fromisoformat(day)
        except ValueError:
            return
        # the zone only anchors the clock read back from the heading; local times stay as written
        rows = []
        for item in self.sessions.read_day(parsed, ZoneInfo("UTC")):
            if isinstance(item, Entry) and item.text:
                text = redact_secrets(item.text)  # a secret is never found, nor shown, by search
                clock = f"{item.at:%H:%M:%S}"
                rows.append(
                    (self._terms(text), day, clock, item.role, item.room, int(item.shared), text)
                )
        first = parsed.toordinal() * _ROWS_PER_DAY
        db.executemany(
            "INSERT INTO turns (rowid, terms, day, clock, role, room, shared, body)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + offset, *row) for offset, row in enumerate(rows[:_ROWS_PER_DAY])],
        )
        db.execute(
            "INSERT INTO days (day, size, mtime_ns) VALUES (?, ?, ?)",
            (day, stat.st_size, stat.st_mtime_ns),
        )
        self._known[day] = (stat.st_size, stat.st_mtime_ns)

    def search(
        self,
        match: str,
        *,
        room: str | None,
        days: int,
        per_day: int,
        shared_only: bool = False,
    ) -> list[IndexedTurn]:
        """Turns matching the FTS5 expression ``match`` on the newest ``days`` days that have
        any, newest first, at most ``per_day`` of each day (its latest); only turns of
        ``room`` when given, and with ``shared_only`` only those said while it was shared
        (a room that was a direct one before keeps those words private)."""
        with self._lock:
            self._refresh()
            db = self._connect()
            sql = "SELECT day, clock, role, room, body FROM turns WHERE turns MATCH ?"
            params: list[object] = [match]
            if room is not None:
                sql += " AND room = ?"
                params.append(room)
            if shared_only:
                sql += " AND shared = 1"
            rows: Iterable[tuple[str, str, str, str, str]] = db.execute(
                sql + " ORDER BY rowid DESC", params
            )
            found: list[IndexedTurn] = []
            seen_days: list[str] = []
            taken = 0
            for row in rows:  # read lazily in time order: stops at the first day too many
                if not seen_days or seen_days[-1] != row[0]:
                    if len(seen_days) == days:
                        break
                    seen_days.append(row[0])
                    taken = 0
                if taken < per_day:
                    found.append(IndexedTurn(*row))
                    taken += 1
            return found
