"""Each sentence of a long message has a vector of its own: a question close to one sentence
finds the message even when the whole message's vector is far from it; rooms and forgetting
hold, and the vectors outlive a restart."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from bot.memory.base import TurnRecord
from bot.memory.embedding.models import Matrix
from bot.memory.episodes.sentence_vectors import MAX_SENTENCES, SentenceIndex, sentences_of
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.opening import open_database
from bot.memory.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from bot.memory.sqlite.vector_index import StoredVectors
from bot.turn.audience import DIRECT_ROOM, Audience
from tests.test_memory_exact_scores import DIM, TableEmbedder

__all__: list[str] = []

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
PUB = Audience("telegram:-100pub")

QUESTION = "what is happening with our housing costs?"
LONG = (
    "Busy week here. The kids were ill and my mother visited for three days. "
    "The rent goes up in March and we cannot afford it. Anyway, how are you?"
)
RENT = "The rent goes up in March and we cannot afford it."
OTHER = "Our landlord wants a higher deposit for the flat"


def _embedder() -> TableEmbedder:
    """The question is axis 0; the rent sentence is close to it (0.9), the whole long message
    far (0.3), and a one-sentence message in between (0.6); everything else is orthogonal."""
    axes = np.linalg.qr(np.random.default_rng(7).normal(size=(DIM, DIM)))[0].T.astype(np.float32)
    table = TableEmbedder()

    def mix(cosine: float, axis: int) -> Matrix:
        return (cosine * axes[0] + np.sqrt(1 - cosine**2) * axes[axis]).astype(np.float32)

    table.vectors = {
        QUESTION: axes[0],
        RENT: mix(0.9, 1),
        LONG: mix(0.3, 2),
        OTHER: mix(0.6, 3),
        "Busy week here.": axes[4],
        "The kids were ill and my mother visited for three days.": axes[5],
        "Anyway, how are you?": axes[6],
        "Nice!": axes[7],
    }
    return table


async def _said(memory: SqliteFtsMemory, text: str, heard_by: Audience = DIRECT_ROOM) -> None:
    await memory.sync(TurnRecord(text, "Nice!", "telegram", NOW, "ana", "zoe", heard_by.label))


async def _ranked(memory: SqliteFtsMemory, audience: Audience = DIRECT_ROOM) -> list[str]:
    """The episodes recalled for the question, best first (facts left out)."""
    query = memory.embedder
    assert isinstance(query, TableEmbedder)

    async def vector() -> Matrix:
        return query.vectors[QUESTION]

    pool = await memory.episodes.pool(
        QUESTION, limit=5, now=NOW, labels=audience.labels, query_vector=vector()
    )
    hits = pool.ranked(best_bm25=pool.best_bm25, best_cosine=pool.best_cosine, now=NOW, limit=5)
    return [hit.item.text for hit in hits]


async def _long_id(memory: SqliteFtsMemory) -> str:
    hits = await memory.prefetch("rent March afford", limit=5)
    for hit in hits:  # the message itself, or a fact told in it (one hit with it)
        if hit.item.kind == "episode" and hit.item.text == LONG:
            return hit.item.id
        if hit.item.context == LONG:
            return hit.item.episode
    raise AssertionError(f"the long message is not recalled by its words: {hits}")


def test_only_a_message_of_two_sentences_or_more_gets_sentence_vectors() -> None:
    assert sentences_of(LONG) == [
        "Busy week here.",
        "The kids were ill and my mother visited for three days.",
        RENT,
        "Anyway, how are you?",
    ]
    assert sentences_of(RENT) == []  # one sentence: its own vector says it all
    assert sentences_of("Poor thing! The rent goes up in March.") == []  # one of three words
    many = " ".join(f"This is sentence {n}." for n in range(40))
    assert len(sentences_of(many)) == MAX_SENTENCES


async def test_a_question_close_to_one_sentence_finds_its_long_message(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, OTHER)
        # the long message's own vector (0.3) is further than the other message's (0.6); its
        # rent sentence (0.9, counted at 0.8: 0.72) brings it first
        assert (await _ranked(memory))[:2] == [LONG, OTHER]
        rowid = int((await _long_id(memory)).removeprefix("e"))
        question = _embedder().vectors[QUESTION]
        closest = await memory.episodes.store.sentence_cosines(memory.model_name, question, [rowid])
        assert abs(closest[rowid] - 0.9) < 1e-5  # exact, from the stored vector


@pytest.mark.parametrize(("weight", "first"), [(0.8, LONG), (0.9, LONG), (0.6, OTHER)])
async def test_a_sentence_counts_as_much_as_its_model_says(
    tmp_path: Path, weight: float, first: str
) -> None:
    embedder = _embedder()
    embedder.sentence_weight = weight  # the rent sentence's 0.9 counts 0.9 x weight
    async with SqliteFtsMemory(tmp_path, embedder=embedder, now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, OTHER)  # 0.6 by its own vector
        assert (await _ranked(memory))[0] == first
        rowid = int((await _long_id(memory)).removeprefix("e"))
        question = embedder.vectors[QUESTION]
        scored = await memory.episodes._cosines(question, [rowid])
        assert scored[rowid] == pytest.approx(0.9 * weight, abs=1e-5)


async def test_a_long_message_is_found_by_its_sentences_not_by_a_row_of_its_own(
    tmp_path: Path,
) -> None:
    """Its own vector stays in the store and still scores it; the index of messages holds
    only the messages without sentences, after a restart too."""
    for _ in range(2):  # said, then opened again
        async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
            if memory.episodes.index is not None and not len(memory.episodes.index):
                await _said(memory, LONG)
                await _said(memory, OTHER)
            index = memory.episodes.index
            assert index is not None and len(index) == 2  # OTHER and the reply "Nice!"
            long_row = int((await _long_id(memory)).removeprefix("e"))
            assert not index.has(long_row)
            assert (await _ranked(memory))[:2] == [LONG, OTHER]
            question = _embedder().vectors[QUESTION]
            own = await memory.episodes.store.cosines(memory.model_name, question, [long_row])
            assert abs(own[long_row] - 0.3) < 1e-5


async def test_a_memory_of_long_messages_alone_is_still_searched_by_meaning(
    tmp_path: Path,
) -> None:
    """Both sides long: nothing in the index of messages, and the rent message found by its
    sentence all the same, before and after a restart."""
    answer = "The kids were ill and my mother visited for three days. Anyway, how are you?"
    for _ in range(2):
        async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
            if memory.episodes.sentences is not None and not len(memory.episodes.sentences):
                await memory.sync(TurnRecord(LONG, answer, "telegram", NOW, "ana", "zoe"))
            assert memory.episodes.index is not None and not len(memory.episodes.index)
            assert (await _ranked(memory))[:1] == [LONG]


async def test_a_message_longer_than_its_sentence_vectors_keeps_its_own_row(
    tmp_path: Path,
) -> None:
    """What it says past its first MAX_SENTENCES sentences is found by its own vector."""
    many = " ".join(f"We walked to village number {n} today." for n in range(MAX_SENTENCES + 3))
    table = _embedder()
    for _ in range(2):
        async with SqliteFtsMemory(tmp_path, embedder=table, now=lambda: NOW) as memory:
            if memory.episodes.sentences is not None and not len(memory.episodes.sentences):
                await _said(memory, many)
                await _said(memory, LONG)
            index, sentences = memory.episodes.index, memory.episodes.sentences
            assert index is not None and sentences is not None
            assert len(sentences) == MAX_SENTENCES + 4  # the first capped, LONG split in full
            rows = await memory._store._all("SELECT id, text FROM episodes")
            row_of = {text: int(rowid) for rowid, text in rows}
            assert index.has(row_of[many]) and not index.has(row_of[LONG])


async def test_a_long_message_of_the_time_a_question_names_is_weighed_by_its_sentences(
    tmp_path: Path,
) -> None:
    """Forty long messages of May whose sentences are all nearer the question than the rent
    sentence fill what the nearest sentences bring; the March message is found as one of the
    messages said in the month the question names, by its closest sentence."""
    table = _embedder()
    rng = np.random.default_rng(11)
    question = table.vectors[QUESTION]
    may = datetime(2026, 5, 6, 9, 0, tzinfo=UTC)
    async with SqliteFtsMemory(tmp_path, embedder=table, now=lambda: NOW) as memory:
        march = datetime(2026, 3, 10, 18, 0, tzinfo=UTC)
        await memory.sync(TurnRecord(LONG, "Nice!", "telegram", march, "ana", "zoe"))
        for n in range(40):
            first, second = f"Parcel {n} came on the bus.", f"It held {n} jars of honey."
            for sentence in (first, second):
                other = rng.normal(size=DIM)
                other -= (other @ question) * question
                other /= np.linalg.norm(other)
                table.vectors[sentence] = (0.95 * question + np.sqrt(1 - 0.95**2) * other).astype(
                    np.float32
                )
            text = f"{first} {second}"
            await memory.sync(TurnRecord(text, "Nice!", "telegram", may, "ana", "zoe"))
        asked = "what was going on with our housing costs in March?"
        table.vectors[asked] = question

        async def vector() -> Matrix:
            return question

        pool = await memory.episodes.pool(
            asked, limit=5, now=NOW, labels=DIRECT_ROOM.labels, query_vector=vector()
        )
        assert LONG in [row.text for row in pool.rows]
        hits = pool.ranked(best_bm25=pool.best_bm25, best_cosine=pool.best_cosine, now=NOW, limit=5)
        assert hits[0].item.text == LONG


async def test_sentence_vectors_are_kept_and_loaded_again(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, OTHER)
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        assert memory.episodes.sentences is not None and len(memory.episodes.sentences) == 4
        assert (await memory.stats())["sentence_vectors_loaded"] == 4
        assert (await _ranked(memory))[:2] == [LONG, OTHER]


async def test_a_sentence_never_brings_back_a_forgotten_or_another_rooms_message(
    tmp_path: Path,
) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        await _said(memory, LONG)  # in a direct room
        await _said(memory, OTHER, heard_by=PUB)
        assert LONG not in await _ranked(memory, PUB)
        assert (await _ranked(memory))[0] == LONG
        assert await memory.forget(await _long_id(memory))
        assert LONG not in await _ranked(memory)


async def test_sentences_follow_their_message_when_it_is_shared_or_forgotten(
    tmp_path: Path,
) -> None:
    """Without a restart: shared into a room, the message is found there by its sentence;
    forgotten, its sentences stop taking a search's places."""
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        await _said(memory, LONG)
        await _said(memory, OTHER, heard_by=PUB)
        sentences = memory.episodes.sentences
        assert sentences is not None
        question = _embedder().vectors[QUESTION]
        long_id = await _long_id(memory)
        rowid = int(long_id.removeprefix("e"))
        near = await sentences.nearest_episodes(question, 5, 0.2, labels=PUB.labels)
        assert rowid not in dict(near)
        assert await memory.share(long_id, PUB.label)
        near = await sentences.nearest_episodes(question, 5, 0.2, labels=PUB.labels)
        assert dict(near)[rowid] > 0.85
        assert (await _ranked(memory, PUB))[0] == LONG
        assert await memory.forget(long_id, audience=PUB)
        assert rowid not in dict(await sentences.nearest_episodes(question, 5, 0.2))


