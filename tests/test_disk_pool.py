"""The disk pool runs blocking calls for coroutines: results, errors, many at once."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref

import pytest

from bot.daemon.disk import DiskPool


async def test_results_and_errors_reach_the_caller() -> None:
    pool = DiskPool(2)
    assert await pool.run(sum, [1, 2, 3]) == 6
    with pytest.raises(ZeroDivisionError):
        await pool.run(lambda: 1 / 0)
    # the pool is still working after a failure
    assert await pool.run(str.upper, "ok") == "OK"


async def test_calls_run_off_the_event_loop_thread_and_overlap() -> None:
    pool = DiskPool(3)
    gate = threading.Barrier(3, timeout=10)

    def meet() -> str:
        gate.wait()  # returns only when three calls run at the same time
        return threading.current_thread().name

    names = await asyncio.gather(*(pool.run(meet) for _ in range(3)))
    assert len(set(names)) == 3
    assert threading.current_thread().name not in names


async def test_many_queued_calls_all_complete_in_their_own_order() -> None:
    pool = DiskPool(1)
    seen: list[int] = []
    results = await asyncio.gather(*(pool.run(lambda i=i: seen.append(i) or i) for i in range(200)))
    assert results == list(range(200))
    assert seen == list(range(200))


async def test_a_cancelled_caller_does_not_break_the_pool() -> None:
    pool = DiskPool(1)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(10)
        return "late"

    task = asyncio.create_task(pool.run(slow))
    await asyncio.to_thread(started.wait, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    assert await pool.run(lambda: "next") == "next"


def test_one_pool_serves_successive_event_loops() -> None:
    pool = DiskPool(1)
    assert asyncio.run(pool.run(len, "abc")) == 3
    assert asyncio.run(pool.run(len, "abcd")) == 4


async def test_the_pool_grows_only_while_every_thread_is_busy() -> None:
    pool = DiskPool(4)
    for _ in range(20):  # one call at a time: one thread does it all
        await pool.run(len, "abc")
    assert pool.threads == 1
    release = threading.Event()
    waiting = [pool.run(release.wait, 10) for _ in range(6)]
    calls = [asyncio.ensure_future(call) for call in waiting]
    for _ in range(200):
        if pool.threads == 4:
            break
        await asyncio.sleep(0.01)
    assert pool.threads == 4  # never more than its size
    release.set()
    assert await asyncio.gather(*calls) == [True] * 6
    assert pool.threads == 4


class _Document:
    """What a call is given (a document's bytes, in use): weakly referenced to see it go."""


async def test_an_idle_thread_keeps_nothing_of_its_last_call() -> None:
    pool = DiskPool(1)
    document = _Document()
    given = weakref.ref(document)
    assert await pool.run(id, document) == id(document)
    del document
    # the thread now waits for the next call; the document it read is gone with its turn
    async with asyncio.timeout(10):
        while given() is not None:
            gc.collect()
            await asyncio.sleep(0.01)
    assert pool.busy == 0


async def test_a_pool_that_skips_abandoned_calls_never_starts_one_no_one_waits_for() -> None:
    pool = DiskPool(1, skip_abandoned=True)
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(10)

    first = asyncio.create_task(pool.run(slow))
    await asyncio.to_thread(started.wait, 10)
    queued = asyncio.create_task(pool.run(ran.append, "queued"))
    await asyncio.sleep(0)
    assert pool.busy == 2
    queued.cancel()  # its caller stops waiting while the one thread is taken
    release.set()
    await first
    assert await pool.run(ran.append, "next") is None
    assert ran == ["next"]
