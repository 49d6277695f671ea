"""The index keeps each vector in 4 bits a number and only finds; what recall ranks and what
counts as a near repeat are decided by the exact vectors in the store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.memory.embedding.byte_rows import as_nibbles, nibble_width, widen_nibbles
from bot.memory.sqlite.backend import DUPLICATE_COSINE, SqliteFtsMemory
from bot.memory.sqlite.vector_index import VectorIndex

__all__: list[str] = []

DIM = 48


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


class TableEmbedder:
    """Gives each text the vector a test set for it (a test's own geometry, exactly)."""

    name = "table-test"
    dim = DIM
    meaning = 1.0
    sentence_weight = 0.8

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        rng = np.random.default_rng(len(self.vectors))
        fallback = _unit(rng.normal(size=(1, DIM)))[0]
        return np.stack([self.vectors.get(text, fallback) for text in texts])

    async def embed_query(self, text: str) -> np.ndarray:
        return await self.embed([text])


def _pair(cosine: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors at exactly ``cosine``, the second of whose numbers are uneven enough
    that 4 bits a number misread the cosine."""
    rng = np.random.default_rng(seed)
    first, other = _unit(rng.normal(size=(2, DIM)))
    other = _unit((other - (other @ first) * first)[None, :])[0]
    second = cosine * first + np.sqrt(1 - cosine**2) * other
    return first, second.astype(np.float32)


@pytest.mark.parametrize("dim", [384, 7, 1])
def test_nibbles_give_each_row_back_within_half_a_step(dim: int) -> None:
    rng = np.random.default_rng(dim)
    rows = rng.normal(size=(50, dim)).astype(np.float32)
    rows[3] = 0.0  # a row of zeros keeps the scale 1 and reads back as zeros
    packed, scales = as_nibbles(rows)
    assert packed.shape == (50, nibble_width(dim)) and packed.dtype == np.uint8
    widened = np.empty((50, 2 * nibble_width(dim)), dtype=np.float32)
    widen_nibbles(packed, widened, np.empty_like(packed))
    back = widened[:, :dim] * scales[:, None]
    assert np.all(np.abs(back - rows) <= scales[:, None] / 2 + 1e-6)
    assert np.all(widened[:, dim:] == 0.0)  # an odd row's padding counts for nothing
    assert scales[3] == 1.0 and not back[3].any()


async def test_a_recalled_memory_is_scored_by_its_exact_cosine(tmp_path: Path) -> None:
    embedder = TableEmbedder()
    query, stored = _pair(0.61, seed=4)
    embedder.vectors["where does the boat sleep in winter?"] = query
    embedder.vectors["The dinghy is kept in Rui's barn over the cold months."] = stored
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        await memory.add(
            "The dinghy is kept in Rui's barn over the cold months.", source="t", force=True
        )
        hits = await memory.search("where does the boat sleep in winter?", limit=3)
        # found by meaning alone; the only candidate, so its cosine is the pool's best: 1.0
        assert hits and hits[0].item.text.startswith("The dinghy")
        found = await memory._store.cosines(memory.model_name, query, [int(hits[0].item.id)])
        assert found == {int(hits[0].item.id): pytest.approx(0.61, abs=1e-5)}


def _at(query: np.ndarray, cosine: float, seed: int) -> np.ndarray:
    """A unit vector at exactly ``cosine`` from ``query``."""
    other = _unit(np.random.default_rng(seed).normal(size=(1, DIM)))[0]
    other = _unit((other - (other @ query) * query)[None, :])[0]
    return (cosine * query + np.sqrt(1 - cosine**2) * other).astype(np.float32)


async def test_facts_are_ranked_by_their_exact_cosines_not_the_index_s(tmp_path: Path) -> None:
    """Two facts the index's 4-bit rows order the wrong way round (0.609 and 0.594 for an
    exact 0.60 and 0.62): recall ranks them as the exact vectors do."""
    embedder = TableEmbedder()
    question = "which hobby takes up my weekends?"
    query = _unit(np.random.default_rng(0).normal(size=(1, DIM)))[0]
    nearer, further = "I restore old bicycles in the garage.", "Saturdays are for pottery class."
    embedder.vectors = {question: query, further: _at(query, 0.60, 2), nearer: _at(query, 0.62, 45)}
    coarse = VectorIndex(DIM)
    coarse.add(1, embedder.vectors[further])
    coarse.add(2, embedder.vectors[nearer])
    read = coarse.cosine_of(query, [1, 2])
    assert read[1] > read[2]  # the index alone would put the further one first
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        for text in (further, nearer):
            await memory.add(text, source="t", force=True, category="preference")
        hits = await memory.search(question, limit=2)
        assert [hit.item.text for hit in hits] == [nearer, further]


@pytest.mark.parametrize(
    ("cosine", "seed", "merged"),
    [(DUPLICATE_COSINE - 0.004, 5, False), (DUPLICATE_COSINE + 0.004, 1, True)],
)
async def test_a_near_repeat_is_judged_by_the_exact_cosine(
    tmp_path: Path, cosine: float, seed: int, merged: bool
) -> None:
    """Two statements either side of the duplicate threshold by under half a hundredth, which
    the index's 4-bit rows read on the wrong side of it: the stored vectors decide, so a new
    statement is never folded into an old one it only resembles, and a true repeat still is."""
    embedder = TableEmbedder()
    first_text = "My sister Irma lives in Porto now."
    second_text = "Irma, my sister, has moved to Braga."
    first, second = _pair(cosine, seed)
    embedder.vectors[first_text], embedder.vectors[second_text] = first, second
    coarse = VectorIndex(DIM)
    coarse.add(1, first)
    assert (coarse.cosine_of(second, [1])[1] >= DUPLICATE_COSINE) is not merged
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        one = await memory.add(first_text, source="t", force=True)
        two = await memory.add(second_text, source="t", force=True)
        assert one.stored
        texts = sorted(item.text for item in await memory.list_items())
        if merged:
            assert not two.stored and two.duplicate_of == one.item_id
            assert texts == [first_text]
        else:
            assert two.stored and texts == sorted([first_text, second_text])


async def test_the_embedder_s_own_weight_of_meaning_scores_facts_and_episodes(
    tmp_path: Path,
) -> None:
    """A model that weighs meaning twice BM25's (e5) lifts what is found by meaning over what
    shares a word, for facts and the messages they came from alike; MiniLM's weight of 1
    leaves the word match first."""
    question = "where does the boat sleep in winter?"
    near, worded = "The dinghy stays in Rui's barn.", "In winter we ski in the Alps."
    query = _unit(np.random.default_rng(0).normal(size=(1, DIM)))[0]
    first: dict[float, str] = {}
    for weight in (1.0, 2.0):
        embedder = TableEmbedder()
        embedder.meaning = weight
        embedder.vectors = {question: query, near: _at(query, 0.62, 3), worded: _at(query, 0.25, 9)}
        async with SqliteFtsMemory(tmp_path / str(weight), embedder=embedder) as memory:
            for text in (near, worded):
                await memory.add(text, source="t", force=True, category="fact")
            hits = await memory.search(question, limit=2)
            by_text = {hit.item.text: hit for hit in hits}
            assert by_text[near].parts["cosine"] == pytest.approx(weight)  # the pool's best
            assert by_text[worded].parts["cosine"] == pytest.approx(weight * 0.25 / 0.62, abs=1e-4)
            first[weight] = hits[0].item.text
    assert first == {1.0: worded, 2.0: near}
