"""Matrix sends and edits under an idempotency key, and a frozen homeserver, on a real Synapse.

The key becomes the Matrix transaction id: the homeserver remembers it for the device, so the
same key sent again, even by a new adapter after a restart, returns the event already in the
room instead of posting a second one. A Synapse stopped with SIGSTOP accepts connections and
never answers; the adapter must report that as stalled, not as synced, and recover on SIGCONT.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from adapters.base import AdapterContext, MessageGone
from adapters.matrix.adapter import MatrixAdapter, Settings, create
from adapters.matrix.send import transaction_id
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.synapse import Collector, Human, MatrixUser, SynapseServer, human, synapse

__all__ = ["frozen", "human", "synapse"]  # fixtures for pytest; ``frozen`` for other tests


@contextmanager
def frozen(server: SynapseServer) -> Iterator[None]:
    """Synapse stopped with SIGSTOP for the block: its socket accepts, nothing answers."""
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.process.pid, signal.SIGCONT)


class SlowSync:
    """A loopback proxy in front of Synapse that holds each answer to an incremental /sync
    for ``delay`` seconds: a homeserver slow to build its syncs, not a frozen one."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.delay = 0.0
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def __aenter__(self) -> SlowSync:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.Response:
        wanted = ("Authorization", "Content-Type")
        headers = {k: v for k, v in request.headers.items() if k in wanted}
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                request.method,
                self.upstream + request.path_qs,
                data=await request.read(),
                headers=headers,
            ) as answer,
        ):
            body, status = await answer.read(), answer.status
        if request.path.endswith("/sync") and "since" in request.query:
            await asyncio.sleep(self.delay)
        return web.Response(body=body, status=status, content_type="application/json")


