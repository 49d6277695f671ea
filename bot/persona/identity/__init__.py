"""Identity that evolves: VOICE.md and PERSONA.md learn from how the user talks; SOUL.md never.

::

    observer.py    IdentityObserver.observe(): count sightings, apply traits past threshold
    detect.py      one message -> Trait list (explicit requests, inferred patterns)
    traits.py      the EN/PT rule tables and the Trait record
    kinds.py       each trait kind: target file, threshold, wording
    section.py     the "## Learned from {user}" section, edited one bullet at a time
    changelog.py   IDENTITY_CHANGELOG.md, append-only
    state.py       identity_state.json (counts), the per-persona edit lock
    files.py       the only files that may change (VOICE.md, PERSONA.md)
    undo.py        undo_last() and the /undo command
"""

from __future__ import annotations

from bot.identity.kinds import DEFAULT_THRESHOLDS, EXPLICIT_THRESHOLD, KINDS
from bot.identity.observer import IdentityObserver
from bot.identity.traits import Trait
from bot.identity.undo import NOTHING_TO_UNDO, undo_command, undo_last

__all__ = [
    "DEFAULT_THRESHOLDS",
    "EXPLICIT_THRESHOLD",
    "KINDS",
    "NOTHING_TO_UNDO",
    "IdentityObserver",
    "Trait",
    "undo_command",
    "undo_last",
]
