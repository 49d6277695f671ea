"""The only persona files the persona changes on its own, and the one way it changes them.

VOICE.md and PERSONA.md evolve (the identity observer); USER.md and MEMORY.md grow by the
facts promoted into them (:mod:`bot.persona.promotion`); every other file, SOUL.md above all
(the anchor against drift), is refused here, whatever a caller asks. A file that is not
valid UTF-8 is never overwritten: the store reads it as empty, and writing a section into
"empty" would wipe the persona's text, so the edit is refused with a log line instead.
"""

from __future__ import annotations

import structlog

from bot.daemon.errors import PersonaError
from bot.persona.store import PersonaStore

__all__ = ["WRITABLE_FILES", "read_identity_file", "write_identity_file"]

log = structlog.get_logger(__name__)

#: what the persona may write itself; SOUL.md is deliberately absent
WRITABLE_FILES = frozenset({"VOICE.md", "PERSONA.md", "USER.md", "MEMORY.md"})


def _check(filename: str) -> None:
    if filename not in WRITABLE_FILES:
        raise PersonaError(
            f"the identity observer may not change {filename}",
            user_message=f"I do not change {filename} on my own.",
        )


def read_identity_file(store: PersonaStore, user: str, persona: str, filename: str) -> str | None:
    """The file's text, or None (logged) when it cannot be read and so must not be written."""
    _check(filename)
    file = store.read(user, persona, filename)
    if file.problem:
        log.warning("identity.file_refused", file=filename, problem=file.problem)
        return None
    return file.text


async def write_identity_file(
    store: PersonaStore, user: str, persona: str, filename: str, text: str
) -> None:
    """Atomically replace VOICE.md or PERSONA.md through the store (which takes its lock)."""
    _check(filename)
    await store.write(user, persona, filename, text)
