"""Episodic memory, shared by the ``sqlite-fts5`` and ``holographic`` backends: every on-record
message kept as it was said, recalled by its words, its meaning and its date, and blended with a
backend's durable facts.

:mod:`~bot.memory.episodes.engine` records and recalls them (:class:`Episodes`),
:mod:`~bot.memory.episodes.store` holds their rows (:mod:`~bot.memory.episodes.rows`), index
and vectors, :mod:`~bot.memory.episodes.file` gives a backend without ``memory.db`` a file of
them, :mod:`~bot.memory.episodes.time_query` reads the time a query names (in the words of
:mod:`~bot.memory.episodes.time_words`), and :mod:`~bot.memory.episodes.blend` takes the best
of episodes and facts for a turn. They are kept in SQLite FTS5 through the engine of
:mod:`bot.memory.sqlite` (connection, stems, scoring, vectors).
This package imports nothing on its own.
"""

__all__: list[str] = []
