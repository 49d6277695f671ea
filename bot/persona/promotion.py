"""The file layer grows: facts promoted into USER.md and MEMORY.md at the end of a session.

"Frequent and durable lives in the files". USER.md and MEMORY.md at the top of the persona's
folder are read by the user's direct rooms only (:mod:`bot.turn.audience`), so what is promoted
keeps the audience it was said to:

* only what the user said in a direct room (the user alone with the persona), and
* only when they asked for it to be remembered ("remember that ...", "lembra que ...", in any
  of the ways :mod:`bot.memory.remember_requests` reads) or
  stated the same durable fact (the write policy accepts it) in :data:`REPEATS` different
  sessions;
* never a secret: a candidate the secret detector flags is dropped whole, and so is one that
  holds the marker of a value withheld at the door (``[secret withheld: password]``): a
  message's secrets are withheld before a turn is recorded, and "my wifi password is [secret
  withheld: password]" is no fact worth a line in every prompt.

A fact in the first person ("I", "my", "eu", "minha" ...) is about the user and goes into
USER.md, anything else into MEMORY.md, as one bullet of the section
``## Remembered from {user}``, in the user's words, unless a line of the file (one written by
hand too) says it already in the same words, whatever their case, accents or punctuation
(:func:`bot.memory.normal_form.normalise_text`). A fact of something the user has one of
at a time (:mod:`bot.persona.fact_slots`: where they live, their dentist...) replaces the
promoted line that said the older one ("I moved to Porto" after "I live in Lisbon"); a line
written by hand stays. The file keeps within its character limit
(``prompt.limits``): the oldest promoted lines give way, each named in the changelog entry;
lines written by hand are never touched, and a fact that cannot fit without them is not
promoted (logged). Each promotion is an entry of IDENTITY_CHANGELOG.md written before the
file, so ``/undo`` reverts it (and the lines that gave way come back); an undone fact is not
promoted again unless asked for explicitly. Counts live in ``promotion_state.json``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import structlog

from bot.daemon.disk import run_blocking
from bot.memory.base import TurnRecord
from bot.memory.normal_form import normalise_text
from bot.memory.policy import classify, find_secrets, split_candidates
from bot.memory.remember_requests import asked_to_remember
from bot.memory.secrets.detector import MARKERS
from bot.persona.fact_slots import fact_slot
from bot.persona.identity.changelog import Change, append_change, next_id, read_changes
from bot.persona.identity.files import read_identity_file, write_identity_file
from bot.persona.identity.section import (
    bullet_line,
    bullet_sentence,
    bullet_slot,
    find_bullet,
    replace_block,
    set_bullet,
    split_section,
)
from bot.persona.identity.state import edit_lock
from bot.persona.promotion_state import (
    PROMOTION_KIND,
    STATE_FILE,
    fact_key,
    read_state,
    write_state,
)
from bot.persona.store import PersonaStore
from bot.turn.audience import DIRECT

__all__ = [
    "REPEATS",
    "Candidate",
    "Promoter",
    "promotion_heading",
]

log = structlog.get_logger(__name__)

#: sessions in which a durable fact must be stated before it is promoted unasked
REPEATS = 3
_SLOT_PREFIX = "promoted:"
#: candidate facts counted at most; past it the oldest seen only once are let go
MAX_COUNTED = 5000

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|my|me|mine|myself|eu|meu|minha|meus|minhas|sou|estou|tenho|moro)\b",
    re.IGNORECASE,
)


def promotion_heading(user: str) -> str:
    return f"## Remembered from {user}"


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    explicit: bool
    evidence: str

    @property
    def file(self) -> str:
        # a slot is the user's own ("mudei-me para o Porto" names no "eu")
        about_user = _FIRST_PERSON.search(self.text) or fact_slot(self.text) is not None
        return "USER.md" if about_user else "MEMORY.md"

    @property
    def key(self) -> str:
        return fact_key(self.text)

    @property
    def slot(self) -> str:
        return _SLOT_PREFIX + hashlib.sha256(self.key.encode()).hexdigest()[:10]


def _candidates(turns: Sequence[TurnRecord]) -> list[Candidate]:
    """What the direct-room turns of one session offer, once each."""
    found: dict[str, Candidate] = {}
    for turn in turns:
        if turn.audience != DIRECT:
            continue
        for sentence in split_candidates(turn.user_text):
            if find_secrets(sentence) or MARKERS.search(sentence):
                continue
            fact = asked_to_remember(sentence)
            if fact is not None:
                candidate = Candidate(_clean(fact), True, sentence)
            elif classify(sentence).accepted:
                candidate = Candidate(_clean(sentence), False, sentence)
            else:
                continue
            if candidate.key and (candidate.explicit or candidate.key not in found):
                found[candidate.key] = candidate
    return list(found.values())


def _clean(text: str) -> str:
    """One line of plain text: no comment markers (a bullet's slot marker is ours alone)."""
    text = _COMMENT.sub(" ", text).replace("<!--", " ").replace("-->", " ")
    return " ".join(text.split())


def _says_already(text: str, fact: str) -> bool:
    """Whether a line of ``text`` (a bullet or not, by hand or promoted) says ``fact`` in the
    same words: a promotion must not repeat what the user wrote down themselves."""
    wanted = normalise_text(fact)
    return any(normalise_text(bullet_sentence(line)) == wanted for line in text.splitlines())


def _slot_of(line: str) -> str:
    """The slot of a promoted line (one :func:`bullet_line` wrote)."""
    slot = bullet_slot(line)
    assert slot is not None
    return slot


def _replaced(section: str, candidate: Candidate) -> list[str]:
    """The promoted lines of ``section`` that ``candidate`` replaces: those that say the same
    one-at-a-time thing about the user (:func:`~bot.persona.fact_slots.fact_slot`: "I live in
    Lisbon" before "I moved to Porto"). A line written by hand is the user's and stays."""
    slot = fact_slot(candidate.text)
    if slot is None:
        return []
    return [
        line
        for line in section.splitlines()
        if (own := bullet_slot(line)) is not None
        and own.startswith(_SLOT_PREFIX)
        and own != candidate.slot
        and fact_slot(bullet_sentence(line)) == slot
    ]


def _trim(counts: dict[str, int]) -> None:
    if len(counts) <= MAX_COUNTED:
        return
    for key in [k for k, n in counts.items() if n == 1][: len(counts) - MAX_COUNTED]:
        del counts[key]


class Promoter:
    """Promotes one persona's repeated or requested facts into its file layer."""

    def __init__(self, store: PersonaStore, limit: Callable[[str], int]) -> None:
        self.store = store
        self.limit = limit

    async def promote(
        self, turns: Sequence[TurnRecord], *, user: str, persona: str, at: datetime
    ) -> list[str]:
        """Promote what the session's turns earned; returns a line per promoted fact."""
        candidates = _candidates(turns)
        if not candidates:
            return []
        async with edit_lock(self.store, user, persona):
            state_path = str(self.store.directory(user, persona) / STATE_FILE)
            state = await run_blocking(read_state, state_path)
            counts, declined = state["counts"], state["declined"]
            done = []
            for candidate in candidates:
                counts[candidate.key] = counts.get(candidate.key, 0) + 1
                due = candidate.explicit or (
                    counts[candidate.key] >= REPEATS and candidate.key not in declined
                )
                if due and await self._write(candidate, user, persona, at):
                    declined.pop(candidate.key, None)
                    done.append(f"{candidate.file}: {candidate.text}")
            _trim(counts)
            await self._save(user, persona, state)
        return done

    async def _save(self, user: str, persona: str, state: dict[str, dict[str, int]]) -> None:
        await write_state(self.store, user, persona, state)

    async def _write(self, candidate: Candidate, user: str, persona: str, at: datetime) -> bool:
        filename = candidate.file
        text = read_identity_file(self.store, user, persona, filename)
        if text is None:
            return False
        heading = promotion_heading(user)
        if find_bullet(split_section(text, heading)[1], candidate.slot) is not None:
            return False  # already in the file
        if _says_already(text, candidate.text):
            log.info("promotion.said_already", file=filename)
            return False
        line = bullet_line(candidate.slot, candidate.text)
        edit = replace_block(text, heading, candidate.slot, line)
        before, section, after = split_section(edit.text, heading)
        gave_way = _replaced(section, candidate)
        for older in gave_way:  # not ``line``: that is the change's bullet_after
            section = set_bullet(section, heading, _slot_of(older), None)
        if gave_way:
            log.info("promotion.replaces", file=filename, lines=len(gave_way))
        limit = self.limit(filename)
        while len(before) + len(section) + len(after) > limit:
            oldest = next(
                (
                    line
                    for line in section.splitlines()
                    if f"<!-- trait:{_SLOT_PREFIX}" in line and candidate.slot not in line
                ),
                None,
            )
            if oldest is None:
                log.warning("promotion.no_room", file=filename, limit=limit)
                return False
            gave_way.append(oldest)
            section = set_bullet(section, heading, _slot_of(oldest), None)
        changes = await read_changes(self.store, user, persona)
        change = Change(
            id=next_id(changes),
            op="apply",
            at=at.isoformat(timespec="seconds"),
            file=filename,
            slot=candidate.slot,
            kind=PROMOTION_KIND,
            value=candidate.text,
            explicit=candidate.explicit,
            evidence=candidate.evidence,
            bullet_before=None,
            bullet_after=line,
            section_before=edit.section_before,
            section_after=section,
            separator=edit.separator,
            heading=heading,
            gave_way=tuple(gave_way),
        )
        await append_change(self.store, user, persona, change)
        await write_identity_file(self.store, user, persona, filename, before + section + after)
        log.info("promotion.applied", file=filename, explicit=candidate.explicit, change=change.id)
        return True