class _Sentences:
    """Sentence rows as a store holds them: each naming its episode."""

    def __init__(self, episode_of: dict[int, int]) -> None:
        self.episode_of = episode_of

    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors:
        return StoredVectors([], [], [], [])

    async def episodes_of_sentences(self, sentences: Sequence[int]) -> dict[int, int]:
        return {rowid: self.episode_of[rowid] for rowid in sentences if rowid in self.episode_of}

    async def sentences_of_episode(self, episode: int) -> list[int]:
        return [rowid for rowid, owner in self.episode_of.items() if owner == episode]

    async def sentences_of_episodes(self, episodes: Sequence[int], model: str) -> dict[int, int]:
        return {rowid: owner for rowid, owner in self.episode_of.items() if owner in episodes}


async def test_an_episode_is_as_close_as_its_closest_sentence() -> None:
    index = await SentenceIndex.load(_Sentences({1: 7, 2: 7, 3: 8, 4: 9}), "m", DIM)
    vectors = np.eye(DIM, dtype=np.float32)[:4]
    index.add([1, 2, 3], vectors[:3], label=PUB.label)
    index.add([4], vectors[3:])  # said in a direct room: hidden from the public room
    close = await index.cosine_of_episodes(vectors[1], [7, 8, 9, 10], labels=PUB.labels)
    assert close == {7: pytest.approx(1.0, abs=0.05), 8: pytest.approx(0.0, abs=0.05), 9: -1.0}


