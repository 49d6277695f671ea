"""A burst read as a person reads it, through the router: messages that arrive while a turn
runs (or waits for the rate limit) are answered together by the next turn, in order, each
event finished once; only a flood beyond the cap is cut, with one reply saying how many were
skipped; commands keep their place and are rate limited on their own; users never share a
limit."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.daemon.daemon import Daemon
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

USERS = {
    "scott": {"identities": ["matrix:@scott:hs"], "timezone": "UTC"},
    "holly": {"identities": ["matrix:@holly:hs"], "timezone": "UTC"},
}


class HeldLLM(ScriptedLLM):
    """Holds every call until :attr:`release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.waiting = 0

    async def complete(self, **kw):  # type: ignore[no-untyped-def, override]
        self.waiting += 1
        await self.release.wait()
        return await super().complete(**kw)


class ReplyingAdapter(RecordingAdapter):
    """Records which message each answer replies to."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.replies: list[tuple[str | None, str]] = []

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        sent = await super().send(room, text, reply_to=reply_to, key=key)
        self.replies.append((reply_to, text))
        return sent


class Room:
    def __init__(self, daemon: Daemon, adapter: ReplyingAdapter, llm: ScriptedLLM) -> None:
        self.daemon, self.adapter, self.llm = daemon, adapter, llm
        self._n = 0

    def event(self) -> str:
        self._n += 1
        return f"$e{self._n}"

    async def say(self, text: str, who: str = "scott", event_id: str | None = None) -> None:
        await self.adapter.deliver(
            text, sender=f"@{who}:hs", room=f"!{who}", event_id=event_id or self.event()
        )

    def flush(self, texts: list[str], who: str = "scott") -> list[asyncio.Task[None]]:
        """Hand every message over at once, as a client back online does (an adapter's task
        for each, made in order)."""
        return [asyncio.create_task(self.say(text, who)) for text in texts]

    def told(self, who: str) -> list[str]:
        return [text for room, text in self.adapter.sent if room == f"!{who}"]

    def asked(self) -> list[str]:
        """The last user message of each request the model got."""
        return [call.messages[-1].text for call in self.llm.calls]

    def statuses(self) -> dict[str, str]:
        with sqlite3.connect(self.daemon.config.data_dir / "personad.db") as con:
            return dict(con.execute("SELECT event_id, status FROM events"))


async def _room(tmp_path: Path, llm: ScriptedLLM, **daemon: object) -> Room:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    config = make_config(tmp_path, users=USERS, extra={"daemon": daemon})
    running, adapter = await start_daemon(
        config, tmp_path, llm=llm, platform="matrix", adapter_class=ReplyingAdapter
    )
    assert isinstance(adapter, ReplyingAdapter)
    return Room(running, adapter, llm)


async def until(check: Any, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.005)


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[Room]:
    built = await _room(tmp_path, HeldLLM())
    yield built
    await built.daemon.stop()


async def test_thirty_messages_flushed_at_once_all_reach_the_model(tmp_path: Path) -> None:
    """With the default limits: every message is read, in order, in one or two turns; each
    event is finished once and no answer is doubled."""
    room = await _room(tmp_path, ScriptedLLM())
    try:
        texts = [f"line {n:02}" for n in range(30)]
        await asyncio.gather(*room.flush(texts))
        asked = "\n\n".join(room.asked())
        assert asked == "\n\n".join(texts)  # every one, in order, none twice
        assert len(room.llm.calls) <= 3
        assert len(room.told("scott")) == len(room.llm.calls)
        statuses = room.statuses()
        assert sorted(statuses) == sorted(f"$e{n}" for n in range(1, 31))
        assert set(statuses.values()) == {"done"}
        # handed over again (a redelivery after a restart), none is answered twice
        before = len(room.adapter.sent)
        await asyncio.gather(*(room.say("again", event_id=f"$e{n}") for n in range(1, 31)))
        assert len(room.adapter.sent) == before
    finally:
        await room.daemon.stop()


async def test_messages_sent_while_a_turn_runs_are_answered_together(held: Room) -> None:
    llm = held.llm
    assert isinstance(llm, HeldLLM)
    first = asyncio.create_task(held.say("are you free tonight?"))
    await until(lambda: llm.waiting == 1)
    rest = held.flush(["actually, tomorrow", "after 8", "bring the map"])
    await asyncio.sleep(0.05)
    assert llm.waiting == 1  # they wait for the turn that runs
    llm.release.set()
    await asyncio.gather(first, *rest)
    assert held.asked() == [
        "are you free tonight?",
        "actually, tomorrow\n\nafter 8\n\nbring the map",
    ]
    # one answer each turn, the second a reply to the last message it answers
    assert held.adapter.replies == [
        ("$e1", "echo: are you free tonight?"),
        ("$e4", "echo: actually, tomorrow\n\nafter 8\n\nbring the map"),
    ]
    assert set(held.statuses().values()) == {"done"}


async def test_a_flood_beyond_the_cap_is_cut_with_one_reply(tmp_path: Path) -> None:
    llm = HeldLLM()
    room = await _room(tmp_path, llm, user_queue=10)
    try:
        first = asyncio.create_task(room.say("m00"))
        await until(lambda: llm.waiting == 1)
        flood = room.flush([f"m{n:02}" for n in range(1, 26)])
        await asyncio.sleep(0.05)
        llm.release.set()
        await asyncio.gather(first, *flood)
        told = room.told("scott")
        assert told[0] == "echo: m00"
        assert told[1] == (
            "15 of your messages came in faster than anyone types, so I skipped them (the"
            " oldest) and answered the 10 newest."
        )
        # the ten newest are answered together
        assert room.asked()[1:] == ["\n\n".join(f"m{n:02}" for n in range(16, 26))]
        assert len(told) == 3
        # the skipped ones are finished: not answered after a restart either
        assert set(room.statuses().values()) == {"done"}
        assert await room.daemon.state.claim_event("matrix", "$e2") == "duplicate"
    finally:
        await room.daemon.stop()


async def test_the_rate_limit_slows_turns_and_drops_nothing(tmp_path: Path) -> None:
    """An empty bucket makes the next turn wait for its token; what comes meanwhile joins it."""
    room = await _room(tmp_path, ScriptedLLM(), user_rate_per_minute=120, user_burst=1)
    try:
        await room.say("first")
        started = time.monotonic()
        await asyncio.gather(*room.flush(["second", "third", "fourth"]))
        assert time.monotonic() - started >= 0.3  # a token every half second
        assert "\n\n".join(room.asked()) == "first\n\nsecond\n\nthird\n\nfourth"
        assert len(room.llm.calls) <= 3
    finally:
        await room.daemon.stop()


async def test_a_command_keeps_its_place_in_a_burst(held: Room) -> None:
    """The messages after ``/otr on`` are Off The Record; the one before it is not, and its
    turn is done before the command runs."""
    llm = held.llm
    assert isinstance(llm, HeldLLM)
    first = asyncio.create_task(held.say("on the record 1e4d"))
    await until(lambda: llm.waiting == 1)
    rest = held.flush(["/otr on", "off the record 9b2a"])
    await asyncio.sleep(0.05)
    assert not held.told("scott")  # the command waits for the turn before it
    llm.release.set()
    await asyncio.gather(first, *rest)
    told = held.told("scott")
    assert told[0] == "echo: on the record 1e4d"
    assert "Off The Record" in told[1]
    assert told[2] == "echo: off the record 9b2a"
    logs = list((held.daemon.config.data_dir / "scott").glob("*/*/sessions/*.md"))
    text = "".join(path.read_text() for path in logs)
    assert "on the record 1e4d" in text and "9b2a" not in text


async def test_other_users_and_commands_are_not_held_back(held: Room) -> None:
    llm = held.llm
    assert isinstance(llm, HeldLLM)
    scott = asyncio.create_task(held.say("a long question"))
    await until(lambda: llm.waiting == 1)
    holly = asyncio.create_task(held.say("hello from holly", who="holly"))
    await until(lambda: llm.waiting == 2)  # holly's turn does not wait for scott's
    llm.release.set()
    await asyncio.gather(scott, holly)
    assert held.told("holly") == ["echo: hello from holly"]


async def test_commands_have_a_rate_limit_of_their_own(tmp_path: Path) -> None:
    room = await _room(tmp_path, ScriptedLLM(), user_rate_per_minute=20, user_burst=3)
    try:
        for _ in range(6):
            await room.say("/help")
        told = room.told("scott")
        assert len(told) == 4  # three answers and one notice
        assert told[3].startswith("You're sending commands faster than I can answer")
        await room.say("a message still gets its turn")
        assert room.told("scott")[-1] == "echo: a message still gets its turn"
    finally:
        await room.daemon.stop()


async def test_a_message_answered_again_after_a_cut_off_is_not_held_again(
    tmp_path: Path,
) -> None:
    """A backlog handed over again after a restart (or a turn cut off and delivered again)
    had its turn's token the first time: the rate limit does not hold it now."""
    llm = HeldLLM()
    room = await _room(tmp_path, llm, user_rate_per_minute=1, user_burst=1)
    try:
        first = asyncio.create_task(room.say("cut off", event_id="$cut"))
        await until(lambda: llm.waiting == 1)
        first.cancel()  # an adapter restart cuts the turn off; its event stays unfinished
        with pytest.raises(asyncio.CancelledError):
            await first
        llm.release.set()
        await asyncio.wait_for(room.say("cut off", event_id="$cut"), 5)
        assert room.told("scott") == ["echo: cut off"]
    finally:
        await room.daemon.stop()
