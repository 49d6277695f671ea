"""The sign bits of vectors and the shortlist they pick, for
:meth:`~bot.memory.sqlite.vector_index.VectorIndex.nearest` past its exact size.

One bit a dimension (set when positive), packed into 64-bit words, is 48 bytes a row for 384
dimensions against 196 for the index's 4-bit codes, so a scan of 100,000 rows reads 5 MB, not
20, and never widens a row. The Hamming distance of a query's bits to each row's picks a
shortlist, and only the shortlist is scored; its cut comes from a histogram of the distances,
not a sort.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from bot.memory.embedding.models import Matrix

__all__ = ["closest", "hamming", "pack_signs", "word_count"]

#: words whose bit counts are summed in one byte before the total widens (3 x 64 bits <= 255)
_WORDS_PER_BYTE = 3


def word_count(dim: int) -> int:
    """The 64-bit words that hold one row's sign bits."""
    return (dim + 63) // 64


def pack_signs(matrix: Matrix) -> npt.NDArray[np.uint64]:
    """One bit a dimension (set when positive), packed into 64-bit words per row."""
    rows = matrix.shape[0]
    packed = np.packbits(matrix > 0, axis=1)
    width = word_count(matrix.shape[1]) * 8
    if packed.shape[1] < width:
        packed = np.pad(packed, ((0, 0), (0, width - packed.shape[1])))
    return np.ascontiguousarray(packed).view(np.uint64).reshape(rows, -1)


def hamming(
    bits: npt.NDArray[np.uint64], query: npt.NDArray[np.uint64], size: int
) -> npt.NDArray[np.uint16]:
    """Hamming distance of ``query``'s sign bits to each of the first ``size`` rows; the counts
    of three words at a time add up in bytes, so the 16-bit total is touched twice, not six
    times, for 384 dimensions."""
    distance = np.zeros(size, dtype=np.uint16)
    scratch = np.empty(size, dtype=np.uint64)

    def count(word: int) -> npt.NDArray[np.uint8]:
        np.bitwise_xor(bits[word, :size], query[word], out=scratch)
        counted: npt.NDArray[np.uint8] = np.bitwise_count(scratch)
        return counted

    for start in range(0, len(query), _WORDS_PER_BYTE):
        part = count(start)
        for word in range(start + 1, min(start + _WORDS_PER_BYTE, len(query))):
            part += count(word)
        distance += part
    return distance


def closest(distance: npt.NDArray[np.uint16], count: int, far: int) -> npt.NDArray[np.intp]:
    """The rows of the ``count`` smallest distances below ``far``, in row order (the gather
    that scores them then reads the matrix forward).

    Distances take at most ``far`` values, so their histogram gives the cut: every row below
    it, and as many rows at it as the count still wants (the first ones). At 100,000 rows that
    is about 0.1 ms, against 0.6 ms for ``argpartition``.
    """
    below_or_at = np.cumsum(np.bincount(distance, minlength=far + 1)[:far])
    cut = int(np.searchsorted(below_or_at, count))
    if cut >= far:  # fewer visible rows than wanted: all of them
        return np.flatnonzero(distance < far)
    rows = np.flatnonzero(distance <= cut)
    extra = len(rows) - count
    if extra > 0:  # too many at the cut: the last of them go
        tied = np.flatnonzero(distance[rows] == cut)
        rows = np.delete(rows, tied[len(tied) - extra :])
    return rows
