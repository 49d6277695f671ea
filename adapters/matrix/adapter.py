"""The Matrix adapter: matrix-nio's ``AsyncClient`` against any homeserver.

One task long-polls ``/sync``. After each successful sync it acts on invites and new messages
(:mod:`adapters.matrix.rooms`) and touches :attr:`health`. The sync token saved in
``context.state`` moves past a batch only once the core has finished every message in it (and
every batch before it), so a restart, even after a crash, resumes without losing a message; the
core drops the ones it had already answered. A failed sync (homeserver restarting, network gone)
is retried with jittered exponential backoff. Each sync is bounded by its long-poll time plus
``sync_grace_seconds``: a homeserver that accepts the connection but never answers (frozen,
overloaded) fails that sync, and health says "stalled" instead of the last "synced"; a sync
that fails outright (the homeserver down, the connection refused) makes health say
"reconnecting" at once, until a sync succeeds again. The grace
doubles with each stall in a row, so a sync the homeserver is merely slow to build gets through.

Sending is :mod:`adapters.matrix.send`: the core's idempotency key is the Matrix transaction
id, so no retry, even after a restart, posts a message twice. Attachments are fetched from the
media repository (:mod:`adapters.matrix.media`) only when the core asks, and spoken answers go
out as voice messages.

On the very first start the initial sync only records where "now" is: messages sent before the
bot existed are not answered. Answers go out as markdown rendered to HTML
(:mod:`adapters.matrix.render`) and stream in by ``m.replace`` edits.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import structlog
from nio import AsyncClient, AsyncClientConfig, SyncError, SyncResponse
from nio.crypto import ENCRYPTION_ENABLED

from adapters.base import Adapter, AdapterContext, Attachment, Speech
from adapters.matrix.events import BotIdentity
from adapters.matrix.login import Credentials, sign_in
from adapters.matrix.media import download
from adapters.matrix.rooms import RoomEvents
from adapters.matrix.send import NETWORK_ERRORS, Outgoing
from adapters.matrix.settings import Settings
from bot.daemon.connection_reason import connection_reason
from bot.daemon.errors import AdapterError, ConfigError
from bot.daemon.logs import register_secret
from bot.media.fetch import unreachable

__all__ = ["MatrixAdapter", "Settings", "SyncStalled", "create"]

log = structlog.get_logger(__name__)

_FIRST_SYNC_FILTER = {"room": {"timeline": {"limit": 1}}, "presence": {"not_types": ["*"]}}


def _backoff(attempt: int, cap: float) -> float:
    ceiling = min(cap, 0.5 * 2 ** min(attempt, 16))
    return random.uniform(ceiling / 2, ceiling)


#: how long a cancelled answer may take to end when the adapter stops
_CANCEL_WAIT_SECONDS = 5.0


class SyncStalled(AdapterError):
    """A sync got no answer within its long-poll time plus the grace: the homeserver is
    reachable but not answering."""

    def __init__(self, limit: float) -> None:
        super().__init__(f"no answer to /sync within {limit:.0f}s")


class MatrixAdapter(Adapter):
    """Talks to one Matrix account; see the module docstring for the sync cycle."""

    platform = "matrix"
    idempotent = True
    supports_voice = True

    def __init__(self, settings: Settings, context: AdapterContext) -> None:
        super().__init__(context)
        self.settings = settings
        self.supports_edit = settings.stream_edits
        self.max_message_chars = settings.max_message_chars
        self.client: AsyncClient | None = None
        self.rooms: RoomEvents | None = None
        self._task: asyncio.Task[None] | None = None
        self._synced = asyncio.Event()
        self.outgoing = Outgoing(lambda: self.client, lambda: self.rooms, self.max_message_chars)
        self._credentials: Credentials | None = None
        self._since: str | None = None
        # sync tokens waiting for their batch's messages to be finished, oldest first
        self._batches: deque[tuple[str, list[asyncio.Task[None]]]] = deque()
        self._token_lock = asyncio.Lock()
        self._savers: set[asyncio.Task[None]] = set()
        self._started_at = time.monotonic()
        self._stalls = 0  # syncs in a row that got no answer in time

    # lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is not None and not self._task.done():
            return
        if self.settings.e2e and not ENCRYPTION_ENABLED:
            raise ConfigError("adapters.matrix.e2e: install matrix-nio[e2e] for encryption")
        self._credentials = credentials = Credentials(
            self.settings.user_id,
            password=self.settings.secret("password"),
            access_token=self.settings.secret("access_token"),
            device_name=self.settings.device_name,
        )
        register_secret(credentials.password)  # masked in every log line, whatever it is called
        register_secret(credentials.access_token)
        store = Path(self.context.data_dir) / "matrix" / "store"
        store.mkdir(parents=True, exist_ok=True)
        config = AsyncClientConfig(
            encryption_enabled=self.settings.e2e,
            store_sync_tokens=False,
            max_timeouts=2,
            max_limit_exceeded=5,
            backoff_factor=0.5,
            max_timeout_retry_wait_time=5,
            request_timeout=30,
        )
        client = AsyncClient(
            self.settings.homeserver, self.settings.user_id, store_path=str(store), config=config
        )
        self.client = client
        try:
            await sign_in(client, credentials, self.context.state)
            names = {client.user_id[1:].split(":", 1)[0]}
            with contextlib.suppress(*NETWORK_ERRORS):
                profile = await client.get_displayname(client.user_id)
                names.add(getattr(profile, "displayname", None) or "")
            names.discard("")
            bot = BotIdentity(client.user_id, names)
            self.rooms = RoomEvents(
                client, bot, self.context.handler, self.settings.allowed_inviters
            )
            self._since = await self.context.state.get(self._token_key())
            if client.olm is not None and client.should_upload_keys:
                await client.keys_upload()
        except BaseException:
            await self._close()
            raise
        self._synced = asyncio.Event()
        self._started_at = time.monotonic()
        self.health.detail = "connecting"
        self._task = asyncio.create_task(self._sync_loop(), name="matrix-sync")
        self.health.running = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._synced.wait(), self.settings.first_sync_wait_seconds)
        log.info(
            "matrix.started",
            user=client.user_id,
            device=client.device_id,
            synced=self._synced.is_set(),
        )

    async def stop(self) -> None:
        self.health.running = False
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.outgoing.stop_typing()
        await self._drain()
        await self._close()

    async def _drain(self) -> None:
        """Let messages being answered finish (for a while), then save how far we got."""
        running = {task for _, tasks in self._batches for task in tasks if not task.done()}
        if running:
            _, late = await asyncio.wait(running, timeout=self.settings.drain_seconds)
            for task in late:
                task.cancel()
            if late:
                # bounded too: a task that holds on to its cancellation must not keep the
                # adapter (and the daemon's stop) waiting for ever
                _, stuck = await asyncio.wait(late, timeout=_CANCEL_WAIT_SECONDS)
                log.warning("matrix.drain_cancelled", unfinished=len(late), stuck=len(stuck))
        for saver in list(self._savers):
            with contextlib.suppress(Exception):
                await saver
        with contextlib.suppress(Exception):
            await self._save_token()
        self._batches.clear()

    async def _close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            await client.close()

    # syncing -------------------------------------------------------------------------------

    def _token_key(self) -> str:
        assert self.client is not None
        return f"next_batch:{self.client.user_id}"

    async def _sync_loop(self) -> None:
        failures = 0
        while True:
            try:
                await self._sync_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the loop outlives every homeserver and network failure
                failures += 1
                if isinstance(exc, SyncStalled):
                    self._stalls += 1
                delay = _backoff(failures, self.settings.backoff_max_seconds)
                reason = self._failure_reason(exc)
                self.health.disconnected(reason)
                self.health.detail = f"{reason}; retry in {delay:.1f}s"
                log.warning(
                    "matrix.sync_failed",
                    error=reason,
                    attempt=failures,
                    retry_in=round(delay, 2),
                )
                await asyncio.sleep(delay)
                continue
            self._stalls = 0
            if failures:
                self.health.reconnects += 1
                log.info("matrix.sync_recovered", failures=failures)
                failures = 0

    async def _sync_once(self) -> None:
        client, rooms = self.client, self.rooms
        assert client is not None and rooms is not None
        since = self._since
        first = not since
        sync_filter: dict[str, Any] = (
            _FIRST_SYNC_FILTER
            if first
            else {
                "room": {
                    "timeline": {"limit": 50},
                    "state": {"lazy_load_members": not self.settings.e2e},
                },
                "presence": {"not_types": ["*"]},
            }
        )
        # the first sync after a start returns at once, so start() need not wait a long poll
        poll_ms = self.settings.sync_timeout_ms if self._synced.is_set() else 0
        # each stall in a row doubles the grace (up to 16x): a homeserver that is slow to build
        # a large sync, not frozen, gets it through
        limit = poll_ms / 1000 + self.settings.sync_grace_seconds * 2 ** min(self._stalls, 4)
        try:
            answer = await asyncio.wait_for(
                client.sync(timeout=poll_ms, since=since or None, sync_filter=sync_filter), limit
            )
        except TimeoutError as exc:
            raise SyncStalled(limit) from exc
        if isinstance(answer, SyncError):
            if answer.status_code in ("M_UNKNOWN_TOKEN", "M_MISSING_TOKEN") and self._credentials:
                # the login was revoked: forget it and sign in again before the next try
                await self.context.state.set("access_token", "")
                await sign_in(client, self._credentials, self.context.state)
            raise AdapterError(f"sync refused: {answer.status_code} {answer.message}")
        assert isinstance(answer, SyncResponse)
        await self._encryption_chores()
        tasks = await rooms.handle(answer, deliver=not first, since=since)
        self._since = answer.next_batch
        self._batches.append((answer.next_batch, tasks))
        for task in tasks:
            task.add_done_callback(self._schedule_save)
        await self._save_token()
        self.health.touch("synced")
        self._synced.set()
        if tasks or first:
            log.info(
                "matrix.synced", delivered=len(tasks), first=first, rooms=len(answer.rooms.join)
            )

    def _failure_reason(self, exc: Exception) -> str:
        if isinstance(exc, SyncStalled):
            silent = min(self.health.age(), time.monotonic() - self._started_at)
            return f"stalled: the homeserver has not answered /sync for {silent:.0f}s"
        return f"sync failed: {connection_reason(exc, self.settings.homeserver)}"

    def _schedule_save(self, _: asyncio.Task[None]) -> None:
        saver = asyncio.get_running_loop().create_task(self._save_token())
        self._savers.add(saver)
        saver.add_done_callback(self._savers.discard)

    async def _save_token(self) -> None:
        """Save the newest token whose batch, and every batch before it, is finished.

        A message cancelled at stop is not finished: its batch is synced again next start.
        """
        async with self._token_lock:
            newest = None
            while self._batches and all(
                task.done() and not task.cancelled() for task in self._batches[0][1]
            ):
                newest = self._batches.popleft()[0]
            if newest is not None and self.client is not None:
                await self.context.state.set(self._token_key(), newest)

    async def _encryption_chores(self) -> None:
        client = self.client
        if client is None or client.olm is None:
            return
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await client.keys_query()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()

    # sending -------------------------------------------------------------------------------

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        return await self.outgoing.send(room, text, reply_to=reply_to, key=key)

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        await self.outgoing.edit(room, message_id, text, key=key)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        return await self.outgoing.post_audio(room, speech, key=key)

    async def typing(self, room: str, on: bool) -> None:
        await self.outgoing.typing(room, on)

    # media ---------------------------------------------------------------------------------

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        client = self.client
        if client is None or not client.logged_in:
            raise unreachable("the Matrix adapter is not running")
        return await download(client, attachment, limit=limit)


def create(settings: Settings, context: AdapterContext) -> MatrixAdapter:
    return MatrixAdapter(settings, context)