async def test_a_sentence_row_far_past_the_others_keeps_its_message() -> None:
    index = await SentenceIndex.load(_Sentences({5_000_000: 7, 1: 8, 2: 9}), "m", DIM)
    vectors = np.eye(DIM, dtype=np.float32)[:3]
    index.add([5_000_000], vectors[:1])  # put in by hand, far past the rows there are
    index.add([1, 2], vectors[1:])
    assert await index.nearest_episodes(vectors[0], 1, 0.5) == [(7, pytest.approx(1.0, abs=0.05))]
    assert (await index.nearest_episodes(vectors[2], 1, 0.5))[0][0] == 9
    await index.set_active(7, False)
    assert await index.nearest_episodes(vectors[0], 3, 0.5) == []


async def test_a_store_of_schema_7_opens_with_sentence_vectors_for_what_is_said_next(
    tmp_path: Path,
) -> None:
    db = await open_database(tmp_path / "memory.db", migrations=MIGRATIONS[:7])
    await db.close()
    async with SqliteFtsMemory(tmp_path, embedder=_embedder(), now=lambda: NOW) as memory:
        assert (await memory.stats())["schema_version"] == SCHEMA_VERSION
        await _said(memory, LONG)
        assert memory.episodes.sentences is not None and len(memory.episodes.sentences) == 4
    with sqlite3.connect(tmp_path / "memory.db") as raw:
        assert raw.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone() == (4,)
