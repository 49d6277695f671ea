"""Giving the heap back: after a large build is done with (the model's weights once the
session has its own copy, the stored vectors once the index holds them), the freed memory is
returned to the system instead of staying resident in the allocator's free lists.
"""

from __future__ import annotations

import ctypes
import gc

__all__ = ["give_back_freed_memory", "trim_heap"]


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
