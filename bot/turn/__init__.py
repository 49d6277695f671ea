"""A turn: from a platform event to an answer streaming back into its room.

In the order a message meets them::

    router.py        decide (who, addressed?, duplicate?, admitted?, input ok?), then handle
    burst.py         a user's messages in a room in order; a burst answered as one turn
    admission.py     the flood cap and the rate limits (turns, commands) per user
    rooms.py         rooms and their Off The Record mode
    audience.py      who is listening: what a room may know
    sessions.py      the live sessions, one per (user, persona)
    session.py       one user with one persona: prompt, tool loop, memory, session log
    conversation.py  the conversation kept in memory, as LLM messages
    compaction.py    older turns promoted to memory, then pointed at
    reply.py         one answer delivered: typing, streaming by edits
    formatting.py    platform-neutral markdown helpers: splitting, stripping
"""

__all__: list[str] = []
