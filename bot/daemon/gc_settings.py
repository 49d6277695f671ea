"""Settings of Python's cyclic garbage collector for a daemon that lives for months.

With the defaults, a full collection walks every object the process holds whenever the
objects that survived since the last one grow by a quarter: the imported libraries
(hundreds of thousands of objects) and every open session, each time. On a two-core server
with a thousand sessions that was about a fifth of the event loop's time and stalls of a
few hundred milliseconds (``bench/turn_overhead.py``). Almost nothing personad keeps forms
reference cycles, so the collector is asked to do less:

- the objects alive once the daemon has started (the libraries, the configuration) are
  frozen: never scanned again, and never freed, as they live as long as the process anyway;
- the youngest generation is collected after 2,000 new objects instead of 700 (a young
  collection of a few thousand objects takes a millisecond or two on such a machine, so it
  stays out of the slowest percent of turns), and middle and full collections are far rarer.

Reference counting, which frees almost everything, is unaffected.
"""

from __future__ import annotations

import gc

__all__ = ["THRESHOLDS", "settle_collector"]

#: (youngest, middle, oldest): see :func:`gc.set_threshold`
THRESHOLDS = (2_000, 20, 100)


def settle_collector() -> None:
    """Call once, when start-up is done."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
