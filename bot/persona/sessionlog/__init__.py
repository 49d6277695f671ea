"""The session logs: what was said, day by day, in the persona's folder, and searching them.

::

    log.py     SessionLog: ``sessions/YYYY-MM-DD.md``, appended turn by turn
    waiting.py what the disk refused, kept in order and written once it takes it again
    index.py   the per-persona FTS5 index of the logs (``session_index.db``)
    search.py  searching past conversations, grouped by date, matched words marked
"""

__all__: list[str] = []
