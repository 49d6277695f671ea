"""Personas: the persona's folder, its files and how they are written.

::

    store.py            PersonaStore: where a persona's files live, the one way to read and write
    them names.py            user and persona names, checked before they become folder names
    template.py         a new persona folder from a template
    context.py          the tiered system prompt: persona files by tier, then the System block
    file_cache.py       persona files held in memory between turns
    safe_read.py        reading persona files so that only the persona's own text comes back
    watch.py            telling when a persona file changes (Linux inotify)
    promotion.py        facts promoted into USER.md and MEMORY.md at the end of a session
    promotion_state.py  what promotion remembers between sessions
    edits.py            a person's own edits of their persona's files, and their undo
    atomic.py           the one helper every file that matters is written through
    nofollow.py         folders and files under the data folder, opened without a link
    identity/           VOICE.md and PERSONA.md learning from how the user talks
    sessionlog/         the session logs: the day's log, its index, searching it
"""

__all__: list[str] = []