async def eventually(check: Callable[[], bool], within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        await asyncio.sleep(0.1)


class Bot:
    """A bot account with its state; ``adapter()`` builds a fresh adapter on it (a restart)."""

    def __init__(self, server: SynapseServer, account: MatrixUser, human: Human, tmp: Path):
        self.server = server
        self.account = account
        self.human = human
        self.tmp = tmp
        self.collector = Collector()
        self.store = StateStore(tmp / "personad.db")

    def adapter(self, **overrides: object) -> MatrixAdapter:
        settings = Settings.model_validate(
            {
                "enabled": True,
                "homeserver": self.server.url,
                "user_id": self.account.user_id,
                "password": self.account.password,
                "allowed_inviters": [self.human.user_id],
                "sync_timeout_ms": 1000,
                "sync_grace_seconds": 2.0,
                "backoff_max_seconds": 1.0,
                "stall_seconds": 6.0,
                **overrides,
            }
        )
        state = AdapterState(self.store, "matrix")
        return create(settings, AdapterContext(self.collector, state, self.tmp / "data"))


@pytest.fixture
async def bot(synapse: SynapseServer, human: Human, tmp_path: Path) -> AsyncIterator[Bot]:
    the_bot = Bot(synapse, synapse.register(), human, tmp_path)
    async with the_bot.store:
        yield the_bot


async def open_dm(human: Human, bot_id: str) -> str:
    room = await human.create_room(bot_id, direct=True)
    await human.wait_membership(room, bot_id, "join")
    return room


async def bot_events(human: Human, room: str, bot_id: str) -> list[dict[str, Any]]:
    return [
        e
        for e in await human.messages(room)
        if e["sender"] == bot_id and e["type"] == "m.room.message"
    ]


def test_transaction_ids_are_stable_safe_and_distinct_per_part() -> None:
    first = transaction_id("!room:x/$event:1 answer")
    assert first == transaction_id("!room:x/$event:1 answer")
    assert first is not None and first.isalnum() and len(first) <= 64
    assert transaction_id("!room:x/$event:1 answer", 1) != first
    assert transaction_id("another", 0) != first
    assert transaction_id(None) is None


async def test_same_key_twice_gives_one_message_even_after_a_restart(bot: Bot) -> None:
    adapter = bot.adapter()
    async with adapter:
        room = await open_dm(bot.human, bot.account.user_id)
        first = await adapter.send(room, "the answer", key="event-1")
        again = await adapter.send(room, "the answer", key="event-1")
        other = await adapter.send(room, "another answer", key="event-2")
    async with bot.adapter() as restarted:  # a new process, signed in on the same device
        after_restart = await restarted.send(room, "the answer", key="event-1")
    assert first == again == after_restart != other
    events = await bot_events(bot.human, room, bot.account.user_id)
    assert [e["content"]["body"] for e in events] == ["the answer", "another answer"]


async def test_multi_part_send_retried_sends_only_what_is_missing(bot: Bot) -> None:
    async with bot.adapter(max_message_chars=500) as adapter:
        room = await open_dm(bot.human, bot.account.user_id)
        text = "\n\n".join(f"Paragraph {n}: " + "word " * 60 for n in range(4))
        last = await adapter.send(room, text, key="long-answer")
        parts = [e["event_id"] for e in await bot_events(bot.human, room, bot.account.user_id)]
        assert len(parts) >= 2 and parts[-1] == last
        assert await adapter.send(room, text, key="long-answer") == last
        again = [e["event_id"] for e in await bot_events(bot.human, room, bot.account.user_id)]
        assert again == parts


async def test_same_edit_key_twice_gives_one_edit(bot: Bot) -> None:
    async with bot.adapter() as adapter:
        room = await open_dm(bot.human, bot.account.user_id)
        message = await adapter.send(room, "Thinking", key="streamed")
        await adapter.edit(room, message, "Thinking about it", key="streamed-final")
        await adapter.edit(room, message, "Thinking about it", key="streamed-final")
        await adapter.edit(room, message, "Thought it through", key="streamed-final-2")
    events = await bot_events(bot.human, room, bot.account.user_id)
    edits = [e for e in events if e["event_id"] != message]
    assert [e["content"]["m.new_content"]["body"] for e in edits] == [
        "Thinking about it",
        "Thought it through",
    ]


async def test_edit_of_a_message_the_room_does_not_have_is_gone(bot: Bot) -> None:
    async with bot.adapter() as adapter:
        room = await open_dm(bot.human, bot.account.user_id)
        other = await open_dm(bot.human, bot.account.user_id)
        elsewhere = await adapter.send(other, "in another room", key="elsewhere")
        for missing in ("$no-such-event:localhost", elsewhere):
            with pytest.raises(MessageGone):
                await adapter.edit(room, missing, "the whole answer", key=f"edit {missing}")
        assert await bot_events(bot.human, room, bot.account.user_id) == []


async def test_slow_homeserver_still_gets_its_syncs_through(bot: Bot) -> None:
    async with SlowSync(bot.server.url) as proxy:
        adapter = bot.adapter(homeserver=proxy.url, sync_timeout_ms=0, sync_grace_seconds=1.0)
        async with adapter:
            room = await open_dm(bot.human, bot.account.user_id)
            proxy.delay = 1.5  # longer than the grace: the first try stalls, a later one waits
            marker = await bot.human.say(room, "are you keeping up?")
            found = await bot.collector.find(lambda e: e.event_id == marker, within=30)
            assert found.text == "are you keeping up?"


async def test_frozen_homeserver_shows_as_stalled_and_recovers(bot: Bot) -> None:
    async with bot.adapter() as adapter:
        room = await open_dm(bot.human, bot.account.user_id)
        await eventually(lambda: adapter.health.detail == "synced")
        with frozen(bot.server):
            # a long poll of 1 s plus 2 s of grace: then the sync counts as stalled
            await eventually(lambda: adapter.health.detail.startswith("stalled"))
            stalled_at = adapter.health.age()
            await asyncio.sleep(1.0)
            assert adapter.health.detail.startswith("stalled")
            assert adapter.health.age() > stalled_at  # no sync has succeeded since
        await eventually(lambda: adapter.health.detail == "synced")
        assert adapter.health.age() < 10
        marker = await bot.human.say(room, "back again")
        found = await bot.collector.find(lambda e: e.event_id == marker, within=30)
        assert found.text == "back again"
