"""A daemon up for months without a restart: what it holds per message, room or conversation
stays bounded. Thousands of messages go through the real path (the router, the outbox, the
web console over HTTP) and the structures that follow them are counted afterwards: those kept
per message are empty once the messages are answered, those kept per room or conversation
hold at most their bound, and the claims of answered messages leave ``personad.db`` with the
month's prune. Nothing here measures time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from pathlib import Path

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.delivery.state import StateStore
from bot.turn.conversation import ROOMS_KEPT
from bot.turn.rooms import Room
from bot.turn.voice import VoiceReplies
from bot.web.adapter import FEEDS_KEPT, WebAdapter
from bot.web.auth import WebStore
from bot.web.guard import COOKIE
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

MESSAGES = 2000
ROOMS = 20
#: web conversations, each with one message: several times the bounds kept
CONVERSATIONS = 300


async def _settled(daemon: Daemon) -> None:
    """Wait until no turn, and no work after a turn, is running."""
    router = daemon.router
    assert router is not None
    for _ in range(2000):
        if router.in_flight == 0 and not router._background:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still in flight: {router.in_flight}")


async def _count(daemon: Daemon, table: str) -> int:
    rows = await daemon.state.conn.execute_fetchall(f"SELECT COUNT(*) FROM {table}")
    return int(next(iter(rows))[0])


async def test_two_thousand_messages_leave_nothing_per_message_behind(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=llm)
    router, state, outbox = daemon.router, daemon.state, daemon.outbox
    assert router is not None
    try:
        for room in range(0, ROOMS, 2):  # half the rooms are Off The Record
            await adapter.deliver("/otr on", sender="scott", room=f"r{room}", event_id=f"o{room}")
        for start in range(0, MESSAGES, ROOMS):
            # every tenth round the platform is down: the answers wait in the outbox
            adapter.down = (start // ROOMS) % 10 == 9
            await asyncio.gather(
                *(
                    adapter.deliver(
                        f"message {n}", sender="scott", room=f"r{n % ROOMS}", event_id=f"e{n}"
                    )
                    for n in range(start, start + ROOMS)
                )
            )
            if adapter.down:
                adapter.down = False
                await outbox.run_due(now=time.time() + 3600)
            llm.calls.clear()  # the test's own record, not the daemon's
            adapter.sent.clear()
        await _settled(daemon)

        print(f"answered {MESSAGES} messages in {ROOMS} rooms; claims known: {len(state._known)}")
        # kept per message until it is answered: nothing left
        assert router._said_off_record == {}
        assert router._retrying == set()
        assert router._queued == set()
        assert router._handling == set()
        assert router.lines.waiting() == 0 and router.lines._lines == {}
        assert state._recording == {} and state._released == {} and state._keeping == {}
        assert outbox.parcels == [] and outbox.voices == []
        # kept per room: the rooms there are
        [session] = router.sessions.all()
        assert len(session.rooms) == ROOMS
        assert len(router.voice._rooms) <= ROOMS
        # the claims of a month: every event is known until the prune takes the old ones
        assert len(state._known) == MESSAGES + ROOMS // 2
        assert await _count(daemon, "events") == MESSAGES + ROOMS // 2
        assert await state.prune_events(older_than_days=0) == MESSAGES + ROOMS // 2
        assert state._known == set()
        assert await _count(daemon, "events") == 0
        assert await _count(daemon, "deliveries") == 0
        assert await _count(daemon, "outbox") == 0
    finally:
        await daemon.stop()


async def test_web_conversations_beyond_their_bounds_are_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each web conversation is a room of its own: its feed, its persona and the session's
    live conversation are kept for the ones used last only."""
    monkeypatch.setattr("bot.web.chat._ROOMS_TOLD", 100)
    make_persona(tmp_path, "scott")
    # one person writing to many conversations fast: the turn rate is not what is tested
    unlimited = {"user_rate_per_minute": 100_000, "user_burst": 100_000}
    config = make_config(
        tmp_path, extra={"http": {"enabled": True, "port": 0}, "daemon": unlimited}
    )
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await daemon.start()
    router = daemon.router
    assert router is not None
    web = daemon.adapters["web"]
    assert isinstance(web, WebAdapter)
    cookie, signed_in = await WebStore(daemon.state).open_session("scott")
    base = f"http://127.0.0.1:{daemon.http_port}/u/scott/inara/chat"
    headers = {"X-CSRF-Token": signed_in.csrf, "Cookie": f"{COOKIE}={cookie}"}
    try:
        async with aiohttp.ClientSession(headers=headers) as http:
            for n in range(CONVERSATIONS):
                async with http.post(f"{base}/c{n}", data={"text": f"hello {n}"}) as answer:
                    assert answer.status == 204
                await _settled(daemon)
            # the conversation used last still shows its messages
            async with http.get(f"{base}/c{CONVERSATIONS - 1}") as page:
                assert f"hello {CONVERSATIONS - 1}" in await page.text()

        [session] = router.sessions.all()
        print(
            f"{CONVERSATIONS} web conversations: feeds {len(web.feeds)}, live conversations"
            f" {len(session.rooms)}, personas {len(router.room_persona)}"
        )
        assert len(web.feeds) == FEEDS_KEPT
        assert len(session.rooms) == ROOMS_KEPT
        assert len(router.room_persona) == 100
        # the ones kept are the newest
        newest = f"web:scott:inara:c{CONVERSATIONS - 1}"
        assert newest in session.rooms and newest in router.room_persona
        assert "web:scott:inara:c0" not in session.rooms
        assert (
            f"scott:inara:c{CONVERSATIONS - 1}" in web.feeds and "scott:inara:c0" not in web.feeds
        )
    finally:
        await daemon.stop()


async def test_a_feed_a_page_reads_is_never_let_go(tmp_path: Path) -> None:
    async def handler(_incoming: Incoming) -> None:
        return None

    state = StateStore(tmp_path / "personad.db")
    web = WebAdapter(AdapterContext(handler, state.for_adapter("web"), tmp_path))
    await web.start()
    reading = web.listen("scott:inara:open")
    assert isinstance(reading, AsyncGenerator)
    first = asyncio.ensure_future(anext(reading))
    await asyncio.sleep(0)  # the page is reading the feed
    for n in range(FEEDS_KEPT * 3):
        web.feed(f"scott:inara:c{n}").say(f"m{n}", "user", "hi")
    assert "scott:inara:open" in web.feeds and len(web.feeds) == FEEDS_KEPT
    web.feed("scott:inara:open").say("m", "persona", "still here")
    assert (await first)["text"] == "still here"
    await reading.aclose()


async def test_the_voice_choices_held_are_the_newest_rooms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.turn.voice.ROOMS_HELD", 100)
    async with StateStore(tmp_path / "personad.db") as state:
        voice = VoiceReplies(state, default=False)
        await voice.switch(Room("web", "c0"), True)
        for n in range(CONVERSATIONS):
            assert await voice.wanted(Room("web", f"c{n}")) == (n == 0)
        assert len(voice._rooms) == 100 and "web:c0" not in voice._rooms
        assert await voice.wanted(Room("web", "c0"))  # read again from personad.db
