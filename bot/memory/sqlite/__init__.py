"""The ``sqlite-fts5`` memory backend: facts and episodes in one ``memory.db`` per persona.

The backend class is :class:`bot.memory.sqlite.backend.SqliteFtsMemory`. This package
imports nothing on its own, so a shared helper can use one of its modules without loading
the backend.
"""

__all__: list[str] = []
