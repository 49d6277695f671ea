"""The Matrix adapter surviving a homeserver restart and a stop in the middle of an answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from adapters.base import AdapterContext, Incoming
from adapters.matrix.adapter import Settings, create
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.synapse import Collector, Human, SynapseServer, human, synapse

__all__ = ["human", "synapse"]  # the fixtures, imported for pytest


def settings(server: SynapseServer, bot_id: str, password: str, human: Human) -> Settings:
    return Settings(
        enabled=True,
        homeserver=server.url,
        user_id=bot_id,
        password=password,
        allowed_inviters=[human.user_id],
        sync_timeout_ms=3000,
        backoff_max_seconds=1.0,
        drain_seconds=0.5,
    )


async def test_synapse_restart_mid_conversation(
    synapse: SynapseServer, human: Human, tmp_path: Path
) -> None:
    bot = synapse.register()
    async with StateStore(tmp_path / "personad.db") as store:
        collector = Collector()
        context = AdapterContext(collector, AdapterState(store, "matrix"), tmp_path / "data")
        adapter = create(settings(synapse, bot.user_id, bot.password, human), context)
        async with adapter:
            room = await human.create_room(bot.user_id, direct=True)
            await human.wait_membership(room, bot.user_id, "join")
            first = await human.say(room, "first, before the homeserver restarts")
            await collector.find(lambda e: e.event_id == first)

            await asyncio.to_thread(synapse.stop)
            await asyncio.sleep(1.5)  # the adapter's syncs fail meanwhile
            assert "sync failed" in adapter.health.detail
            await asyncio.to_thread(synapse.start)

            second = await human.say(room, "second, after the restart")
            found = await collector.find(lambda e: e.event_id == second, within=40)
            assert found.text == "second, after the restart"
            answer = await adapter.send(room, "still here", reply_to=second)
            assert (await human.event(room, answer))["content"]["body"] == "still here"
            assert adapter.health.reconnects >= 1
            assert [e.event_id for e in collector.events].count(first) == 1


async def test_message_unfinished_at_stop_is_delivered_again(
    synapse: SynapseServer, human: Human, tmp_path: Path
) -> None:
    bot = synapse.register()
    answered: list[str] = []
    hold = asyncio.Event()

    async def slow_handler(incoming: Incoming) -> None:
        if incoming.text == "slow" and not hold.is_set():
            await asyncio.sleep(3600)  # an answer still being written when the bot stops
        answered.append(incoming.event_id)

    async with StateStore(tmp_path / "personad.db") as store:
        context = AdapterContext(slow_handler, AdapterState(store, "matrix"), tmp_path / "data")
        config = settings(synapse, bot.user_id, bot.password, human)
        adapter = create(config, context)
        await adapter.start()
        room = await human.create_room(bot.user_id, direct=True)
        await human.wait_membership(room, bot.user_id, "join")
        quick = await human.say(room, "quick")
        for _ in range(200):
            if quick in answered:
                break
            await asyncio.sleep(0.05)
        slow = await human.say(room, "slow")
        await asyncio.sleep(1.0)  # delivered, and stuck in the handler
        await adapter.stop()
        assert slow not in answered

        hold.set()
        again = create(config, context)
        async with again:
            for _ in range(200):
                if slow in answered:
                    break
                await asyncio.sleep(0.05)
        assert answered.count(slow) == 1
        assert answered.count(quick) == 1


async def test_messages_beyond_one_sync_while_down_are_all_delivered(
    synapse: SynapseServer, human: Human, tmp_path: Path
) -> None:
    """More messages arrive while the bot is down than one sync's timeline holds: the
    homeserver marks the timeline limited, and the gap is read back, every message once."""
    bot = synapse.register()
    async with StateStore(tmp_path / "personad.db") as store:
        collector = Collector()
        context = AdapterContext(collector, AdapterState(store, "matrix"), tmp_path / "data")
        config = settings(synapse, bot.user_id, bot.password, human)
        async with create(config, context):
            room = await human.create_room(bot.user_id, direct=True)
            await human.wait_membership(room, bot.user_id, "join")
            first = await human.say(room, "before the bot goes down")
            await collector.find(lambda e: e.event_id == first)
        sent = [await human.say(room, f"while down {n}") for n in range(80)]
        async with create(config, context):
            await collector.find(lambda e: e.event_id == sent[-1], within=60)
        delivered = [e.event_id for e in collector.events if e.room == room]
        assert delivered == [first, *sent]
