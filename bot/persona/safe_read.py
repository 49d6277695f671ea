"""Reading persona files from disk so that only the persona's own text, and only as much of
it as can be used, is ever read.

A persona file must be a regular file inside the persona's folder: a symbolic link (on the
file, or on any folder below the data folder, see :mod:`bot.persona.nofollow`) is refused, as are
FIFOs, devices and anything else that is not a regular file, without blocking on them. So a
``USER.md`` pointing at ``/proc/self/environ`` or ``/etc/passwd`` never reaches the prompt or
the memory mirrors.

A file is read only up to its limit: a file that only feeds the prompt is cut where the
prompt could not use more (the caller says how many bytes that is); one the daemon also
rewrites (tasks, reminders, distilled memory) must be read whole or not at all, so above
:data:`WHOLE_FILE_LIMIT` it is refused. A refusal is a :class:`Refused` with a sentence
saying why, never the file's content.
"""

from __future__ import annotations

import enum
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from bot.persona.nofollow import LinkRefused, open_folder, open_in_folder, parts_below

__all__ = ["UNCHANGED", "WHOLE_FILE_LIMIT", "Outcome", "Read", "Refused", "read_files", "signature"]

#: the most a file the daemon rewrites may hold (far above any real task list or memory)
WHOLE_FILE_LIMIT = 8 * 1024 * 1024

#: what :func:`signature` gives for a path that is there but not a regular file
_NOT_REGULAR = (-2, -2)


class _Same(enum.Enum):
    UNCHANGED = "unchanged"


#: the file has the signature the caller already holds
UNCHANGED = _Same.UNCHANGED


@dataclass(frozen=True, slots=True)
class Read:
    """A file's bytes as read: all of them, or with ``cut`` the first ``limit`` bytes."""

    signature: tuple[int, int]  # (mtime_ns, size) from the open file
    data: bytes
    cut: bool


@dataclass(frozen=True, slots=True)
class Refused:
    """A file that must not be used, why, and its :func:`signature` (to tell a change)."""

    problem: str
    signature: tuple[int, int]


#: what a read found: missing (None), an error, unchanged, the bytes, or a refusal
Outcome = None | OSError | _Same | Read | Refused


def signature(path: str) -> tuple[int, int]:
    """The file's mtime and size, without following a link at the file; ``(-1, -1)`` when it
    is missing and ``(-2, -2)`` when it is not a regular file."""
    try:
        found = os.lstat(path)
    except OSError:
        return -1, -1
    if not stat.S_ISREG(found.st_mode):
        return _NOT_REGULAR
    return found.st_mtime_ns, found.st_size


def read_files(
    root: str | None, wanted: Sequence[tuple[str, tuple[int, int] | None, int | None]]
) -> list[Outcome]:
    """Read each ``(path, signature held, byte limit)`` (blocking: call it in a disk thread).

    Paths below ``root`` are reached without following a link; each folder is opened once.
    A byte limit cuts the file there; ``None`` reads it whole up to
    :data:`WHOLE_FILE_LIMIT`. Few system calls per file (open, fstat, read, close; one
    ``lstat`` for a file whose signature is the one held): each lets another thread take
    Python's lock, and a preload reads fifteen files."""
    folders: dict[str, int | OSError | None] = {}
    try:
        return [_read(root, folders, path, held, limit) for path, held, limit in wanted]
    finally:
        for fd in folders.values():
            if isinstance(fd, int):
                os.close(fd)


def _open_folder(root: str | None, folder: str) -> int | OSError | None:
    """The folder's descriptor, None when it is missing, or the error that stopped it."""
    parts = None if root is None else parts_below(root, folder)
    try:
        if root is None or parts is None:
            return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return open_folder(root, parts)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc


def _read(
    root: str | None,
    folders: dict[str, int | OSError | None],
    path: str,
    held: tuple[int, int] | None,
    limit: int | None,
) -> Outcome:
    if held is not None and signature(path) == held:
        # one system call for a file read before; safe, as what is handed out again is what
        # was read the safe way (and a refusal stays one)
        return UNCHANGED
    folder, _, name = path.rpartition(os.sep)
    if folder not in folders:
        folders[folder] = _open_folder(root, folder)
    folder_fd = folders[folder]
    if isinstance(folder_fd, LinkRefused):
        return Refused(
            f"{name} was skipped: its folder is reached through a symbolic link, and persona"
            " files must be the persona's own",
            signature(path),
        )
    if not isinstance(folder_fd, int):
        return folder_fd
    try:
        fd = open_in_folder(folder_fd, name, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except LinkRefused:
        return Refused(
            f"{name} was skipped: it is a symbolic link, and persona files must be the"
            " persona's own",
            _NOT_REGULAR,
        )
    except OSError as exc:
        return exc
    try:
        return _read_open(fd, name, held, limit)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)


def _read_open(fd: int, name: str, held: tuple[int, int] | None, limit: int | None) -> Outcome:
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        return Refused(f"{name} was skipped: it is not a regular file", _NOT_REGULAR)
    sig = (found.st_mtime_ns, found.st_size)
    if held == sig:
        return UNCHANGED
    cap = WHOLE_FILE_LIMIT if limit is None else limit
    too_big = Refused(
        f"{name} was skipped: it is larger than {WHOLE_FILE_LIMIT // 1024 // 1024} MB", sig
    )
    if limit is None and found.st_size > cap:
        return too_big
    first = min(found.st_size, cap) + 1
    data = os.read(fd, first)
    if len(data) == first <= cap:  # grown since the fstat: read on, up to the cap
        chunks = [data]
        left = cap + 1 - first
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    if len(data) <= cap:
        return Read(sig, data, cut=False)
    if limit is None:
        return too_big
    return Read(sig, data[:cap], cut=True)
