"""Folders and files under the data folder, opened without following a symbolic link.

The data folder itself may be a link (an install may keep it on another disk), but nothing
below it may be: a ``USER.md`` pointing at ``/proc/self/environ`` or a persona folder pointing
at ``/etc`` would put another file's content into the prompt and the memory. So a folder is
reached one part at a time from the data folder, each part opened with ``O_NOFOLLOW |
O_DIRECTORY`` relative to the one before (no path is looked up twice, so nothing can be
swapped for a link in between), and files are then opened relative to that folder.

A link found on the way raises :class:`LinkRefused` (an :class:`OSError` with ``ELOOP``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from bot.setup.permissions import make_private_dirs

__all__ = [
    "LinkRefused",
    "folder_below",
    "open_folder",
    "open_in_folder",
    "parts_below",
    "read_own_text",
]

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class LinkRefused(OSError):
    """A symbolic link (or something else that is not a folder) where a folder must be."""


def parts_below(root: str, path: str) -> list[str] | None:
    """The names leading from ``root`` to ``path``; None when ``path`` is not below it."""
    prefix = root.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    parts = path[len(prefix) :].split(os.sep)
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def open_folder(root: str, parts: Sequence[str], *, create: bool = False) -> int:
    """A descriptor of ``root/parts...`` with no link below ``root`` (``create``: missing
    folders are made, private). FileNotFoundError when one is missing and not to be made."""
    fd = os.open(root, _DIRECTORY)
    try:
        for part in parts:
            try:
                child = os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):  # made meanwhile by another writer
                    os.mkdir(part, 0o700, dir_fd=fd)
                child = os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise LinkRefused(
                        errno.ELOOP, f"{part} is a symbolic link or not a folder", part
                    ) from exc
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def folder_below(root: Path, folder: Path, *, create: bool = False) -> int:
    """:func:`open_folder` for a ``folder`` given as a path; ``folder`` opened as given when
    it is not below ``root`` (a file written outside the data folder, by a test or a tool)."""
    parts = parts_below(os.fspath(root), os.fspath(folder))
    if parts is None:
        if create:
            make_private_dirs(folder)
        return os.open(folder, _DIRECTORY)
    if create:
        make_private_dirs(root)
    return open_folder(os.fspath(root), parts, create=create)


def open_in_folder(folder_fd: int, name: str, flags: int, mode: int = 0o600) -> int:
    """Open ``name`` in the folder without following a link (:class:`LinkRefused` if it is
    one)."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkRefused(errno.ELOOP, f"{name} is a symbolic link", name) from exc
        raise


def read_own_text(path: Path, root: Path | None = None) -> str:
    """The text of the regular file at ``path`` (bytes that are not UTF-8 replaced), never
    through a link at it or at a folder below ``root``: :class:`LinkRefused` for a link,
    FileNotFoundError when it (or its folder) is missing."""
    folder = folder_below(root or path.parent, path.parent)
    try:
        fd = open_in_folder(folder, path.name, os.O_RDONLY | os.O_NONBLOCK)
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path.name} is not a regular file", path.name)
        return handle.read().decode("utf-8", errors="replace")
