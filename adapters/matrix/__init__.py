"""Matrix: matrix-nio's AsyncClient against any homeserver.

::

    adapter.py      MatrixAdapter, Settings, create()
    settings.py     the ``[adapters.matrix]`` section
    login.py        signing in, one device across restarts
    rooms.py        one sync response: invites, then new room messages
    events.py       reading room events: what was said, whether the bot was meant
    attachments.py  the file an event carries; the content of a voice message
    media.py        attachments from the media repository, under a cap, decrypted
    send.py         answers, their edits, voice messages and typing notices
    render.py       markdown to Matrix HTML, replies, edits, size limits
"""

__all__: list[str] = []
