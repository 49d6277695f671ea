"""Rows kept as signed bytes and a scale: every row exact to half a step, however many."""

from __future__ import annotations

import numpy as np

from bot.memory.embedding.byte_rows import as_bytes

__all__: list[str] = []


def test_every_row_of_many_comes_back_within_half_a_step() -> None:
    rows = np.random.default_rng(7).normal(size=(10_001, 24)).astype(np.float32)
    rows[5_000] = 0.0
    rows[9_999] *= 1000.0  # one row far larger than the others keeps its own scale
    codes, scales = as_bytes(rows)
    assert codes.dtype == np.int8 and codes.shape == rows.shape and scales.shape == (10_001,)
    back = codes.astype(np.float32) * scales[:, None]
    assert np.all(np.abs(back - rows) <= scales[:, None] / 2 + 1e-6 * np.abs(rows))
    # each row's largest number is exact: its code is 127 or -127
    assert np.all(np.abs(codes).max(axis=1)[np.arange(10_001) != 5_000] == 127)
    assert scales[5_000] == 1.0 and not codes[5_000].any()
    assert np.allclose(scales[:4096], np.abs(rows[:4096]).max(axis=1) / 127)
