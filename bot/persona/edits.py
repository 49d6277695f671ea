"""Edits of persona files by their user (the web console's Files panel, ``/share``), in the
identity changelog.

This lives beside :mod:`bot.persona.identity`, not in it, since the identity code may write
only VOICE.md and PERSONA.md: a person may edit any file of their persona, the persona itself
may not.

An edit is appended to ``IDENTITY_CHANGELOG.md`` as an ``edit`` entry holding the whole text
before and after, so it can be undone like the persona's own changes: :func:`undo_change` puts
the text back when the file is still as the edit left it, and refuses otherwise (a later
change would be lost; the user undoes that first or edits by hand). Edits, undos and the
observer's changes share the persona's identity edit lock, so none of them interleave.
"""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from bot.daemon.errors import PersonaError
from bot.persona.identity.changelog import (
    Change,
    append_change,
    next_id,
    pending_changes,
    read_changes,
)
from bot.persona.identity.state import edit_lock
from bot.persona.identity.undo import undo_last
from bot.persona.store import PersonaStore

__all__ = ["edit_file", "undo_change", "undoable_changes"]

log = structlog.get_logger(__name__)


def _now(at: datetime | None) -> str:
    return (at or datetime.now(UTC)).isoformat(timespec="seconds")


def _entry(
    changes: list[Change],
    op: str,
    file: str,
    by: str,
    before: str,
    after: str,
    *,
    at: datetime | None,
    undoes: int | None = None,
) -> Change:
    return Change(
        id=next_id(changes),
        op="edit" if op == "edit" else "undo",
        at=_now(at),
        file=file,
        slot="",
        kind="edit",
        value=by,
        explicit=True,
        evidence="",
        bullet_before=None,
        bullet_after=None,
        section_before=before,
        section_after=after,
        undoes=undoes,
    )


async def edit_file(
    store: PersonaStore,
    user: str,
    persona: str,
    filename: str,
    text: str,
    *,
    by: str,
    at: datetime | None = None,
) -> bool:
    """Replace ``filename`` with ``text`` and log the edit; False when nothing changed.
    PersonaError when the file is unreadable as text (writing would lose it)."""
    async with edit_lock(store, user, persona):
        current = await store.load_whole(user, persona, filename)
        if current.problem:
            raise PersonaError(
                f"{filename}: {current.problem}",
                user_message=(
                    f"{filename} is not readable as text ({current.problem}), so it was left"
                    " untouched."
                ),
            )
        if current.text == text:
            return False
        changes = await read_changes(store, user, persona)
        await store.write(user, persona, filename, text)
        await append_change(
            store,
            user,
            persona,
            _entry(changes, "edit", filename, by, current.text, text, at=at),
        )
    log.info("identity.file_edited", file=filename, chars=len(text))
    return True


def undoable_changes(changes: list[Change]) -> list[Change]:
    """Changes the persona made and edits by hand, not undone yet, oldest first."""
    return pending_changes(changes, ("apply", "edit"))


async def undo_change(
    store: PersonaStore,
    user: str,
    persona: str,
    change_id: int,
    *,
    by: str,
    at: datetime | None = None,
) -> str:
    """Undo one change of the changelog, whichever; the sentence for the user."""
    changes = await read_changes(store, user, persona)
    target = next((c for c in undoable_changes(changes) if c.id == change_id), None)
    if target is None:
        return f"Change {change_id} is not one that can be undone: unknown, or undone already."
    if target.op == "apply":
        return await undo_last(store, user, persona, at=at, change_id=change_id)
    async with edit_lock(store, user, persona):
        changes = await read_changes(store, user, persona)
        current = await store.load_whole(user, persona, target.file)
        if current.problem or current.text != target.section_after:
            return (
                f"{target.file} has changed since change {change_id}, so undoing it would lose"
                " the later changes. Undo those first, or edit the file by hand."
            )
        await store.write(user, persona, target.file, target.section_before)
        await append_change(
            store,
            user,
            persona,
            _entry(
                changes,
                "undo",
                target.file,
                by,
                current.text,
                target.section_before,
                at=at,
                undoes=change_id,
            ),
        )
    log.info("identity.edit_undone", change=change_id, file=target.file)
    return f"Undone: {target.file} is back as it was before change {change_id}."
