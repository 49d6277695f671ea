"""The stores the resident-memory benchmark builds go through the memory store's own API, so a
change of that API shows here, not the next time someone measures."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench.recall_resident import build_messages
from tests.test_memory_e5 import needs_e5

__all__: list[str] = []


@needs_e5  # the benchmark measures the model installed, e5 where its package is
async def test_the_store_of_messages_holds_every_message_with_its_vectors(tmp_path: Path) -> None:
    await build_messages(tmp_path, 2_100)  # two batches: the second starts past the first
    with sqlite3.connect(tmp_path / "memory.db") as db:
        (episodes,) = db.execute("SELECT count(*) FROM episodes").fetchone()
        (vectors,) = db.execute("SELECT count(*) FROM episode_vectors").fetchone()
        (sentences,) = db.execute(
            "SELECT count(DISTINCT episode_id) FROM sentence_vectors"
        ).fetchone()
        speakers = {row[0] for row in db.execute("SELECT DISTINCT speaker FROM episodes")}
    assert episodes == vectors == 2_100
    assert 0 < sentences < episodes  # the long messages have sentence vectors, the short not
    assert speakers == {"user", "persona"}
