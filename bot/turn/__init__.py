"""A turn: from a platform event to an answer streaming back into its room.

In the order a message meets them::

    router.py           decide (who, addressed?, duplicate?, admitted?, input ok?), then handle
    turn_taking.py      a message waits its turn in its line; the turn answers the burst
    albums.py           an album's pictures addressed by the one whose caption names the persona
    burst.py            a user's messages in a room in order; a burst answered as one turn
    admission.py        the flood cap and the rate limits (turns, commands) per user
    handling.py         handle: the persona, then a command or a turn of the session
    command_running.py  a chat command run from the shared table
    answer_delivery.py  an answer into its room, keyed by its event, or kept in the outbox
    rooms.py            rooms and their Off The Record mode
    audience.py         who is listening: what a room may know
    sessions.py         the live sessions, one per (user, persona)
    session.py          one user with one persona: the rooms' conversations and the turn
    session_types.py    what a session is given and what its turn gives back
    session_memory.py   recall before a turn; memory sync, identity, extraction after it
    session_prompt.py   the system prompt, the tools, compaction to fit the window
    unanswered.py       a message left unanswered, and the same message given again
    conversation.py     the conversation kept in memory, as LLM messages
    compaction.py       older turns promoted to memory, then pointed at
    reply.py            one answer delivered: typing, streaming by edits
    voice.py            which rooms hear their answers spoken too
    formatting.py       platform-neutral markdown helpers: splitting, stripping
"""

__all__: list[str] = []
