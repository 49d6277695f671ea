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
    undo.py        undo_last(): the newest change reverted
"""

__all__: list[str] = []
