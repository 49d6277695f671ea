"""User and persona names become folder names, so they are checked before any path is built."""

from __future__ import annotations

import re

from bot.errors import NameRejected

__all__ = ["validate_name"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def validate_name(name: str, what: str = "name") -> str:
    """Return ``name`` if it is a safe folder name, else raise NameRejected saying why."""
    if not isinstance(name, str) or not name:
        raise NameRejected(f"{what} name is empty")
    if "/" in name or "\\" in name or ".." in name:
        raise NameRejected(f"{what} name {name!r} may not contain '/', '\\' or '..'")
    if name.startswith("."):
        raise NameRejected(f"{what} name {name!r} may not start with '.'")
    if not _NAME.match(name):
        raise NameRejected(
            f"{what} name {name!r} must be 1-64 letters, digits, '-' or '_',"
            " starting with a letter or digit"
        )
    return name
