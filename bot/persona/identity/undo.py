"""Undo: revert the newest change the persona made to itself, by appending, never cutting.

A change is a trait the observer wrote into VOICE.md or PERSONA.md, or a fact promoted into
USER.md or MEMORY.md (:mod:`bot.persona.promotion`); an undone promotion is not promoted
again unless asked for explicitly.

The newest applied change that no undo entry names yet is reverted: when the learned section
is still exactly as that change left it, the section is set back byte for byte (a section the
change added is taken off with its separator, so the file is as before); when it was edited by
hand since, only that change's bullet is put back, keeping the hand edits, and the promoted
lines that gave way to an undone promotion return above the promoted lines still there (they
were the oldest), unless the user has taken the whole section off. An "undo" entry is
then appended to the changelog, and the trait's count starts over so it is not re-learned on
the next sighting. Calling it again reverts the change before that one.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from bot.persona.identity.files import read_identity_file, write_identity_file
from bot.persona.identity.section import (
    bullet_sentence,
    bullet_slot,
    find_bullet,
    heading_for,
    replace_block,
    restore_block,
    set_bullet,
    split_section,
)
from bot.persona.identity.state import edit_lock, load_state, save_state
from bot.persona.promotion_state import PROMOTION_KIND, decline
from bot.persona.store import PersonaStore

__all__ = ["NOTHING_TO_UNDO", "undo_last"]

log = structlog.get_logger(__name__)

NOTHING_TO_UNDO = (
    "There is nothing to undo: I have not changed my voice or persona, nor written what I"
    " remembered into USER.md or MEMORY.md, on my own, or every change I made has already"
    " been undone."
)


def _given_back(section: str, heading: str, lines: Sequence[str]) -> str:
    """``section`` with the promoted ``lines`` it no longer holds put back above the first
    promoted line (or at its end when none is left): they gave way as the oldest."""
    back = [
        line
        for line in lines
        if (slot := bullet_slot(line)) is not None and find_bullet(section, slot) is None
    ]
    if not back:
        return section
    if not section:
        return f"{heading}\n\n" + "".join(f"{line}\n" for line in back)
    rows = section.split("\n")
    at = next((i for i, row in enumerate(rows) if bullet_slot(row) is not None), None)
    if at is None:
        body = section.rstrip("\n")
        return body + "\n" + "\n".join(back) + (section[len(body) :] or "\n")
    rows[at:at] = back
    return "\n".join(rows)


def _revert(text: str, heading: str, change: Change) -> str:
    before, section, after = split_section(text, heading)
    if section == change.section_after:
        return restore_block(text, heading, change.section_before, change.separator)
    if not section or not change.gave_way:
        return replace_block(text, heading, change.slot, change.bullet_before).text
    kept = set_bullet(section, heading, change.slot, change.bullet_before)
    return before + _given_back(kept, heading, change.gave_way) + after


async def undo_last(
    store: PersonaStore,
    user: str,
    persona: str,
    *,
    at: datetime | None = None,
    change_id: int | None = None,
) -> str:
    """Revert the newest change not yet undone (or change ``change_id``, one the persona made
    itself); return the sentence for the user."""
    async with edit_lock(store, user, persona):
        try:
            changes = await read_changes(store, user, persona)
        except PersonaError as exc:
            log.warning("identity.undo_refused", error=str(exc))
            return exc.user_message
        pending = pending_changes(changes)
        if change_id is not None:
            pending = [c for c in pending if c.id <= change_id]
            if not pending or pending[-1].id != change_id:
                return f"Change {change_id} is not one I can undo: it is unknown or undone already."
        if not pending:
            return NOTHING_TO_UNDO
        target = pending[-1]
        text = read_identity_file(store, user, persona, target.file)
        if text is None:
            return (
                f"{target.file} is not readable as text (not valid UTF-8), so I left it"
                " untouched. Please fix the file and try again."
            )
        heading = target.heading or heading_for(user)
        section = split_section(text, heading)[1]
        restored = _revert(text, heading, target)
        record = Change(
            id=next_id(changes),
            op="undo",
            at=(at or datetime.now(UTC)).isoformat(timespec="seconds"),
            file=target.file,
            slot=target.slot,
            kind=target.kind,
            value=target.value,
            explicit=target.explicit,
            evidence="",
            bullet_before=find_bullet(section, target.slot),
            bullet_after=target.bullet_before,
            section_before=section,
            section_after=split_section(restored, heading)[1],
            separator=target.separator,
            value_before=target.value,
            explicit_before=target.explicit,
            undoes=target.id,
            heading=target.heading,
        )
        await append_change(store, user, persona, record)
        if restored != text:
            await write_identity_file(store, user, persona, target.file, restored)
        if target.kind == PROMOTION_KIND:
            await decline(store, user, persona, target)
        else:
            state = await load_state(store, user, persona)
            slot = state.slot(target.slot)
            slot.applied, slot.explicit = target.value_before, target.explicit_before
            slot.counts.pop(target.value, None)
            await save_state(store, user, persona, state)
        log.info("identity.undone", change=target.id, file=target.file, slot=target.slot)
    left = len(pending) - 1
    plural = "s" if left != 1 else ""
    more = f" ({left} earlier change{plural} can still be undone.)" if left else ""
    if target.bullet_before is not None:
        return f"Undone: {target.file} is back to “{bullet_sentence(target.bullet_before)}”.{more}"
    assert target.bullet_after is not None
    return f"Undone: {target.file} no longer says “{bullet_sentence(target.bullet_after)}”.{more}"
