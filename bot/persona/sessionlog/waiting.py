"""What a persona's session log could not write yet: kept in memory, in order, and written
before anything else once the disk takes it again (or at a stop, :func:`write_waiting`).

Every write of a persona's log goes through its :class:`Waiting` queue, in a disk thread and
under the queue's lock, whichever :class:`~bot.persona.sessionlog.log.SessionLog` makes it
(a session's turns, the outbox's notes): so what waits is never overtaken by a later text.
Up to :data:`MAX_WAITING` characters wait a persona; past it the oldest is let go (logged).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from bot.persona.atomic import append_durably
from bot.persona.nofollow import LinkRefused

__all__ = ["MAX_WAITING", "Waiting", "waiting_for", "write_waiting"]

#: how much of a persona's log may wait in memory for the disk, in characters: a day of a
#: busy household's turns is a few hundred thousand
MAX_WAITING = 4_000_000

log = structlog.get_logger(__name__)


@dataclass(slots=True)
class Waiting:
    """A persona's log texts the disk refused, oldest first, as (file, its header, text)."""

    root: Path  # the data folder: no folder below it may be a link
    lock: threading.Lock = field(default_factory=threading.Lock)
    texts: deque[tuple[Path, str, str]] = field(default_factory=deque)
    chars: int = 0
    error: str = ""  # why the last write failed

    def append(self, path: Path, header: str, text: str) -> None:
        """Write what waits, then ``text`` to ``path`` (a file this makes starts with
        ``header``), in a thread. A write the disk refuses raises, and it and what follows
        wait; a link planted in the folder is refused loudly and that text let go (it is
        never to be written there)."""
        with self.lock:
            self.texts.append((path, header, text))
            self.chars += len(text)
            try:
                self.write()
            except LinkRefused:
                raise
            except OSError:
                while self.chars > MAX_WAITING and len(self.texts) > 1:
                    self._let_go_oldest()
                    log.error("sessionlog.waiting_let_go", folder=path.parent.parent.name)
                raise

    def write(self) -> None:
        """Write what waits, oldest first (under ``lock``); a refused write raises."""
        while self.texts:
            path, header, text = self.texts[0]
            try:
                append_durably(path, text, header, self.root)
            except LinkRefused:
                self._let_go_oldest()
                raise
            except OSError as exc:
                self.error = exc.strerror or str(exc)
                raise
            self._let_go_oldest()
        self.error = ""

    def _let_go_oldest(self) -> None:
        self.chars -= len(self.texts.popleft()[2])


#: by sessions folder: every SessionLog of one persona shares one queue
_QUEUES: dict[Path, Waiting] = {}
_QUEUES_MADE = threading.Lock()


def waiting_for(directory: Path, root: Path) -> Waiting:
    """The queue of the session log in ``directory`` (under the data folder ``root``)."""
    with _QUEUES_MADE:
        return _QUEUES.setdefault(directory, Waiting(root))


def write_waiting(data_dir: Path) -> int:
    """Write what the logs of ``data_dir``'s personas still hold back (a daemon stopping: in
    a thread). How many texts the disk still refused: they end with the process."""
    lost = 0
    with _QUEUES_MADE:
        queues = [waiting for waiting in _QUEUES.values() if waiting.root == data_dir]
    for waiting in queues:
        with waiting.lock:
            try:
                waiting.write()
            except OSError:
                lost += len(waiting.texts)
    return lost
