"""The identity observer: style traits seen in the user's messages become lines in VOICE/PERSONA.

For each on-record message the session calls :meth:`IdentityObserver.observe`. The message is
read for traits (:func:`~bot.persona.identity.detect.detect`); each sighting is counted in
``identity_state.json``; a trait whose count reaches its threshold (explicit requests: 1,
inferred traits: per kind, see :data:`~bot.persona.identity.kinds.DEFAULT_THRESHOLDS`) is written as
one bullet of the file's ``## Learned from {user}`` section, replacing the bullet of the same
slot. Rules: the newest explicit request wins; an inferred trait never overrides an explicit
request of the same kind; a bullet removed by hand counts as rejected (its count starts over).
Every change is appended to IDENTITY_CHANGELOG.md before the file is written, so ``/undo``
can always find it. SOUL.md is never written (see :mod:`bot.persona.identity.files`).

Off The Record: the session never calls the observer for an OTR turn, so nothing of such a
message is counted, quoted or written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial

import structlog

from bot.daemon.disk import run_on_text
from bot.daemon.errors import PersonadError
from bot.persona.identity.changelog import Change, append_change, next_id, read_changes
from bot.persona.identity.detect import detect
from bot.persona.identity.files import read_identity_file, write_identity_file
from bot.persona.identity.kinds import (
    EXPLICIT_THRESHOLD,
    KINDS,
    bullet_text,
    resolve_thresholds,
    slot_key,
)
from bot.persona.identity.section import (
    bullet_line,
    bullet_sentence,
    find_bullet,
    heading_for,
    replace_block,
    split_section,
)
from bot.persona.identity.state import IdentityState, edit_lock, load_state, save_state
from bot.persona.identity.traits import Trait
from bot.persona.store import PersonaStore

__all__ = ["IdentityObserver"]

log = structlog.get_logger(__name__)

#: sightings are counted up to this many times the kind's threshold
_COUNT_CAP_FACTOR = 2


@dataclass(frozen=True, slots=True)
class _Plan:
    trait: Trait
    slot: str
    file: str


def _snapshot(state: IdentityState) -> dict[str, tuple[dict[str, int], str | None, bool]]:
    return {
        key: (dict(slot.counts), slot.applied, slot.explicit) for key, slot in state.slots.items()
    }


class IdentityObserver:
    """Learns a persona's voice from one user's messages; one instance serves every persona."""

    def __init__(self, store: PersonaStore, *, thresholds: Mapping[str, int] | None = None) -> None:
        self.store = store
        #: sightings an inferred trait needs, per kind; ValueError names a bad key
        self.thresholds = resolve_thresholds(thresholds)
        #: the last bullet looked up per (heading, slot), with the file text it was found in
        self._bullets: dict[tuple[str, str], tuple[str, str | None]] = {}

    def _bullet(self, text: str, heading: str, slot: str) -> str | None:
        """The bullet of ``slot`` in ``heading``'s section of ``text``. Most messages check
        the same unchanged file again, which the store hands out as the same string: the
        answer found for that string is kept rather than parsed out of it again."""
        key = (heading, slot)
        found = self._bullets.get(key)
        if found is not None and found[0] is text:
            return found[1]
        bullet = find_bullet(split_section(text, heading)[1], slot)
        self._bullets[key] = (text, bullet)
        return bullet

    async def observe(self, user_text: str, *, user: str, persona: str, at: datetime) -> list[str]:
        """Read one on-record message; return a description of each change applied, e.g.
        ``"VOICE.md: No emojis with scott."``. Never raises for a persona problem: it logs."""
        traits = await run_on_text(user_text, partial(detect, persona=persona))
        if not traits:
            return []
        try:
            async with edit_lock(self.store, user, persona):
                return await self._learn(traits, user, persona, at)
        except (OSError, PersonadError) as exc:
            log.error("identity.observe_failed", error=str(exc), kind=type(exc).__name__)
            return []

    async def _learn(self, traits: list[Trait], user: str, persona: str, at: datetime) -> list[str]:
        state = await load_state(self.store, user, persona)
        before = _snapshot(state)
        heading = heading_for(user)
        plans: list[_Plan] = []
        for trait in traits:
            spec = KINDS[trait.kind]
            slot = slot_key(trait)
            entry = state.slot(slot)
            needed = EXPLICIT_THRESHOLD if trait.explicit else self.thresholds[trait.kind]
            cap = _COUNT_CAP_FACTOR * self.thresholds[trait.kind]
            count = entry.see(trait.value, compete=spec.exclusive, cap=cap)
            if count < needed:
                continue
            text = read_identity_file(self.store, user, persona, spec.file)
            if text is None:
                continue
            if entry.applied is not None and self._bullet(text, heading, slot) is None:
                log.info("identity.removed_by_hand", slot=slot, value=entry.applied)
                entry.counts.pop(entry.applied, None)
                entry.applied, entry.explicit = None, False
                if not trait.explicit:
                    continue
            if entry.applied == trait.value:
                entry.explicit = entry.explicit or trait.explicit
                continue
            if entry.applied is not None and entry.explicit and not trait.explicit:
                continue
            plans.append(_Plan(trait, slot, spec.file))
        applied = []
        for filename in dict.fromkeys(plan.file for plan in plans):
            file_plans = [plan for plan in plans if plan.file == filename]
            applied += await self._write(file_plans, state, user, persona, filename, at)
        if _snapshot(state) != before:  # counts at their cap change nothing: no write
            await save_state(self.store, user, persona, state, defer=True)
        return applied

    async def _write(
        self,
        plans: list[_Plan],
        state: IdentityState,
        user: str,
        persona: str,
        filename: str,
        at: datetime,
    ) -> list[str]:
        """Apply ``plans`` to one file: changelog entries first, then the file, then state."""
        text = read_identity_file(self.store, user, persona, filename)
        if text is None:
            return []
        heading = heading_for(user)
        first_id = next_id(await read_changes(self.store, user, persona))
        changes: list[Change] = []
        for offset, plan in enumerate(plans):
            trait, entry = plan.trait, state.slot(plan.slot)
            line = bullet_line(plan.slot, bullet_text(trait.kind, trait.value, user))
            old = find_bullet(split_section(text, heading)[1], plan.slot)
            edit = replace_block(text, heading, plan.slot, line)
            changes.append(
                Change(
                    id=first_id + offset,
                    op="apply",
                    at=at.isoformat(timespec="seconds"),
                    file=filename,
                    slot=plan.slot,
                    kind=trait.kind,
                    value=trait.value,
                    explicit=trait.explicit,
                    evidence=trait.evidence,
                    bullet_before=old,
                    bullet_after=line,
                    section_before=edit.section_before,
                    section_after=edit.section_after,
                    separator=edit.separator,
                    value_before=entry.applied,
                    explicit_before=entry.explicit,
                )
            )
            text = edit.text
        for change in changes:
            await append_change(self.store, user, persona, change)
        await write_identity_file(self.store, user, persona, filename, text)
        descriptions = []
        for plan, change in zip(plans, changes, strict=True):
            entry = state.slot(plan.slot)
            entry.applied, entry.explicit = plan.trait.value, plan.trait.explicit
            assert change.bullet_after is not None
            descriptions.append(f"{filename}: {bullet_sentence(change.bullet_after)}")
            log.info(
                "identity.applied",
                file=filename,
                slot=plan.slot,
                explicit=plan.trait.explicit,
                change=change.id,
            )
        return descriptions
