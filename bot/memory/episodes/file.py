"""``episodes.db``: a file of episodes alone, for a backend whose facts live in a store of its own.

The ``holographic`` backend keeps its facts as traces in ``holographic.db``; what was said, message
by message, it keeps here, in the very tables ``memory.db`` has for its episodes
(:data:`~bot.memory.sqlite.schema.EPISODE_TABLES`), so the same
:class:`~bot.memory.episodes.store.EpisodeStore` and
:class:`~bot.memory.episodes.engine.Episodes` record and recall them: one episode engine, two
backends.
"""

from __future__ import annotations

from bot.memory.sqlite.schema import EPISODE_FILE_MIGRATIONS
from bot.memory.sqlite.vector_rows import VectorRows

__all__ = ["EPISODE_FILE", "EpisodeFile"]

EPISODE_FILE = "episodes.db"
"""Its name in the persona's folder."""


class EpisodeFile(VectorRows):
    """The connection to an ``episodes.db``: the episode schema, nothing else."""

    migrations = EPISODE_FILE_MIGRATIONS
