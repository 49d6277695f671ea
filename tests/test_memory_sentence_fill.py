"""Long messages said before sentence vectors, or while another model or none was configured,
are given theirs in the background after the store opens: once, resumed after a restart,
with their message's status and audience as they are when the fill stores them."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.memory.embedding.models import Matrix
from bot.memory.episodes.engine import analyse
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.opening import open_database
from bot.memory.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from tests.test_memory_exact_scores import DIM, TableEmbedder
from tests.test_memory_sentence_vectors import (
    LONG,
    NOW,
    OTHER,
    PUB,
    QUESTION,
    _embedder,
    _long_id,
    _ranked,
    _said,
)

__all__: list[str] = []

LONG_2 = (
    "What a day. The boiler broke again this morning. "
    "The plumber comes on Friday, which means no hot water until then."
)


class _Counting(TableEmbedder):
    """The test geometry, counting what it embeds; ``hold`` keeps the next call (after
    ``passes`` more) waiting until it is released, ``broken`` makes every call fail."""

    def __init__(self, name: str = "table-test") -> None:
        super().__init__()
        self.vectors = _embedder().vectors
        self.name = name
        self.embedded: list[str] = []
        self.hold: asyncio.Event | None = None
        self.passes = 0
        #: set when a call is waiting on ``hold``
        self.held = asyncio.Event()
        self.broken = False

    async def embed(self, texts: Sequence[str]) -> Matrix:
        if self.broken:
            raise RuntimeError("the model's session failed")
        if self.hold is not None and self.passes:
            self.passes -= 1
        elif self.hold is not None:
            hold, self.hold = self.hold, None
            self.held.set()
            await hold.wait()
        self.embedded += texts
        return await super().embed(texts)

    async def embed_query(self, text: str) -> Matrix:
        return await self.embed([text])


def _sentence_rows(folder: Path, model: str = "table-test") -> int:
    with sqlite3.connect(folder / "memory.db") as raw:
        (count,) = raw.execute(
            "SELECT COUNT(*) FROM sentence_vectors WHERE model = ?", (model,)
        ).fetchone()
    return int(count)


async def _filled(memory: SqliteFtsMemory) -> int:
    assert memory.filling is not None
    return (await memory.filling).sentences


async def test_messages_said_without_a_model_get_their_sentences_once(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:  # BM25 alone
        await _said(memory, LONG)
        await _said(memory, OTHER)
    assert _sentence_rows(tmp_path) == 0
    embedder = _Counting()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        assert await _filled(memory) == 4
        assert (await memory.stats())["sentence_vectors_loaded"] == 4
        # found by its rent sentence, as if it had been said with the model loaded
        assert (await _ranked(memory))[:2] == [LONG, OTHER]
    assert _sentence_rows(tmp_path) == 4
    embedder.embedded.clear()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        assert await _filled(memory) == 0
        assert (await memory.stats())["sentence_vectors_loaded"] == 4
    assert embedder.embedded == [] and _sentence_rows(tmp_path) == 4


async def test_another_model_fills_what_it_missed_and_the_first_keeps_its_own(
    tmp_path: Path,
) -> None:
    first, second = _Counting("model-a"), _Counting("model-b")
    async with SqliteFtsMemory(tmp_path, embedder=first, now=lambda: NOW) as memory:
        await _said(memory, LONG)
        assert await _filled(memory) == 0  # the store was empty when it opened
    async with SqliteFtsMemory(tmp_path, embedder=second, now=lambda: NOW) as memory:
        assert await _filled(memory) == 4
        await _said(memory, LONG_2)  # said while model-b is configured: model-a misses it
    assert (_sentence_rows(tmp_path, "model-a"), _sentence_rows(tmp_path, "model-b")) == (4, 7)
    async with SqliteFtsMemory(tmp_path, embedder=first, now=lambda: NOW) as memory:
        assert await _filled(memory) == 3
    assert _sentence_rows(tmp_path, "model-a") == 7


async def test_a_store_of_schema_8_fills_in_the_background(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "memory.db", migrations=MIGRATIONS[:8])
    text, norm, terms = analyse(LONG)
    at = NOW.timestamp()
    await db.execute(
        "INSERT INTO episodes (at, speaker, audience, platform, text, norm, terms, last_seen)"
        " VALUES (?, 'user', 'direct', 'telegram', ?, ?, ?, ?)",
        (at, text, norm, terms, at),
    )
    await db.commit()
    await db.close()
    async with SqliteFtsMemory(tmp_path, embedder=_Counting(), now=lambda: NOW) as memory:
        assert (await memory.stats())["schema_version"] == SCHEMA_VERSION == 13
        assert await _filled(memory) == 4
        assert (await _ranked(memory))[0] == LONG


def _unit(seed: int) -> Matrix:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


async def test_a_message_forgotten_or_shared_while_the_model_runs_is_filled_as_it_is_now(
    tmp_path: Path,
) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, LONG_2)
        long_id = await _long_id(memory)
    boiler_row = int(long_id.removeprefix("e")) + 2  # the persona's "Nice!" is between
    embedder = _Counting()
    plumber = "The plumber comes on Friday, which means no hot water until then."
    for seed, part in enumerate(["What a day.", "The boiler broke again this morning.", plumber]):
        embedder.vectors[part] = _unit(seed + 20)
    gate = asyncio.Event()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        # the fill has not run yet: the facts' and the messages' own vectors first, then its
        # first call for the sentences waits
        embedder.hold, embedder.passes = gate, 2
        sentences = memory.episodes.sentences
        assert sentences is not None
        await embedder.held.wait()  # the fill's first call waits on the gate
        assert await memory.forget(long_id)
        assert await memory.share(f"e{boiler_row}", PUB.label)
        await _said(memory, OTHER)  # recorded meanwhile: its own vector, no sentences
        gate.set()
        assert await _filled(memory) == 7  # stored for both; the forgotten one's stay unseen
        rent = embedder.vectors[QUESTION]
        assert int(long_id.removeprefix("e")) not in dict(
            await sentences.nearest_episodes(rent, 5, 0.0)
        )
        near = dict(
            await sentences.nearest_episodes(embedder.vectors[plumber], 5, 0.5, labels=PUB.labels)
        )
        assert near.get(boiler_row, 0.0) > 0.9
        assert LONG not in await _ranked(memory)


async def test_a_fill_stopped_by_a_close_resumes_at_the_next_open(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, LONG_2)
    embedder = _Counting()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        embedder.hold = asyncio.Event()  # never released: the close stops it
        await embedder.held.wait()
    assert _sentence_rows(tmp_path) == 0
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        assert await _filled(memory) == 7
    assert _sentence_rows(tmp_path) == 7


async def test_a_model_that_fails_during_the_fill_leaves_memory_working(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await _said(memory, LONG)
    embedder = _Counting()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        embedder.broken = True
        assert await _filled(memory) == 0
        assert "memory.vector_fill_failed" in capsys.readouterr().out
        embedder.broken = False
        assert await memory.prefetch("rent March afford", limit=3)  # still recalls
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        assert await _filled(memory) == 4


async def test_a_change_of_model_embeds_the_messages_in_the_background(tmp_path: Path) -> None:
    """Messages said while another model or none was configured get their vectors after the
    store opens, not before: the open (and so the first answer) does not wait for the model
    to go through them all, a search meanwhile finds them by their words, and one forgotten
    or shared while the model runs is indexed as it stands once its vector is stored."""
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, LONG_2)
        long_id = await _long_id(memory)
    boiler_row = int(long_id.removeprefix("e")) + 2
    embedder = _Counting()
    for seed, part in enumerate([LONG, LONG_2]):
        embedder.vectors[part] = _unit(seed + 40)
    gate = asyncio.Event()
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        embedder.hold = gate
        await embedder.held.wait()  # the fill's first call: every message, none stored yet
        index = memory.episodes.index
        assert index is not None and len(index) == 0
        found = await memory.search("boiler plumber", limit=3)
        assert any("boiler" in hit.item.text for hit in found)  # by its words
        assert await memory.forget(long_id)
        assert await memory.share(f"e{boiler_row}", PUB.label)
        gate.set()
        await _filled(memory)
        assert len(index) >= 2
        rowid = int(long_id.removeprefix("e"))
        assert rowid not in dict(index.nearest(embedder.vectors[LONG], 5, 0.0))
        shared = dict(index.nearest(embedder.vectors[LONG_2], 5, 0.5, labels=PUB.labels))
        assert shared.get(boiler_row, 0.0) > 0.9


async def test_a_change_of_model_embeds_the_facts_in_the_background(tmp_path: Path) -> None:
    """Facts kept while another model or none was configured get their vectors after the
    store opens, as the messages do: the open does not wait for the model."""
    fact = "My sister Ana lives in Porto and works as a nurse."
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        assert (await memory.add(fact, source="t", force=True)).stored
    embedder = _Counting()
    embedder.vectors[fact] = _unit(61)
    embedder.hold = gate = asyncio.Event()  # the model's first call waits
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        assert memory.filling is not None
        await embedder.held.wait()  # opened; the facts' vectors still being made
        assert not memory.filling.done()
        found = await memory.search("where does Ana live", limit=3)
        assert found and found[0].item.text == fact  # by its words meanwhile
        gate.set()
        assert (await memory.filling).facts == 1
        assert (await memory.stats())["vectors_loaded"] == 1
        assert embedder.embedded.count(fact) == 1
