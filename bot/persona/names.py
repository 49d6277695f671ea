"""User and persona names become folder names, so they are checked before any path is built.

A name is 1-64 ASCII letters, digits, ``-`` or ``_``, starting with a letter or digit, and
the whole string must be exactly that: ``re.match`` with ``$`` would let ``"scott\\n"`` through
(``$`` also matches before a final newline), so the check is a ``fullmatch``. Names that
some file systems treat specially (``con``, ``nul``, ``com1`` ...) are refused too, so a data
folder copied to another machine still opens.
"""

from __future__ import annotations

import re

from bot.daemon.errors import NameRejected

__all__ = ["MAX_NAME", "validate_name"]

MAX_NAME = 64

_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_NAME - 1}}}", re.ASCII)

#: device names Windows reserves in every folder, with or without an extension
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{n}" for n in range(1, 10)}
    | {f"lpt{n}" for n in range(1, 10)}
)


def validate_name(name: object, what: str = "name") -> str:
    """Return ``name`` if it is a safe folder name, else raise NameRejected saying why."""
    if not isinstance(name, str):
        raise NameRejected(f"{what} name must be text, not {type(name).__name__}")
    if not name:
        raise NameRejected(f"{what} name is empty")
    if len(name) > MAX_NAME:
        raise NameRejected(f"{what} name is {len(name)} characters long; the limit is {MAX_NAME}")
    if "/" in name or "\\" in name or ".." in name:
        raise NameRejected(f"{what} name {name!r} may not contain '/', '\\' or '..'")
    if name.startswith("."):
        raise NameRejected(f"{what} name {name!r} may not start with '.'")
    if not _NAME.fullmatch(name):
        raise NameRejected(
            f"{what} name {name!r} must be 1-{MAX_NAME} letters, digits, '-' or '_',"
            " starting with a letter or digit"
        )
    if name.lower() in _RESERVED:
        raise NameRejected(f"{what} name {name!r} is a reserved device name")
    return name
