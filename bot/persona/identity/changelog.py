"""IDENTITY_CHANGELOG.md: every change the persona made to itself (its voice, its persona, the
facts it promoted into USER.md and MEMORY.md), appended, never rewritten.

Each entry is a short markdown block a person can read (when, which file, the bullet before
and after, the trait and the message that showed it) followed by one HTML comment holding the
same change as JSON, which is what ``/undo`` reads back. The quoted evidence never carries a
secret: it is redacted, then shortened, when the entry is rendered. An undo is itself an entry that
names the change it reverses; nothing is ever cut from the file. Entries are appended with
:func:`bot.persona.atomic.append_durably`, so a written entry survives a power cut.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

import structlog

from bot.daemon.disk import run_blocking
from bot.daemon.errors import PersonaError
from bot.memory.policy import redact_secrets
from bot.persona.atomic import append_durably
from bot.persona.identity.section import bullet_sentence
from bot.persona.store import PersonaStore

__all__ = [
    "CHANGELOG_FILE",
    "EVIDENCE_CHARS",
    "Change",
    "append_change",
    "next_id",
    "pending_changes",
    "read_changes",
    "render",
]

log = structlog.get_logger(__name__)

CHANGELOG_FILE = "IDENTITY_CHANGELOG.md"
#: the longest evidence quote an entry holds
EVIDENCE_CHARS = 100

_HEADER = (
    "# Identity changelog\n\n"
    "Every change the persona made to its own VOICE.md or PERSONA.md, every fact it promoted "
    "into USER.md or MEMORY.md, and every edit of its files in the web console, oldest first. "
    "This file is only ever appended to; `/undo` reverts the newest change the persona made "
    "and adds an entry saying so.\n"
)
_RECORD = re.compile(r"^<!-- identity-change (?P<json>\{.*\}) -->$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Change:
    """One entry: ``op`` "apply" (a trait written), "edit" (a file edited by its user, whole
    texts in the ``section_*`` fields) or "undo" (change ``undoes`` reverted)."""

    id: int
    op: Literal["apply", "edit", "undo"]
    at: str
    file: str
    slot: str
    kind: str
    value: str
    explicit: bool
    evidence: str
    bullet_before: str | None
    bullet_after: str | None
    section_before: str
    section_after: str
    separator: str = ""
    value_before: str | None = None
    explicit_before: bool = False
    undoes: int | None = None
    #: the section's heading when it is not the observer's ("## Learned from {user}"): a
    #: promotion into USER.md / MEMORY.md writes under its own
    heading: str = ""
    #: promoted lines that were taken out to make room for this one (oldest first)
    gave_way: tuple[str, ...] = ()


def _quote(line: str | None) -> str:
    return "(none)" if line is None else f"“{bullet_sentence(line)}”"


def _quote_evidence(text: str) -> str:
    """``text`` with every secret withheld line by line, then joined on one line and
    shortened to :data:`EVIDENCE_CHARS` (in that order: joined first, a value on the line
    after its keyword would read as another sentence; cut first, a card number could hide
    from the detector)."""
    clean = " ".join(redact_secrets(text).split())
    return clean if len(clean) <= EVIDENCE_CHARS else clean[: EVIDENCE_CHARS - 1] + "…"


def render(change: Change) -> str:
    """The entry as appended: readable lines, then the machine-readable comment. The
    evidence quote and the value have every secret withheld (the quote is shortened too),
    in both: nothing keeps a value beside its marker."""
    change = replace(
        change,
        evidence=_quote_evidence(change.evidence),
        value=redact_secrets(change.value),
        value_before=None if change.value_before is None else redact_secrets(change.value_before),
    )
    if change.op == "apply" and change.heading:
        how = "asked to remember" if change.explicit else "said again and again"
        title = f"## {change.at} · change {change.id} · {change.file}"
        lines = [f"- remembered: {change.value} ({how})", f"- evidence: “{change.evidence}”"]
        lines += [f"- gave way: {_quote(line)}" for line in change.gave_way]
    elif change.op == "apply":
        how = "explicit request" if change.explicit else "inferred"
        title = f"## {change.at} · change {change.id} · {change.file}"
        lines = [
            f"- trait: {change.kind} = {change.value} ({how})",
            f"- evidence: “{change.evidence}”",
        ]
    elif change.op == "edit":
        title = f"## {change.at} · change {change.id} · {change.file}"
        lines = [
            f"- edited by {change.value} in the web console",
            f"- {len(change.section_before):,} characters before,"
            f" {len(change.section_after):,} after",
        ]
    else:
        title = f"## {change.at} · undo of change {change.undoes} · {change.file}"
        if change.kind == "edit":
            lines = [f"- {change.value} put the file back as it was before that change"]
        else:
            lines = [f"- reverted: {change.kind} = {change.value}"]
    if change.kind != "edit":
        lines.append(f"- before: {_quote(change.bullet_before)}")
        lines.append(f"- after: {_quote(change.bullet_after)}")
    if change.op == "apply" and not change.section_before:
        lines.append("- the section was added to the file")
    payload = json.dumps(asdict(change), ensure_ascii=True, sort_keys=True)
    # a "-->" inside a string must not end the comment early
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e")
    return "\n" + title + "\n\n" + "\n".join(lines) + f"\n\n<!-- identity-change {payload} -->\n"


def _parse(text: str) -> list[Change]:
    names = {f.name for f in fields(Change)}
    changes: list[Change] = []
    for match in _RECORD.finditer(text):
        try:
            data: dict[str, Any] = json.loads(match.group("json"))
            values = {k: v for k, v in data.items() if k in names}
            values["gave_way"] = tuple(values.get("gave_way", ()))
            change = Change(**values)
        except (ValueError, TypeError) as exc:
            log.warning("identity.changelog_entry_skipped", error=str(exc))
            continue
        changes.append(change)
    return changes


async def read_changes(store: PersonaStore, user: str, persona: str) -> list[Change]:
    """Every entry of the changelog, oldest first; PersonaError if the file is unreadable."""
    file = await store.load(user, persona, CHANGELOG_FILE)
    if file.problem:
        raise PersonaError(
            f"{CHANGELOG_FILE}: {file.problem}",
            user_message=f"My change history ({CHANGELOG_FILE}) cannot be read, so I changed "
            "nothing. Please check the file.",
        )
    return _parse(file.text)


def _append_entry(path: Path, text: str) -> None:
    """Append one rendered entry, after the header when the file is new or empty."""
    try:
        empty = os.stat(path).st_size == 0
    except FileNotFoundError:
        empty = True
    append_durably(path, _HEADER + text if empty else text)


def pending_changes(changes: list[Change], ops: tuple[str, ...] = ("apply",)) -> list[Change]:
    """The changes of kinds ``ops`` not undone yet, oldest first."""
    undone = {c.undoes for c in changes if c.op == "undo"}
    return [c for c in changes if c.op in ops and c.id not in undone]


def next_id(changes: list[Change]) -> int:
    return max((c.id for c in changes), default=0) + 1


async def append_change(store: PersonaStore, user: str, persona: str, change: Change) -> None:
    """Append one entry durably (the header first, when the file is new or empty)."""
    path = store.file_path(user, persona, CHANGELOG_FILE)
    await run_blocking(_append_entry, path, render(change))
    log.info("identity.changelog_appended", change=change.id, op=change.op, file=change.file)
