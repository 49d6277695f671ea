"""Giving the heap back: after a large build is done with (the model's weights once the
session has its own copy, the stored vectors once the index holds them), the freed memory is
returned to the system instead of staying resident in the allocator's free lists.
"""

from __future__ import annotations

import ctypes
import gc

__all__ = ["give_back_freed_memory", "map_large_blocks", "trim_heap"]

#: ``mallopt``'s option for the size from which a block gets pages of its own
_M_MMAP_THRESHOLD = -3
#: glibc's default threshold, kept fixed
_MAPPED_FROM = 128 * 1024


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


def map_large_blocks() -> None:
    """Give every block of 128 KiB or more pages of its own (``mmap``), returned to the system
    the moment it is freed: the scratch of a forward pass, a load's rows, a search's scores.

    glibc starts there too, but raises the threshold each time such a block is freed (up to
    32 MiB), after which the same arrays are carved from the heap and leave it in pieces that
    stay resident: 17 MB more at 20,000 memories, after a hundred searches. Setting the
    threshold once keeps it where it starts; on another C library nothing happens.
    """
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, _MAPPED_FROM)
    except (OSError, AttributeError):
        return
