"""Per-user admission through the router: a rate limit and a bounded queue per user, one
polite notice per limited minute, commands still served, other users unaffected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.daemon.daemon import Daemon
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

T0 = 1_900_000_000.0  # when the platform delivered the first message (seconds since epoch)

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


class Room:
    def __init__(self, daemon: Daemon, adapter: RecordingAdapter, llm: ScriptedLLM) -> None:
        self.daemon, self.adapter, self.llm = daemon, adapter, llm
        self._n = 0

    async def say(self, text: str, who: str = "scott", at: float = T0) -> None:
        self._n += 1
        await self.adapter.deliver(
            text, sender=f"@{who}:hs", room=f"!{who}", event_id=f"$e{self._n}", received_at=at
        )

    def told(self, who: str) -> list[str]:
        return [text for room, text in self.adapter.sent if room == f"!{who}"]


async def _room(tmp_path: Path, llm: ScriptedLLM, **daemon: object) -> Room:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    config = make_config(tmp_path, users=USERS, extra={"daemon": daemon})
    running, adapter = await start_daemon(config, tmp_path, llm=llm, platform="matrix")
    return Room(running, adapter, llm)


@pytest.fixture
async def room(tmp_path: Path) -> AsyncIterator[Room]:
    built = await _room(tmp_path, ScriptedLLM(), user_rate_per_minute=20, user_burst=10)
    yield built
    await built.daemon.stop()


async def test_a_flood_gets_its_burst_answered_and_one_notice(room: Room) -> None:
    for n in range(25):
        await room.say(f"message {n}")
    told = room.told("scott")
    assert told[:10] == [f"echo: message {n}" for n in range(10)]
    # 20 a minute is one every 3 s: the one notice says when answers come again
    assert told[10:] == [
        "You're sending messages faster than I can answer; I'll pick up again in 3 s."
    ]
    assert len(room.llm.calls) == 10  # the refused ones never reached the model


async def test_the_limit_lifts_as_the_bucket_refills(room: Room) -> None:
    for n in range(12):
        await room.say(f"m{n}")
    assert len(room.told("scott")) == 11  # 10 answers and the notice
    await room.say("a little later", at=T0 + 3.0)
    assert room.told("scott")[-1] == "echo: a little later"
    await room.say("too soon again", at=T0 + 3.5)  # refused, but the notice was just sent
    assert room.told("scott")[-1] == "echo: a little later"
    await room.say("a minute on, still too fast", at=T0 + 3.6 + 60)
    for n in range(10):
        await room.say(f"burst {n}", at=T0 + 3.6 + 60)
    assert room.told("scott")[-1].startswith("You're sending messages faster")


async def test_other_users_and_commands_are_not_held_back(room: Room) -> None:
    for n in range(15):
        await room.say(f"m{n}")
    await room.say("hello from holly", who="holly")
    assert room.told("holly") == ["echo: hello from holly"]
    await room.say("/otr on")
    assert "Off The Record" in room.told("scott")[-1]


async def test_each_user_has_a_bounded_queue(tmp_path: Path) -> None:
    llm = HeldLLM()
    room = await _room(tmp_path, llm, user_queue=3, user_rate_per_minute=1000, user_burst=100)
    try:
        waiting = [asyncio.create_task(room.say(f"q{n}")) for n in range(6)]
        holly = asyncio.create_task(room.say("holly's turn", who="holly"))
        for _ in range(200):
            await asyncio.sleep(0.005)
            if len(room.told("scott")) == 1 and llm.waiting == 2:
                break
        # three of scott's are queued (one with the model); of the three over the bound,
        # the first is told why, the others are dropped in silence
        assert room.told("scott") == [
            "You're sending messages faster than I can answer; I'll pick up again once"
            " I've answered what you sent before."
        ]
        assert llm.waiting == 2  # scott's first turn and holly's
        llm.release.set()
        await asyncio.gather(*waiting, holly)
        assert room.told("scott")[1:] == ["echo: q0", "echo: q1", "echo: q2"]
        assert room.told("holly") == ["echo: holly's turn"]
        assert room.daemon.router is not None
        assert room.daemon.router.admission.pending("scott") == 0
        await room.say("after the queue drained")
        assert room.told("scott")[-1] == "echo: after the queue drained"
    finally:
        await room.daemon.stop()


async def test_refused_messages_are_finished_not_retried_after_a_restart(room: Room) -> None:
    for n in range(11):
        await room.say(f"m{n}")
    state = room.daemon.state
    assert await state.claim_event("matrix", "$e11") == "duplicate"


async def test_a_message_answered_again_after_a_cut_off_is_not_judged_again(
    tmp_path: Path,
) -> None:
    """A backlog handed over again after a restart (or a turn cut off and delivered again)
    was admitted the first time: the rate limit does not refuse it now."""
    llm = HeldLLM()
    room = await _room(tmp_path, llm, user_rate_per_minute=1, user_burst=1)
    try:
        first = asyncio.create_task(
            room.adapter.deliver(
                "cut off", sender="@scott:hs", room="!scott", event_id="$cut", received_at=T0
            )
        )
        for _ in range(200):
            if llm.waiting:
                break
            await asyncio.sleep(0.005)
        first.cancel()  # an adapter restart cuts the turn off; its event stays unfinished
        with pytest.raises(asyncio.CancelledError):
            await first
        llm.release.set()
        await room.adapter.deliver(
            "cut off", sender="@scott:hs", room="!scott", event_id="$cut", received_at=T0
        )
        assert room.told("scott") == ["echo: cut off"]
    finally:
        await room.daemon.stop()
