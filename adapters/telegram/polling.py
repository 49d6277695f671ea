"""Long polling ``getUpdates``, confirming an update only once its turn has finished.

Telegram keeps an update until a ``getUpdates`` names an ``offset`` past it, then forgets
it for good. The poller therefore asks with the offset of the oldest update still being
handled (or the next one when nothing is): the server keeps sending unfinished updates
back, the poller skips the ones it already started, and a crash in the middle of a turn
brings that update back after the restart (the core drops the ones it already answered by
their event id). While turns run it polls briefly every second instead of holding a long
poll, since the server answers at once while unconfirmed updates remain.

The same offset is saved in the adapter state after every batch, so a restart starts
where the last run confirmed and never fetches a handled update again.

Raw updates are fetched as JSON and parsed one by one: one malformed update is logged and
skipped instead of failing its whole batch forever.
"""

from __future__ import annotations

import asyncio
import random
import warnings
from collections.abc import Callable
from typing import Any

import structlog
from telegram import Bot
from telegram.error import Conflict, InvalidToken, RetryAfter, TelegramError
from telegram.warnings import PTBUserWarning

from adapters.base import AdapterHealth, Incoming, KeyValueStore
from adapters.telegram.client import retry_seconds
from adapters.telegram.dispatch import Dispatcher

__all__ = ["OFFSET_KEY", "Poller"]

log = structlog.get_logger(__name__)

OFFSET_KEY = "update_offset"
MAX_BACKOFF = 60.0
#: seconds between short polls while turns are running
BUSY_POLL = 1.0

# Raw getUpdates goes through Bot.do_api_request, which suggests Bot.get_updates instead;
# get_updates parses the whole batch at once and one bad update would fail all of them.
warnings.filterwarnings("ignore", message=r"Please use 'Bot\.getUpdates'", category=PTBUserWarning)

Parse = Callable[[Any], Incoming | None]


class Poller:
    """Fetches updates until cancelled and submits each new event to the dispatcher."""

    def __init__(
        self,
        bot: Bot,
        state: KeyValueStore,
        health: AdapterHealth,
        parse: Parse,
        dispatcher: Dispatcher,
        *,
        timeout: int = 30,
        backoff: float = 1.0,
    ) -> None:
        self.bot = bot
        self.state = state
        self.health = health
        self.parse = parse
        self.dispatcher = dispatcher
        self.timeout = timeout
        self.backoff = backoff
        #: one past the highest update id seen
        self.next_id: int | None = None
        self._saved: int | None = None

    async def load(self) -> None:
        saved = await self.state.get(OFFSET_KEY)
        self.next_id = self._saved = int(saved) if saved and saved.isdigit() else None

    def committed(self) -> int | None:
        """The offset to confirm: nothing before it is unfinished."""
        waiting = self.dispatcher.in_flight()
        return min(waiting) if waiting else self.next_id

    async def run(self) -> None:
        """Poll until cancelled; failures are retried with jittered backoff."""
        delay = self.backoff
        while True:
            busy = self.dispatcher.busy
            try:
                batch = await self._fetch(0 if busy else self.timeout)
            except Exception as exc:  # whatever it was, the loop must live on
                wait = self._wait_after(exc, delay)
                message = exc.message if isinstance(exc, TelegramError) else repr(exc)
                self.health.reconnects += 1
                self.health.detail = f"getUpdates failed: {message}"
                log.warning("telegram.poll_failed", error=message, retry_in=round(wait, 1))
                await asyncio.sleep(wait)
                delay = min(delay * 2, MAX_BACKOFF)
                continue
            delay = self.backoff
            self.health.touch("polling")
            fresh = [raw for raw in batch if self._take(raw)]
            for raw in fresh:
                event = self.parse(raw)
                if event is not None:
                    self.dispatcher.submit(event, raw["update_id"])
            await self.save()
            if busy and not fresh:
                await self.dispatcher.wait_any(BUSY_POLL)

    async def _fetch(self, hold: int) -> list[Any]:
        params: dict[str, Any] = {"timeout": hold, "allowed_updates": ["message"]}
        offset = self.committed()
        if offset is not None:
            params["offset"] = offset
        result = await self.bot.do_api_request(
            "getUpdates", api_kwargs=params, read_timeout=hold + 15
        )
        if not isinstance(result, list):
            raise TelegramError(f"getUpdates answered {type(result).__name__}, not a list")
        return result

    def _take(self, raw: Any) -> bool:
        """True for an update not seen before; moves ``next_id`` past it."""
        update_id = raw.get("update_id") if isinstance(raw, dict) else None
        if not isinstance(update_id, int):
            # its keys only: its values may hold what someone said, Off The Record too
            keys = sorted(str(key) for key in raw) if isinstance(raw, dict) else type(raw).__name__
            log.warning("telegram.update_without_id", keys=keys)
            return False
        if self.next_id is not None and update_id < self.next_id:
            return False
        self.next_id = update_id + 1
        return True

    def _wait_after(self, exc: Exception, delay: float) -> float:
        if isinstance(exc, RetryAfter):
            return retry_seconds(exc)
        if isinstance(exc, (InvalidToken, Conflict)):
            delay = max(
                delay, 5 * self.backoff
            )  # another poller or a webhook: do not hammer the server
        return delay * (0.5 + random.random())

    async def save(self) -> None:
        offset = self.committed()
        if offset is not None and offset != self._saved:
            await self.state.set(OFFSET_KEY, str(offset))
            self._saved = offset
