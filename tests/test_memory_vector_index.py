"""The vector index past its exact size: the sign-bit shortlist finds what the exact scan
finds, and hides what a room may not see."""

from __future__ import annotations

import numpy as np
import pytest

from bot.memory.heap import zeroed
from bot.memory.sqlite.sign_bits import closest, hamming, pack_signs
from bot.memory.sqlite.vector_index import EXACT_ROWS, VectorIndex
from bot.turn.audience import DIRECT, SHARED, room_label

__all__: list[str] = []


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _index(size: int, seed: int = 5) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    matrix = _unit(rng.normal(size=(size, 64)))
    index = VectorIndex(64)
    active = np.ones(size, dtype=bool)
    labels = [SHARED if row % 2 == 0 else DIRECT for row in range(size)]
    index.load(np.arange(1, size + 1, dtype=np.int64), matrix, active, labels)
    return index, matrix


def test_the_shortlist_finds_the_exact_nearest_on_a_large_index() -> None:
    index, _ = _index(EXACT_ROWS + 5_000)
    rng = np.random.default_rng(9)
    for round_ in range(10):
        query = _unit(rng.normal(size=(1, 64)))[0]
        close = _unit(query[None, :] + rng.normal(0, 0.05, (5, 64)))
        for offset, vector in enumerate(close):
            index.add(10**7 + 10 * round_ + offset, vector, label=SHARED)
        exact = index.top(index.cosines(query), 5, -1.0)
        found = index.nearest(query, 5, -1.0)
        assert [rowid for rowid, _ in found] == [rowid for rowid, _ in exact]
        assert np.allclose([c for _, c in found], [c for _, c in exact], atol=1e-5)
        assert {rowid for rowid, _ in exact} == {10**7 + 10 * round_ + i for i in range(5)}


def test_nearest_hides_inactive_and_private_rows_and_grows() -> None:
    index, matrix = _index(EXACT_ROWS + 100)
    target = matrix[0]  # rowid 1, shared (even row)
    assert index.nearest(target, 1, 0.9) == [(1, index.nearest(target, 1, 0.9)[0][1])]
    index.set_active(1, False)
    assert 1 not in [rowid for rowid, _ in index.nearest(target, 3, -1.0)]
    private = matrix[1]  # rowid 2, not shared
    assert 2 in [rowid for rowid, _ in index.nearest(private, 3, -1.0)]
    seen = (SHARED, room_label("matrix:!a"))
    assert 2 not in [rowid for rowid, _ in index.nearest(private, 3, -1.0, labels=seen)]
    assert index.cosine_of(private, [2, 99_999_999], labels=seen) == {2: -1.0}
    index.set_label(2, room_label("matrix:!a"))  # said again in that room: it sees it now
    assert 2 in [rowid for rowid, _ in index.nearest(private, 3, -1.0, labels=seen)]
    other = (SHARED, room_label("matrix:!b"))
    assert 2 not in [rowid for rowid, _ in index.nearest(private, 3, -1.0, labels=other)]
    assert index.cosine_of(private, [2], labels=other) == {2: -1.0}
    fresh = _unit(np.random.default_rng(1).normal(size=(1, 64)))[0]
    for rowid in range(10**6, 10**6 + 40_000, 1000):  # appends past the loaded capacity
        index.add(rowid, fresh if rowid == 10**6 + 20_000 else -fresh)
    assert index.nearest(fresh, 1, 0.9)[0][0] == 10**6 + 20_000


@pytest.mark.parametrize("dim", [384, 100, 64])
def test_hamming_distances_count_every_differing_sign(dim: int) -> None:
    rng = np.random.default_rng(dim)
    rows = rng.normal(size=(500, dim)).astype(np.float32)
    query = rng.normal(size=(1, dim)).astype(np.float32)
    bits = np.ascontiguousarray(pack_signs(rows).T)
    expected = ((rows > 0) != (query > 0)).sum(axis=1)
    assert hamming(bits, pack_signs(query)[0], 500).tolist() == expected.tolist()
    assert hamming(bits, pack_signs(query)[0], 7).tolist() == expected[:7].tolist()


