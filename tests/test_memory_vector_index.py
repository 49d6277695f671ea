"""The vector index past its exact size: the sign-bit shortlist finds what the exact scan
finds, and hides what a room may not see."""

from __future__ import annotations

import numpy as np

from bot.memory.sqlite.vector_index import EXACT_ROWS, VectorIndex

__all__: list[str] = []


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _index(size: int, seed: int = 5) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    matrix = _unit(rng.normal(size=(size, 64)))
    index = VectorIndex(64)
    active = np.ones(size, dtype=bool)
    shared = np.arange(size) % 2 == 0
    index.load(np.arange(1, size + 1, dtype=np.int64), matrix, active, shared)
    return index, matrix


def test_the_shortlist_finds_the_exact_nearest_on_a_large_index() -> None:
    index, _ = _index(EXACT_ROWS + 5_000)
    rng = np.random.default_rng(9)
    for round_ in range(10):
        query = _unit(rng.normal(size=(1, 64)))[0]
        close = _unit(query[None, :] + rng.normal(0, 0.05, (5, 64)))
        for offset, vector in enumerate(close):
            index.add(10**7 + 10 * round_ + offset, vector, shared=True)
        exact = index.top(index.cosines(query), 5, -1.0)
        found = index.nearest(query, 5, -1.0)
        assert [rowid for rowid, _ in found] == [rowid for rowid, _ in exact]
        assert np.allclose([c for _, c in found], [c for _, c in exact], atol=1e-5)
        assert {rowid for rowid, _ in exact} == {10**7 + 10 * round_ + i for i in range(5)}


def test_nearest_hides_inactive_and_private_rows_and_grows() -> None:
    index, matrix = _index(EXACT_ROWS + 100)
    target = matrix[0]  # rowid 1, shared (even row)
    assert index.nearest(target, 1, 0.99) == [(1, index.nearest(target, 1, 0.99)[0][1])]
    index.set_active(1, False)
    assert 1 not in [rowid for rowid, _ in index.nearest(target, 3, -1.0)]
    private = matrix[1]  # rowid 2, not shared
    assert 2 in [rowid for rowid, _ in index.nearest(private, 3, -1.0)]
    assert 2 not in [rowid for rowid, _ in index.nearest(private, 3, -1.0, shared_only=True)]
    assert index.cosine_of(private, [2, 99_999_999], shared_only=True) == {2: -1.0}
    fresh = _unit(np.random.default_rng(1).normal(size=(1, 64)))[0]
    for rowid in range(10**6, 10**6 + 40_000, 1000):  # appends past the loaded capacity
        index.add(rowid, fresh if rowid == 10**6 + 20_000 else -fresh)
    assert index.nearest(fresh, 1, 0.99)[0][0] == 10**6 + 20_000
