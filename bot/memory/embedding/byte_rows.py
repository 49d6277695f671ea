"""Rows of floats kept small, with a scale each: as signed bytes (a quarter of float32's size)
or as pairs of 4-bit codes in a byte (an eighth).

Signed bytes: each row's scale is its largest magnitude over 127, so its largest number is
exact and every other is off by at most half a step. Over the 4 million pairs of 2,000 MiniLM
vectors (set B's messages), a float32 vector's cosine with one read back this way moved by
0.0022 at most and by under 0.0013 for all but one pair in a thousand (the bound in principle
is the length of a row's error: up to 0.011). The encoder's word rows
(:mod:`bot.memory.embedding.encoder_graph`) are kept so.

Nibbles: the scale is the largest magnitude over 7 (codes -7 to 7), and a row's first half of
numbers sits in the low four bits of its bytes, its second half in the high four. Over the same
pairs a cosine moved by 0.0056 on average and 0.043 at most: close enough to pick which rows
are worth scoring, not to score them. The index of vectors
(:mod:`bot.memory.sqlite.vector_index`) is kept so; the scores of what it finds come from the
exact vectors in the store (:func:`bot.memory.sqlite.vector_rows.VectorRows.cosines`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Codes", "Nibbles", "as_bytes", "as_nibbles", "nibble_width", "widen_nibbles"]

Codes = npt.NDArray[np.int8]
Nibbles = npt.NDArray[np.uint8]

#: a code of 0 is stored as this, so every stored nibble is unsigned
_NIBBLE_ZERO = 8
#: rows scaled at a time
_BLOCK_ROWS = 4096


def _scaled(
    rows: npt.ArrayLike, top: float
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    matrix = np.asarray(rows, dtype=np.float32)
    largest = np.abs(matrix).max(axis=1)
    scales = np.where(largest > 0, largest / top, 1.0).astype(np.float32)
    return np.rint(matrix / scales[:, None]), scales


def as_bytes(rows: npt.ArrayLike) -> tuple[Codes, npt.NDArray[np.float32]]:
    """Each row of ``rows`` (two dimensions) as signed bytes, and the scale that gives it
    back: ``codes[i] * scales[i]``. A row of zeros has the scale 1."""
    matrix = np.asarray(rows, dtype=np.float32)
    codes = np.empty(matrix.shape, dtype=np.int8)
    scales = np.empty(len(matrix), dtype=np.float32)
    # a block of rows at a time: the encoder's 30,522 word rows would need twice their float32
    # size again in scratch at once
    for start in range(0, len(matrix), _BLOCK_ROWS):
        block = slice(start, start + _BLOCK_ROWS)
        block_codes, block_scales = _scaled(matrix[block], 127.0)
        codes[block] = block_codes
        scales[block] = block_scales
    return codes, scales


def nibble_width(dim: int) -> int:
    """Bytes a row of ``dim`` numbers takes as nibbles."""
    return (dim + 1) // 2


def as_nibbles(rows: npt.ArrayLike) -> tuple[Nibbles, npt.NDArray[np.float32]]:
    """Each row of ``rows`` (two dimensions) as :func:`nibble_width` bytes of two 4-bit codes,
    and its scale: :func:`widen_nibbles` gives ``codes * scale`` back."""
    codes, scales = _scaled(rows, 7.0)
    stored = (codes + _NIBBLE_ZERO).astype(np.uint8)
    width = nibble_width(stored.shape[1])
    if stored.shape[1] < 2 * width:  # an odd row: a zero to pair with the last number
        stored = np.pad(stored, ((0, 0), (0, 1)), constant_values=_NIBBLE_ZERO)
    packed: Nibbles = (stored[:, :width] | (stored[:, width:] << 4)).astype(np.uint8)
    return packed, scales


def widen_nibbles(packed: Nibbles, out: npt.NDArray[np.float32], spare: Nibbles) -> None:
    """The codes of ``packed`` rows as floats into ``out`` (rows x twice their width), before
    their scales; ``spare`` is a block as large as ``packed`` to unpack in."""
    width = packed.shape[1]
    np.bitwise_and(packed, 0x0F, out=spare)
    np.copyto(out[:, :width], spare, casting="unsafe")
    np.right_shift(packed, 4, out=spare)
    np.copyto(out[:, width:], spare, casting="unsafe")
    out -= _NIBBLE_ZERO
