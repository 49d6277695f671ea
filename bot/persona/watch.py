"""Telling when a persona file changes without asking the disk on every read (Linux inotify).

Without a watcher, :class:`~bot.persona.file_cache.FileCache` checks each cached file's mtime
and size on every read: about fifteen ``stat`` calls a turn. Each one releases the GIL, and
while the worker threads are busy (fsyncs, SQLite) the event loop then waits to get it back;
under load that was the largest single cost of a turn. With a :class:`DirectoryWatcher`, the
cache watches each persona folder it reads from and trusts its entries until the kernel
reports a change to that file (then the file is read again); its background check on disk
covers what inotify cannot see.

The watcher reads its events when the event loop finds the inotify descriptor readable, so an
edit is seen by every read that starts after the loop has next polled: in practice at once.
Where inotify is missing (not Linux) or a folder cannot be watched (the per-user watch limit),
the cache falls back to checking every read.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from collections.abc import Callable

import structlog

__all__ = ["DirectoryWatcher", "inotify_available"]

log = structlog.get_logger(__name__)

_IN_MODIFY = 0x00000002
_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
_IN_ONLYDIR = 0x01000000

_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
)
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; the name follows, NUL-padded

#: ``changed(directory, name)``: one file changed; ``name`` None: anything in ``directory``
#: may have; both None: anything anywhere may have (events were lost)
ChangeHandler = Callable[[str | None, str | None], None]


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1  # noqa: B018 - present only where inotify is
    except (OSError, AttributeError):
        return None
    return libc


def inotify_available() -> bool:
    return _libc() is not None


class DirectoryWatcher:
    """One inotify instance watching folders (not their sub-folders)."""

    def __init__(self, changed: ChangeHandler) -> None:
        libc = _libc()
        if libc is None:
            raise OSError(errno.ENOSYS, "inotify is not available here")
        self._libc = libc
        fd = int(libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_init1: {os.strerror(code)}")
        self.fd = fd
        self._changed = changed
        self._by_wd: dict[int, str] = {}
        self._by_dir: dict[str, int] = {}
        self._warned_limit = False

    def watch(self, directory: str) -> bool:
        """Watch ``directory``; False when it cannot be (missing, or the watch limit)."""
        if directory in self._by_dir:
            return True
        if self.fd < 0:
            return False
        wd = int(self._libc.inotify_add_watch(self.fd, os.fsencode(directory), _MASK))
        if wd < 0:
            code = ctypes.get_errno()
            if code == errno.ENOSPC and not self._warned_limit:
                self._warned_limit = True
                log.warning(
                    "persona.watch_limit",
                    hint="raise fs.inotify.max_user_watches; files are checked on every read",
                )
            return False
        self._by_wd[wd] = directory
        self._by_dir[directory] = wd
        return True

    def read_events(self) -> None:
        """Handle every event waiting (the event loop calls this when the fd is readable)."""
        while self.fd >= 0:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                log.error("persona.watch_failed", error=str(exc))
                self._forget_all()
                return
            self._handle(data)

    def _handle(self, data: bytes) -> None:
        offset = 0
        while offset + _HEADER.size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
            raw_name = data[offset + _HEADER.size : offset + _HEADER.size + length]
            offset += _HEADER.size + length
            if mask & _IN_Q_OVERFLOW:
                self._changed(None, None)
                continue
            directory = self._by_wd.get(wd)
            if directory is None:
                continue
            if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED):
                self._unwatch(wd, directory)
                self._changed(directory, None)
                continue
            name = os.fsdecode(raw_name.rstrip(b"\0"))
            self._changed(directory, name or None)

    def _unwatch(self, wd: int, directory: str) -> None:
        self._by_wd.pop(wd, None)
        self._by_dir.pop(directory, None)
        if self.fd >= 0:
            self._libc.inotify_rm_watch(self.fd, wd)  # fails quietly if already gone

    def _forget_all(self) -> None:
        self._by_wd.clear()
        self._by_dir.clear()
        self._changed(None, None)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self._forget_all()
