"""The one helper through which every file that matters is written: temp, fsync, rename.

Files are created 0600 and missing folders 0700 whatever the umask. Nothing is ever written
through a symbolic link: the temp file is made with ``O_EXCL | O_NOFOLLOW`` and renamed over
the target (which replaces a link planted there instead of writing to where it points), an
append refuses a link, and with ``root`` (the data folder) no folder between ``root`` and the
file may be a link either (see :mod:`bot.persona.nofollow`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from bot.persona.nofollow import folder_below, open_in_folder

__all__ = ["append_durably", "atomic_write_bytes", "atomic_write_text", "fsync_dir"]


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def atomic_write_bytes(
    path: Path, data: bytes, *, mode: int = 0o600, durable: bool = True, root: Path | None = None
) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never a mix.

    ``durable=False`` skips the two fsyncs: the replacement is still atomic (a crash of the
    process leaves the old or the new file), but a power cut may bring back the old one.
    Only for soft state that is cheap to lose, such as counters. With ``root``, no folder
    below it on the way to ``path`` may be a link (:class:`bot.persona.nofollow.LinkRefused`)."""
    folder = folder_below(root or path.parent, path.parent, create=True)
    try:
        tmp_name = f".{path.name}.{secrets.token_hex(4)}.tmp"
        fd = open_in_folder(folder, tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            try:
                _write_all(fd, data)
                os.fchmod(fd, mode)  # the umask may have taken bits the caller asked for
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp_name, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name, dir_fd=folder)
            raise
        if durable:
            os.fsync(folder)
    finally:
        os.close(folder)


def atomic_write_text(
    path: Path, text: str, *, mode: int = 0o600, durable: bool = True, root: Path | None = None
) -> None:
    """Atomically replace ``path`` with ``text`` encoded as UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable, root=root)


def append_durably(path: Path, text: str, header: str = "", root: Path | None = None) -> None:
    """Append ``text`` to ``path`` and fsync it before returning (used by the session log).
    A file this call creates starts with ``header``. A write that fails leaves the file as it
    was (one it created is removed). A link at ``path`` is refused, as is a
    folder link between ``root`` and ``path``."""
    folder = folder_below(root or path.parent, path.parent, create=True)
    try:
        created = False
        try:
            fd = _open_regular(folder, path.name, 0)
        except FileNotFoundError:
            try:
                fd = _open_regular(folder, path.name, os.O_CREAT | os.O_EXCL)
                created = True
            except FileExistsError:  # made meanwhile by another writer
                fd = _open_regular(folder, path.name, 0)
        try:
            start = os.fstat(fd).st_size
            try:
                _write_all(fd, ((header if created else "") + text).encode("utf-8"))
                os.fsync(fd)
            except OSError:
                # the disk took part of it (full, or failing): the file as it was, so the text
                # can be written again whole and nothing is read back cut in two
                with contextlib.suppress(OSError):
                    if created:
                        os.unlink(path.name, dir_fd=folder)
                    else:
                        os.ftruncate(fd, start)
                raise
        finally:
            os.close(fd)
        if created:
            os.fsync(folder)
    finally:
        os.close(folder)


def _open_regular(folder: int, name: str, flags: int) -> int:
    """``name`` opened for appending; a FIFO or device there is refused without blocking."""
    fd = open_in_folder(folder, name, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{name} is not a regular file", name)
    return fd
