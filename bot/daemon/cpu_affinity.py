"""Keep the daemon's Python threads on one core.

Only one thread runs Python at a time (the GIL), and the event loop hands work to other
threads all the time: every SQLite statement goes to its connection's thread and its rows
come back, a few times each turn. When those threads are spread over cores, each hand-over
wakes another core and the GIL moves between them; on a virtual machine that costs more than
the statement itself. ``bench/turn_overhead.py`` with memory on, two cores: 393-589 turns/s
with the threads spread, 561-614 with them kept on one, and a turn's p50 until sent 1.14-1.18
ms instead of 1.55-1.93.

:func:`keep_to_one_core` pins the calling thread (the event loop's, before the daemon starts
its other threads, which inherit the pin) to the core it runs on. Work that does run beside
Python, the embedding model's forward pass, goes back to every core
(:func:`use_every_core`). ``daemon.one_core: false`` leaves placement to the kernel.
"""

from __future__ import annotations

import os
from pathlib import Path

import structlog

__all__ = ["current_cpu", "keep_to_one_core", "use_every_core"]

log = structlog.get_logger(__name__)

#: the cores the process could use before it was kept to one (None: never kept to one)
_every_core: frozenset[int] | None = None


def current_cpu() -> int | None:
    """The core the calling thread runs on now (Linux), or None when it cannot be told."""
    try:
        stat = Path("/proc/thread-self/stat").read_text()
        # fields after the command name (which may hold spaces and parentheses); the 39th
        # field of the line, "processor", is the 37th of them
        return int(stat[stat.rindex(")") + 2 :].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def keep_to_one_core() -> int | None:
    """Pin the calling thread, and every thread it starts from now on, to the core it runs
    on; returns that core, or None when there is nothing to do (one core allowed, or no
    thread affinity on this system)."""
    global _every_core
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = frozenset(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    cpu = current_cpu()
    if cpu not in allowed:
        cpu = min(allowed)
    os.sched_setaffinity(0, {cpu})
    _every_core = allowed
    log.info("daemon.one_core", cpu=cpu, of=len(allowed))
    return cpu


def use_every_core() -> None:
    """Let the calling thread run on every core the process could use before
    :func:`keep_to_one_core` (nothing when it was never called). One system call: cheap
    beside the work that asks for it (a forward pass of the embedding model, milliseconds)."""
    if _every_core is not None:
        os.sched_setaffinity(0, _every_core)
