"""The in-memory index of one persona's embeddings: each vector as 384 codes of 4 bits and a
scale (196 bytes a row instead of 1,536 as float32; cosines within 0.043 of the exact ones,
0.0056 on average, :mod:`bot.memory.embedding.byte_rows`), and its sign bits.

The index finds; it does not score. Search is a matrix-vector product over the live rows;
past :data:`EXACT_ROWS` rows the sign bits pick a shortlist by Hamming distance first
(:mod:`bot.memory.sqlite.sign_bits`) and only the shortlist is scored, from its 4-bit rows.
What a recall then ranks is scored by the exact vectors in the store
(:meth:`~bot.memory.sqlite.vector_rows.VectorRows.cosines`): with the pool's cosines read from
the index's own rows, set B's recall@5 fell from 0.640 to 0.623; with them exact it stayed
0.640, and set A's 0.921 (the rows in signed bytes, 388 bytes, gave the same figures; 100,000
memories took 16 MB more).
Measured at 100,000 MiniLM vectors (``bench/recall.py``), the shortlist of :data:`SHORTLIST`
rows holds the exact top 10 nearly always, in about 0.5 ms against 12 ms for the exact scan.
Each row carries its item's audience label (:mod:`bot.turn.audience`) as a small code, so a search
for one audience masks out the rows it may not see before anything is ranked. An index is
loaded from the store, and given the vectors of rows that had none, by
:mod:`bot.memory.sqlite.index_loading`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from bot.memory.embedding.byte_rows import Nibbles, as_nibbles, nibble_width, widen_nibbles
from bot.memory.embedding.models import Matrix
from bot.memory.heap import zeroed
from bot.memory.sqlite.sign_bits import closest, hamming, pack_signs, word_count
from bot.turn.audience import DIRECT

__all__ = ["EXACT_ROWS", "SHORTLIST", "Matrix", "StoredVectors", "VectorIndex"]

EXACT_ROWS = 20_000
"""Up to this many rows every cosine is computed (a few milliseconds at most)."""

SHORTLIST = 1_000
"""Rows a sign-bit scan keeps for exact scoring."""

_SCAN_ROWS = 1024
"""Rows widened back to float32 at a time by a search, into one scratch block of 1.5 MB (and
0.2 MB to unpack their codes in) each index keeps (a new block a search left the heap in
pieces: 16 MB more resident at 20,000 memories after a hundred searches)."""


class StoredVectors(NamedTuple):
    """The stored vectors of one model, by row: an index is loaded from these."""

    rowids: list[int]
    blobs: list[bytes]
    active: list[bool]
    labels: list[str]


_ARRAY_IDS = 1 << 20
"""Rowids below this, or below four times the index's rows, are found in an array; a larger
one in a dict (an array as long as a rowid of 2**31 would take 8 GB)."""


def _grown(rows: npt.NDArray[Any], shape: int | tuple[int, ...]) -> npt.NDArray[Any]:
    """``rows`` at the start of a new zeroed array of ``shape``."""
    grown = zeroed(shape, rows.dtype)
    grown[: len(rows)] = rows
    return grown


def _refuse_negative(rowids: npt.NDArray[np.int64]) -> None:
    if len(rowids) and int(rowids.min()) < 0:
        raise ValueError("a vector's rowid cannot be negative")


class VectorIndex:
    """Every stored vector of one persona as 4-bit codes with a scale a row, appended in
    place (the exact float32 vectors stay in the store, and a model's query is float32).

    Search and duplicate checks are one matrix-vector product over the live rows; rows of
    inactive items stay but are masked out, and so are the rows of items whose audience label
    is not among the ``labels`` a search is given (None: every label).
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._width = nibble_width(dim)
        self._rows: Nibbles = np.zeros((256, self._width), dtype=np.uint8)
        self._scratch: Matrix = np.empty((_SCAN_ROWS, 2 * self._width), dtype=np.float32)
        self._spare: Nibbles = np.empty((_SCAN_ROWS, self._width), dtype=np.uint8)
        self._scales: Matrix = np.ones(256, dtype=np.float32)
        #: the sign bits by word (one row of words per 64 dimensions): each word's scan reads
        #: one contiguous array
        self._bits = np.zeros((word_count(dim), 256), dtype=np.uint64)
        self._active = np.zeros(256, dtype=bool)
        #: each row's audience label, as its code in ``_codes``
        self._labels = np.zeros(256, dtype=np.int32)
        self._codes: dict[str, int] = {DIRECT: 0}
        self._rowids = np.zeros(256, dtype=np.int64)
        #: each rowid's row (-1: none), by rowid: 4 bytes for every rowid up to the largest
        #: (400 KB at 100,000 memories, against 5 MB for a dict); the rows of rowids far past
        #: it in a dict
        self._row_by_id = np.full(256, -1, dtype=np.int32)
        self._far: dict[int, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def load(
        self,
        rowids: npt.NDArray[np.int64],
        matrix: Matrix,
        active: npt.NDArray[np.bool_],
        labels: Sequence[str] | None = None,
    ) -> None:
        """Replace the contents with ``matrix`` (one row per rowid), in one copy."""
        _refuse_negative(rowids)
        size = len(rowids)
        capacity = max(256, 1 << (size - 1).bit_length()) if size else 256
        self._rows = zeroed((capacity, self._width), np.uint8)
        self._scales = zeroed(capacity, np.float32)
        self._rows[:size], self._scales[:size] = as_nibbles(matrix)
        self._bits = zeroed((word_count(self.dim), capacity), np.uint64)
        self._bits[:, :size] = pack_signs(matrix).T
        self._active = zeroed(capacity, bool)
        self._active[:size] = active
        self._labels = zeroed(capacity, np.int32)
        if labels is not None:
            self._labels[:size] = [self._code(label) for label in labels]
        self._rowids = zeroed(capacity, np.int64)
        self._rowids[:size] = rowids
        self._row_by_id = np.full(256, -1, dtype=np.int32)
        self._far = {}
        self._place(rowids, np.arange(size))
        self._size = size

    def _place(self, rowids: npt.NDArray[np.int64], rows: npt.NDArray[np.int_]) -> None:
        """Remember each rowid's row: in the array, grown by doubling to the largest rowid, or,
        for a rowid far past the rows there are (one put in by hand), in a dict."""
        near = rowids < max(_ARRAY_IDS, 4 * len(self._rows))
        if not near.all():
            self._far.update(zip(rowids[~near].tolist(), rows[~near].tolist(), strict=True))
            rowids, rows = rowids[near], rows[near]
        if len(rowids) and (wanted := int(rowids.max()) + 1) > len(self._row_by_id):
            grown = np.full(max(wanted, 2 * len(self._row_by_id)), -1, dtype=np.int32)
            grown[: len(self._row_by_id)] = self._row_by_id
            self._row_by_id = grown
        self._row_by_id[rowids] = rows

    def _row(self, rowid: int) -> int | None:
        if 0 <= rowid < len(self._row_by_id) and (row := int(self._row_by_id[rowid])) >= 0:
            return row
        return self._far.get(rowid)

    def _code(self, label: str) -> int:
        return self._codes.setdefault(label, len(self._codes))

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` rows, growing by doubling (the old rows copied once; the room
        beyond them takes memory only once rows are put in it)."""
        capacity = len(self._rows)
        if rows <= capacity:
            return
        while capacity < rows:
            capacity *= 2
        size = self._size
        self._rows = _grown(self._rows[:size], (capacity, self._width))
        self._scales = _grown(self._scales[:size], capacity)
        bits = zeroed((self._bits.shape[0], capacity), np.uint64)
        bits[:, :size] = self._bits[:, :size]
        self._bits = bits
        self._active = _grown(self._active[:size], capacity)
        self._labels = _grown(self._labels[:size], capacity)
        self._rowids = _grown(self._rowids[:size], capacity)

    def extend(
        self,
        rowids: npt.NDArray[np.int64],
        matrix: Matrix,
        active: npt.NDArray[np.bool_],
        labels: Sequence[str],
    ) -> None:
        """Append rows for rowids not in the index yet (as a load reads them, in order)."""
        _refuse_negative(rowids)
        start, count = self._size, len(rowids)
        self._reserve(start + count)
        end = start + count
        self._rows[start:end], self._scales[start:end] = as_nibbles(matrix)
        self._bits[:, start:end] = pack_signs(matrix).T
        self._active[start:end] = active
        self._labels[start:end] = [self._code(label) for label in labels]
        self._rowids[start:end] = rowids
        self._place(rowids, np.arange(start, end))
        self._size = end

    def extend_stored(self, stored: StoredVectors) -> None:
        """Append the rows of ``stored`` (in rowid order, none in the index yet)."""
        self.extend(
            np.array(stored.rowids, dtype=np.int64),
            np.frombuffer(b"".join(stored.blobs), dtype=np.float32).reshape(-1, self.dim),
            np.array(stored.active, dtype=bool),
            stored.labels,
        )

    def add(self, rowid: int, vector: Matrix, *, active: bool = True, label: str = DIRECT) -> None:
        row = self._row(rowid)
        if row is None:
            _refuse_negative(np.array([rowid], dtype=np.int64))
            self._reserve(self._size + 1)
            row = self._size
            self._rowids[row] = rowid
            self._place(np.array([rowid], dtype=np.int64), np.array([row]))
            self._size += 1
        codes, scales = as_nibbles(vector.reshape(1, -1))
        self._rows[row], self._scales[row] = codes[0], scales[0]
        self._bits[:, row] = pack_signs(vector.reshape(1, -1))[0]
        self._active[row] = active
        self._labels[row] = self._code(label)

    def set_active(self, rowid: int, active: bool) -> None:
        row = self._row(rowid)
        if row is not None:
            self._active[row] = active

    def set_label(self, rowid: int, label: str) -> None:
        """The item's audience changed: searches see it by its new label from now on."""
        row = self._row(rowid)
        if row is not None:
            self._labels[row] = self._code(label)

    def has(self, rowid: int) -> bool:
        return self._row(rowid) is not None

    def cosines(self, query: Matrix, *, labels: Collection[str] | None = None) -> Matrix:
        """Cosine of ``query`` (a normalised row) against every row; inactive rows (and the
        rows of a label not among ``labels``, when given) get -1."""
        scores = self._scored(np.arange(self._size), query.reshape(-1).astype(np.float32))
        scores[self._hidden(labels)] = -1.0
        return scores

    def _scored(self, rows: npt.NDArray[np.intp], query: Matrix) -> Matrix:
        """Cosines of ``query`` (float32) with the given rows, widened in the scratch block."""
        scores: Matrix = np.empty(len(rows), dtype=np.float32)
        if len(query) < self._scratch.shape[1]:  # an odd dimension: its rows end in a zero
            query = np.append(query, np.float32(0.0))
        for start in range(0, len(rows), _SCAN_ROWS):
            part = rows[start : start + _SCAN_ROWS]
            widened = self._scratch[: len(part)]
            widen_nibbles(self._rows[part], widened, self._spare[: len(part)])
            np.matmul(widened, query, out=scores[start : start + len(part)])
        scores *= self._scales[rows]
        return scores

    def top(self, cosines: Matrix, k: int, floor: float) -> list[tuple[int, float]]:
        """The ``k`` best ``(rowid, cosine)`` pairs at or above ``floor``, best first."""
        if k <= 0 or cosines.size == 0:
            return []
        k = min(k, cosines.size)
        rows = np.argpartition(-cosines, k - 1)[:k]
        rows = rows[np.argsort(-cosines[rows])]
        return [
            (int(self._rowids[row]), float(cosines[row])) for row in rows if cosines[row] >= floor
        ]

    def lookup(self, cosines: Matrix, rowid: int) -> float:
        row = self._row(rowid)
        if row is None or row >= cosines.size:
            return 0.0
        return float(cosines[row])

    def _hidden(
        self, labels: Collection[str] | None, rows: npt.NDArray[np.intp] | None = None
    ) -> npt.NDArray[np.bool_]:
        """Which rows (all, or ``rows``) a search of ``labels`` may not see."""
        active = self._active[: self._size] if rows is None else self._active[rows]
        hidden: npt.NDArray[np.bool_] = ~active
        if labels is not None:
            # a row's label code looks up whether the search sees it (faster than np.isin)
            seen = np.zeros(len(self._codes), dtype=bool)
            seen[[self._codes[label] for label in labels if label in self._codes]] = True
            of_rows = self._labels[: self._size] if rows is None else self._labels[rows]
            hidden |= ~seen[of_rows]
        return hidden

    def nearest(
        self, query: Matrix, k: int, floor: float, *, labels: Collection[str] | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest visible ``(rowid, cosine)`` pairs at or above ``floor``.

        Up to :data:`EXACT_ROWS` rows every cosine is computed. Past that, one sign bit a
        dimension picks a shortlist by Hamming distance (:mod:`bot.memory.sqlite.sign_bits`)
        and only the shortlist is scored.
        """
        if k <= 0 or self._size == 0:
            return []
        if self._size <= EXACT_ROWS:
            return self.top(self.cosines(query, labels=labels), k, floor)
        q = query.reshape(-1).astype(np.float32)
        distance = hamming(self._bits, pack_signs(q.reshape(1, -1))[0], self._size)
        far = self.dim + 1  # past any Hamming distance: the rows this search may not see
        distance[self._hidden(labels)] = far
        rows = closest(distance, min(self._size, max(SHORTLIST, 8 * k)), far)
        scores = self._scored(rows, q)
        order = np.argsort(-scores)[:k]
        return [(int(self._rowids[rows[i]]), float(scores[i])) for i in order if scores[i] >= floor]

    def cosine_of(
        self, query: Matrix, rowids: Sequence[int], *, labels: Collection[str] | None = None
    ) -> dict[int, float]:
        """Cosines of the given items as the index holds them, near enough to choose among
        them, not to rank them (hidden from this search: -1; unknown: absent)."""
        known = [(rowid, row) for rowid in rowids if (row := self._row(rowid)) is not None]
        if not known:
            return {}
        rows = np.array([row for _, row in known], dtype=np.intp)
        scores = self._scored(rows, query.reshape(-1).astype(np.float32))
        scores[self._hidden(labels, rows)] = -1.0
        return {rowid: float(score) for (rowid, _), score in zip(known, scores, strict=True)}
