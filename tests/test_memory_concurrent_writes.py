"""One persona's memory is written by many coroutines at once (two rooms' turns, distillation,
an admin's forget): each write lands whole, and none fails because another's transaction was
open on the shared connection."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bot.memory.base import TurnRecord
from bot.memory.embedding.models import Matrix
from bot.memory.sqlite.backend import SqliteFtsMemory

__all__: list[str] = []

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


class _Yielding:
    """Vectors of a fixed geometry that give the loop a turn before they come back, as the
    model's worker thread does."""

    name = "yielding-test"
    dim = 16
    meaning = 1.0
    sentence_weight = 0.8

    async def embed(self, texts: Sequence[str]) -> Matrix:
        await asyncio.sleep(0)
        rows = np.stack(
            [np.random.default_rng(abs(hash(text)) % 2**32).normal(size=self.dim) for text in texts]
        ).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    async def embed_query(self, text: str) -> Matrix:
        return await self.embed([text])


def _turn(n: int) -> TurnRecord:
    return TurnRecord(
        f"My cousin number {n} lives in Porto. She teaches violin to {n} children.",
        f"That is lovely, {n} children. Does she play in an orchestra too?",
        "telegram",
        NOW,
        "ana",
        "zoe",
        "direct",
    )


async def test_turns_synced_at_once_are_all_kept_whole(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=_Yielding(), now=lambda: NOW) as memory:
        results = await asyncio.gather(
            *(memory.sync(_turn(n)) for n in range(12)),
            *(memory.add(f"Ana's locker number is {n}", source="t", force=True) for n in range(6)),
            return_exceptions=True,
        )
        assert [r for r in results if isinstance(r, BaseException)] == []
    with sqlite3.connect(tmp_path / "memory.db") as raw:
        episodes = raw.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
        with_vectors = raw.execute("SELECT COUNT(*) FROM episode_vectors").fetchone()[0]
        sentences = raw.execute(
            "SELECT COUNT(DISTINCT episode_id) FROM sentence_vectors"
        ).fetchone()
        lockers = raw.execute("SELECT COUNT(*) FROM items WHERE text LIKE '%locker%'").fetchone()
    assert episodes == with_vectors == 24  # both sides of every turn, each with its vector
    assert sentences == (24,) and lockers == (6,)