def test_the_shortlist_takes_the_closest_rows_and_bounds_ties() -> None:
    far = 385
    distance = np.array([7, 3, far, 3, 9, 3, 1, far, 3, 0], dtype=np.uint16)
    # below the cut (3): rows 6 and 9; at it, the first two of rows 1, 3, 5, 8
    assert closest(distance, 4, far).tolist() == [1, 3, 6, 9]
    assert closest(distance, 2, far).tolist() == [6, 9]
    # more wanted than visible: every visible row, never a hidden one
    assert closest(distance, 50, far).tolist() == [0, 1, 3, 4, 5, 6, 8, 9]
    same = np.full(100_000, 12, dtype=np.uint16)  # all tied: still only as many as asked
    assert len(closest(same, 1_000, far)) == 1_000


def test_the_shortlist_holds_the_exact_top_among_near_copies() -> None:
    """Many rows close to one another (a memory said again and again in other words): the
    search past the exact size still returns what the exact scan returns."""
    rng = np.random.default_rng(21)
    bases = _unit(rng.normal(size=(200, 64)))
    picks = rng.integers(0, 200, EXACT_ROWS + 3_000)
    matrix = _unit(bases[picks] + rng.normal(0, 0.03, (len(picks), 64)))
    index = VectorIndex(64)
    index.load(np.arange(1, len(picks) + 1, dtype=np.int64), matrix, np.ones(len(picks), bool))
    for base in bases[:20]:
        query = _unit(base[None, :] + rng.normal(0, 0.05, (1, 64)))[0]
        exact = index.top(index.cosines(query), 10, -1.0)
        found = index.nearest(query, 10, -1.0)
        assert [rowid for rowid, _ in found] == [rowid for rowid, _ in exact]


def test_rows_kept_in_nibbles_give_cosines_within_0_05_of_the_exact_ones() -> None:
    """Each row is 384 codes of 4 bits and a scale: every cosine of these clustered unit
    vectors, by the exact scan, the shortlist or a lookup, stays within 0.05 of float32's (it
    only picks the rows the store then scores exactly), and the shortlist's ten nearest are as
    close as the exact ten, within 0.02."""
    rng = np.random.default_rng(11)
    base = _unit(rng.normal(size=(40, 384)))
    matrix = _unit(
        base[rng.integers(0, 40, EXACT_ROWS + 2_000)]
        + rng.normal(0, 0.04, (EXACT_ROWS + 2_000, 384))
    )
    small, large = VectorIndex(384), VectorIndex(384)
    active = np.ones(len(matrix), dtype=bool)
    small.load(np.arange(1, 3_001), matrix[:3_000], active[:3_000])
    large.load(np.arange(1, len(matrix) + 1), matrix, active)
    for query in _unit(base[:5] + rng.normal(0, 0.05, (5, 384))):
        exact = matrix @ query
        assert np.abs(small.cosines(query) - exact[:3_000]).max() < 0.05
        found = large.nearest(query, 10, -1.0)
        assert all(abs(cosine - exact[rowid - 1]) < 0.05 for rowid, cosine in found)
        best = np.argsort(-exact)[:10] + 1
        # among these near copies the order of near ties moves; what is found is as close
        assert min(exact[rowid - 1] for rowid, _ in found) > exact[best[-1] - 1] - 0.02
        looked_up = large.cosine_of(query, best.tolist())
        assert all(abs(looked_up[r] - exact[r - 1]) < 0.05 for r in best.tolist())


