"""Restarts an adapter whose connection went silent, with jittered exponential backoff.

Adapters report liveness through ``adapter.health.touch()``. Every ``interval`` seconds the
watchdog looks at each one: an adapter that is not running, or whose last success is older
than its ``stall_seconds``, is stopped and started again. Failed restarts back off
(1 s, 2 s, 4 s ... up to ``max_delay``, each scaled by a random factor in [0.5, 1]).

A start that fails for good (rejected credentials, a missing secret:
:func:`bot.daemon.errors.is_permanent`) is not retried: the adapter goes into ``given_up`` with its
reason, which ``/healthz`` and ``/status`` report, until the daemon is restarted.

A restart is not a success: only the adapter says when it is talking to its platform again
(``touch``). Until then health keeps saying "stalled", and the restarted adapter is given one
stall limit to get through before the next restart, so a platform that stays down is not
reported healthy after every restart, nor restarted every few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, MutableMapping

import structlog

from adapters.base import Adapter
from bot.daemon.errors import is_permanent
from bot.delivery.backoff import LoopTask, jittered_backoff

__all__ = ["Watchdog"]

log = structlog.get_logger(__name__)


class Watchdog:
    def __init__(
        self,
        adapters: Mapping[str, Adapter],
        stall_seconds: Mapping[str, float],
        *,
        interval: float = 5.0,
        base_delay: float = 1.0,
        max_delay: float = 300.0,
        given_up: MutableMapping[str, str] | None = None,
    ) -> None:
        self.adapters = adapters
        #: adapters that failed for good, and why; never restarted
        self.given_up: MutableMapping[str, str] = {} if given_up is None else given_up
        self.stall_seconds = stall_seconds
        self.interval = interval
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._failures: dict[str, int] = {}
        self._not_before: dict[str, float] = {}
        self._task = LoopTask(self._loop)

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.check()

    def stalled(self, name: str, adapter: Adapter) -> bool:
        limit = self.stall_seconds.get(name)
        if limit is None:
            return False
        return not adapter.health.synced(limit)

    async def check(self) -> list[str]:
        """One pass; returns the names of adapters restarted."""
        restarted = []
        now = time.monotonic()
        for name, adapter in self.adapters.items():
            if (
                name in self.given_up
                or not self.stalled(name, adapter)
                or now < self._not_before.get(name, 0.0)
            ):
                continue
            log.warning(
                "adapter.stalled",
                adapter=name,
                running=adapter.health.running,
                silent_for=round(min(adapter.health.age(), 1e9), 1),
            )
            if await self.restart(name, adapter):
                restarted.append(name)
        return restarted

    async def restart(self, name: str, adapter: Adapter) -> bool:
        adapter.health.restarts += 1
        try:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(adapter.stop(), timeout=30)
            await asyncio.wait_for(adapter.start(), timeout=60)
        except Exception as exc:
            if is_permanent(exc):
                self.given_up[name] = str(exc)
                adapter.health.failed(str(exc))
                log.error("adapter.failed", adapter=name, error=str(exc), retrying=False)
                return False
            failures = self._failures.get(name, 0) + 1
            self._failures[name] = failures
            delay = jittered_backoff(failures, self.base_delay, self.max_delay)
            self._not_before[name] = time.monotonic() + delay
            log.error(
                "adapter.restart_failed", adapter=name, error=str(exc), retry_in=round(delay, 1)
            )
            return False
        self._failures.pop(name, None)
        # the adapter touches its health once it is through; it gets one stall limit for that
        self._not_before[name] = time.monotonic() + self.stall_seconds.get(name, 0.0)
        log.info("adapter.restarted", adapter=name, restarts=adapter.health.restarts)
        return True
