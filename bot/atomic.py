"""The one helper through which every file that matters is written: temp, fsync, rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["append_durably", "atomic_write_bytes", "atomic_write_text", "fsync_dir"]


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never a mix.

    ``durable=False`` skips the two fsyncs: the replacement is still atomic (a crash of the
    process leaves the old or the new file), but a power cut may bring back the old one.
    Only for soft state that is cheap to lose, such as counters."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            if durable:
                os.fsync(tmp.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600, durable: bool = True) -> None:
    """Atomically replace ``path`` with ``text`` encoded as UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable)


def append_durably(path: Path, text: str, header: str = "") -> None:
    """Append ``text`` to ``path`` and fsync it before returning (used by the session log).
    A file this call creates starts with ``header``."""
    created = False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except FileNotFoundError:
        try:
            fd = _create(path)
            created = True
        except FileExistsError:  # made meanwhile by another writer
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        data = ((header if created else "") + text).encode("utf-8")
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)


def _create(path: Path) -> int:
    """A new file at ``path`` (making its folder if needed); FileExistsError if it is there."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags, 0o600)