def test_rows_are_found_by_rowid_in_any_order_and_a_negative_rowid_is_refused() -> None:
    rng = np.random.default_rng(2)
    vectors = _unit(rng.normal(size=(4, 64)))
    index = VectorIndex(64)
    index.load(np.array([7, 3], dtype=np.int64), vectors[:2], np.ones(2, dtype=bool))
    index.add(1_000_000, vectors[2])  # far past the map: it grows
    index.add(5, vectors[3])  # below the largest: found all the same
    index.add(3, vectors[0] * -1)  # an update, not a new row
    assert len(index) == 4
    assert all(index.has(rowid) for rowid in (3, 5, 7, 1_000_000))
    assert not index.has(4) and not index.has(2_000_000) and not index.has(-1)
    assert index.nearest(vectors[2], 1, 0.9)[0][0] == 1_000_000
    assert index.cosine_of(vectors[0], [3, 7, 4]).keys() == {3, 7}
    assert index.cosine_of(vectors[0], [3])[3] < -0.95
    with pytest.raises(ValueError, match="negative"):
        index.add(-2, vectors[0])
    assert len(index) == 4 and index.nearest(vectors[3], 1, 0.9)[0][0] == 5  # nothing half-added
    with pytest.raises(ValueError):  # three rows for two rowids: nothing of it is kept
        index.extend(np.array([8, 9]), vectors[:3], np.ones(3, dtype=bool), [DIRECT] * 3)
    assert len(index) == 4 and not index.has(8) and not index.has(9)
    index.add(2**40, vectors[1])  # a rowid put in by hand: found, without an array that long
    index.add(11, vectors[3])
    assert index.has(2**40) and index.nearest(vectors[1], 1, 0.9)[0][0] == 2**40
    assert index.cosine_of(vectors[3], [11, 5, 2**40]).keys() == {11, 5, 2**40}
    assert index._row_by_id.nbytes < 8 * 2**20


def test_a_lookup_of_more_rows_than_one_scratch_block_scores_them_all() -> None:
    index, matrix = _index(3_000)
    query = matrix[17]
    rowids = list(range(3_000, 0, -1))  # every row, out of order
    found = index.cosine_of(query, rowids)
    exact = matrix @ query
    assert len(found) == 3_000
    assert max(abs(found[rowid] - exact[rowid - 1]) for rowid in rowids) < 0.08


@pytest.mark.parametrize("dim", [7, 385])
def test_an_odd_dimension_scores_like_an_even_one(dim: int) -> None:
    rng = np.random.default_rng(dim)
    matrix = _unit(rng.normal(size=(300, dim)))
    index = VectorIndex(dim)
    index.load(np.arange(1, 301, dtype=np.int64), matrix, np.ones(300, dtype=bool))
    query = matrix[41]
    assert index.nearest(query, 1, 0.5)[0][0] == 42
    assert np.abs(index.cosines(query) - matrix @ query).max() < 0.1


def _resident_mb() -> float:
    for line in open("/proc/self/status", encoding="ascii"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    pytest.skip("no /proc/self/status here")


def test_a_large_zeroed_array_takes_memory_only_where_it_is_written() -> None:
    before = _resident_mb()
    rows = zeroed((65_536, 1024), np.uint8)  # 64 MB of room
    assert rows.shape == (65_536, 1024) and rows.dtype == np.uint8 and not rows[::4096].any()
    assert _resident_mb() - before < 8
    rows[:32_768] = 1
    assert _resident_mb() - before > 24
    assert int(rows[32_767, 0]) == 1 and int(rows[32_768, 0]) == 0
    assert zeroed(10, np.int64).tolist() == [0] * 10  # a small one is plain numpy


def test_an_index_keeps_its_rows_as_it_grows_past_mapped_room() -> None:
    rng = np.random.default_rng(2)
    index = VectorIndex(384)
    vectors = _unit(rng.normal(size=(6_000, 384)))
    for start in range(0, 6_000, 1_500):  # each read of a load grows the room
        stop = start + 1_500
        rowids = np.arange(start + 1, stop + 1, dtype=np.int64)
        index.extend(rowids, vectors[start:stop], np.ones(1_500, dtype=bool), [DIRECT] * 1_500)
    for rowid in range(6_001, 6_101):  # one at a time, as new messages come
        index.add(rowid, vectors[rowid % 6_000])
    assert len(index) == 6_100
    for row in (0, 1_499, 1_500, 4_321, 5_999):
        found = index.nearest(vectors[row], 2, 0.99)
        assert {rowid for rowid, _ in found} <= {row + 1, row + 6_001}
        assert row + 1 in {rowid for rowid, _ in found}
