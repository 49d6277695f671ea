"""Everything under the data folder is the user's alone: folders 0700, files 0600.

Memories, session logs and the state database are as private as a diary, and a daemon started
from a shell inherits a umask (often 022) that would make them readable by every local user.
So every ``personad`` command and the daemon's start set the umask to :data:`PRIVATE_UMASK`,
the writers create folders and files private whatever the umask (:func:`make_private_dirs`,
:func:`create_private_file`; SQLite gives its ``-wal`` and ``-shm`` files the mode of the
database file), and at start an existing install is tightened once
(:func:`tighten_tree`, one log line with the count).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import structlog

from bot.daemon.disk import run_blocking

__all__ = [
    "PRIVATE_UMASK",
    "create_private_file",
    "make_private_dirs",
    "private_umask",
    "secure_data_dir",
    "tighten_tree",
]

log = structlog.get_logger(__name__)

#: no permission bits for the group or others on anything this process creates
PRIVATE_UMASK = 0o077

_OTHERS = 0o077


def private_umask() -> None:
    """Make this process create files and folders for its user only."""
    os.umask(PRIVATE_UMASK)


def make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each 0700 whatever the umask (``mkdir -p``
    and :meth:`Path.mkdir` give the parents the umask's mode)."""
    missing = []
    current = folder
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile, or a file: the caller's open says which
            continue
        os.chmod(path, 0o700)


def create_private_file(path: Path) -> None:
    """Make sure ``path`` exists as a 0600 regular file, created empty if missing (an empty
    file is a valid new SQLite database) and tightened if looser; never through a link."""
    make_private_dirs(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        mode = os.fstat(fd).st_mode
        if mode & _OTHERS:
            os.fchmod(fd, stat.S_IMODE(mode) & ~_OTHERS)
    finally:
        os.close(fd)


def tighten_tree(root: Path) -> tuple[int, int]:
    """Take the group's and others' bits off every folder and file under ``root`` (and
    ``root`` itself); how many had them, and how many of those could not be changed (owned
    by another user, say). Links are neither followed nor changed."""
    changed = failed = 0

    def tighten(path: str, mode: int) -> None:
        nonlocal changed, failed
        if mode & _OTHERS and (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            try:
                os.chmod(path, stat.S_IMODE(mode) & ~_OTHERS)
                changed += 1
            except OSError:
                failed += 1

    tighten(os.fspath(root), os.stat(root).st_mode)
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            path = os.path.join(folder, name)
            try:
                tighten(path, os.lstat(path).st_mode)
            except FileNotFoundError:  # removed meanwhile
                continue
    return changed, failed


async def secure_data_dir(data_dir: Path) -> None:
    """At start: a private umask, the data folder made (0700) and an existing install
    tightened, with one log line when anything was looser (and one for what stayed so)."""
    private_umask()
    await run_blocking(make_private_dirs, data_dir)
    count, failed = await run_blocking(tighten_tree, data_dir)
    if count:
        log.warning("data_dir.tightened", count=count, path=str(data_dir))
    if failed:
        log.error("data_dir.tighten_failed", count=failed, path=str(data_dir))
