"""A minute job whose file cannot be saved waits longer each time, and says so once.

The reminder and scheduled-job minute jobs send something, then record in the persona's file
that it was sent. When that file cannot be written (disk full, a read-only folder) the
record is lost and the next minute would send the same thing again, every minute. So a
failed save puts that file on hold: the job leaves it alone for two minutes, then four,
eight... up to an hour between tries, and the user gets ONE notice in their notification
room saying what is wrong, not one a minute (a private one when the file is a shared room's:
its name is not another room's to read). The first save that works lifts the hold.

The holds live in memory, one table per :class:`~bot.persona.store.PersonaStore`; after a
restart the first try finds out again.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta

import structlog

from bot.daemon.notify import Notifier
from bot.persona.store import PersonaStore
from bot.turn.audience import DIRECT, label_of_path

__all__ = ["FIRST_WAIT", "MAX_WAIT", "SaveBackoff", "backoff_for"]

log = structlog.get_logger(__name__)

#: the wait after the first failed save; it doubles with each failure after it
FIRST_WAIT = timedelta(minutes=2)
#: the longest wait between two tries
MAX_WAIT = timedelta(hours=1)

Key = tuple[str, str, str]  # user, persona, file name


@dataclass(slots=True)
class _Hold:
    failures: int
    retry_at: datetime
    noticed: bool = False


class SaveBackoff:
    """The files of one store that could not be saved, and when to try each again."""

    def __init__(self) -> None:
        self._holds: dict[Key, _Hold] = {}

    def waiting(self, user: str, persona: str, filename: str, now: datetime) -> bool:
        """True while the file is on hold: its job must not run before ``retry_at``."""
        hold = self._holds.get((user, persona, filename))
        return hold is not None and now < hold.retry_at

    def retry_at(self, user: str, persona: str, filename: str) -> datetime | None:
        hold = self._holds.get((user, persona, filename))
        return hold.retry_at if hold is not None else None

    async def failed(
        self,
        notifier: Notifier,
        user: str,
        persona: str,
        filename: str,
        error: OSError,
        now: datetime,
    ) -> None:
        """Record a failed save: wait longer before the next try, and tell the user once."""
        key = (user, persona, filename)
        hold = self._holds.get(key)
        failures = hold.failures + 1 if hold is not None else 1
        wait = min(MAX_WAIT, FIRST_WAIT * 2 ** min(failures - 1, 16))
        noticed = hold is not None and hold.noticed
        self._holds[key] = _Hold(failures, now + wait, noticed)
        reason = error.strerror or type(error).__name__
        log.warning(
            "persona_file.save_failed",
            user=user,
            persona=persona,
            file=filename,
            error=reason,
            failures=failures,
            wait_s=int(wait.total_seconds()),
        )
        if not noticed:
            text = (
                f"⚠️ {persona.capitalize()} cannot save {filename} ({reason}). What is due "
                "there waits rather than being sent again and again; I keep trying, less "
                "often each time, and carry on by myself once the file can be written."
            )
            # a shared room's file names that room: never told in another shared room
            private = label_of_path(filename) != DIRECT
            self._holds[key].noticed = await notifier.notify(user, text, private=private)

    def succeeded(self, user: str, persona: str, filename: str) -> None:
        """A save worked: lift the file's hold."""
        hold = self._holds.pop((user, persona, filename), None)
        if hold is not None:
            log.info(
                "persona_file.save_recovered",
                user=user,
                persona=persona,
                file=filename,
                failures=hold.failures,
            )


_tables: weakref.WeakKeyDictionary[PersonaStore, SaveBackoff] = weakref.WeakKeyDictionary()


def backoff_for(store: PersonaStore) -> SaveBackoff:
    """The hold table of ``store`` (one per store, so tests with their own store never
    share holds)."""
    table = _tables.get(store)
    if table is None:
        table = _tables[store] = SaveBackoff()
    return table
