"""Group commit: requests that arrive together share one trip, each still gets its answer."""

from __future__ import annotations

import asyncio

import pytest

from bot.delivery.batching import Batcher


def doubling(batches: list[list[int]], *, max_batch: int = 256) -> Batcher[int, int]:
    """A batcher that doubles numbers, recording each batch it runs in ``batches``."""

    async def double(items: list[int]) -> list[int]:
        batches.append(items)
        await asyncio.sleep(0)
        return [2 * item for item in items]

    return Batcher(double, max_batch=max_batch)


async def test_requests_arriving_while_a_batch_runs_go_in_the_next_one() -> None:
    batches: list[list[int]] = []
    batcher = doubling(batches, max_batch=50)
    results = await asyncio.gather(*(batcher.submit(n) for n in range(120)))
    assert results == [2 * n for n in range(120)]
    assert [n for batch in batches for n in batch] == list(range(120))
    assert len(batches) < 120 and max(len(b) for b in batches) <= 50


async def test_a_failed_batch_fails_its_requests_only() -> None:
    calls = 0

    async def flaky(items: list[str]) -> list[str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("disk went away")
        return [item.upper() for item in items]

    batcher: Batcher[str, str] = Batcher(flaky)
    with pytest.raises(OSError, match="disk went away"):
        await batcher.submit("a")
    assert await batcher.submit("b") == "B"


async def test_a_caller_that_gives_up_does_not_stop_the_others() -> None:
    release = asyncio.Event()

    async def slow(items: list[int]) -> list[int]:
        await release.wait()
        return items

    batcher: Batcher[int, int] = Batcher(slow)
    impatient = asyncio.create_task(batcher.submit(1))
    patient = asyncio.create_task(batcher.submit(2))
    await asyncio.sleep(0)
    impatient.cancel()
    release.set()
    assert await patient == 2
    with pytest.raises(asyncio.CancelledError):
        await impatient


async def test_scheduled_items_share_a_batch_and_report_through_their_futures() -> None:
    batches: list[list[int]] = []
    batcher = doubling(batches)
    futures = [batcher.schedule(n) for n in range(5)]
    assert not any(future.done() for future in futures)
    assert await asyncio.gather(*futures) == [0, 2, 4, 6, 8]
    assert batches == [[0, 1, 2, 3, 4]]
    assert await batcher.submit(7) == 14  # and the direct path still works after
