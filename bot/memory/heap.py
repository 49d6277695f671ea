"""Giving the heap back: after a large build is done with (the model's weights once the
session has its own copy, the stored vectors once the index holds them), the freed memory is
returned to the system instead of staying resident in the allocator's free lists; and large
zeroed arrays that take memory only as they are filled.
"""

from __future__ import annotations

import ctypes
import gc
import math
import mmap
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["MAPPED_BYTES", "give_back_freed_memory", "trim_heap", "zeroed"]

MAPPED_BYTES = 1 << 20
"""Arrays of this size or more are mapped pages of their own (:func:`zeroed`)."""


def zeroed(shape: int | tuple[int, ...], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """A zeroed array whose pages are resident only once written. ``np.zeros`` gives that
    only while glibc maps the block afresh; once a large block has been freed, glibc raises
    its threshold and serves the next one from the heap, zeroing (so touching) all of it: an
    index's room to grow, grown by doubling, was then resident in full (100,000 messages and
    their sentences: 20 MB). An anonymous map is zero pages until written, and is unmapped
    when the array goes."""
    kind = np.dtype(dtype)
    nbytes = math.prod((shape,) if isinstance(shape, int) else shape) * kind.itemsize
    if nbytes < MAPPED_BYTES:
        return np.zeros(shape, dtype=kind)
    pages = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE)  # anonymous, never shared
    return np.frombuffer(pages, dtype=kind).reshape(shape)


def give_back_freed_memory() -> None:
    """Collect, then ask glibc to return free heap pages (``malloc_trim``); on another C
    library nothing more happens."""
    gc.collect()
    trim_heap()


def trim_heap() -> None:
    """Ask glibc to return free heap pages, without a collection (what C code freed: the
    scratch of a model's forward pass); on another C library nothing happens."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return
