"""Exactly once through cut-off turns and restarts, in-process: a daemon answering through a
recording adapter (a room that, like a Matrix homeserver, answers a repeated transaction key
with the message it already made), a scripted model, and a second daemon on the same data
folder standing in for the process after a crash."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

ANSWER = "The whole answer, every word of it, " * 3


def hanging() -> ScriptedLLM:
    """A model that streams the first words of :data:`ANSWER`, then waits for ``hold``."""
    llm = ScriptedLLM(chunk=20, hold=asyncio.Event())
    llm.queue(ANSWER)
    return llm


@dataclass
class Room:
    """What the room holds, shared by the adapters of successive processes."""

    sent: list[tuple[str, str]] = field(default_factory=list)
    edits: list[tuple[str, str, str]] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)


class StuckAdapter(RecordingAdapter):
    """A platform that never answers a send: the process dies while it waits."""

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def start_daemon(
    data: Path, llm: ScriptedLLM, room: Room, kind: type[RecordingAdapter] = RecordingAdapter
) -> tuple[Daemon, RecordingAdapter]:
    daemon = Daemon(make_config(data), backends={"scripted": llm}, http=False, jobs=False)
    daemon.outbox.base_delay = 0.05

    async def handler(incoming: Incoming) -> None:
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    adapter = kind(
        AdapterContext(handler=handler, state=daemon.state.for_adapter("console"), data_dir=data),
        supports_edit=kind is RecordingAdapter,
    )
    adapter.sent, adapter.edits, adapter.keys = room.sent, room.edits, room.keys
    adapter._ids = len(room.sent)
    daemon.attach("console", adapter)
    await daemon.start()
    return daemon, adapter


@pytest.fixture
async def data(tmp_path: Path) -> AsyncIterator[Path]:
    make_persona(tmp_path, "scott")
    yield tmp_path


def _user_texts(llm: ScriptedLLM) -> list[str]:
    return [m.text for m in llm.calls[-1].messages if m.role == "user"]


async def _wait(check: Callable[[], bool], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not check():  # noqa: ASYNC110 (the room is plain lists)
            await asyncio.sleep(0.01)


async def test_a_crash_mid_stream_is_completed_by_editing_the_streamed_message(
    data: Path,
) -> None:
    room = Room()
    slow = hanging()
    first, adapter = await start_daemon(data, slow, room)
    turn = asyncio.create_task(adapter.deliver("tell me everything", sender="scott", event_id="$1"))
    await _wait(lambda: len(room.sent) == 1)  # the first streamed chunk is in the room
    # the process dies here: nothing more of it runs; the next one gets the event again
    second_llm = ScriptedLLM()
    second_llm.queue(ANSWER)
    second, adapter2 = await start_daemon(data, second_llm, room)
    try:
        # the platform delivers it again (the new process also answers it on its own: one of
        # the two is a duplicate)
        await adapter2.deliver("tell me everything", sender="scott", event_id="$1")
        await _wait(lambda: adapter2.final_texts() == [ANSWER.strip()])
        assert len(room.sent) == 1, "the answer must not arrive as a second message"
        assert _user_texts(second_llm) == ["tell me everything"]
    finally:
        await second.stop()
        turn.cancel()
        await first.stop()


async def test_a_turn_cut_by_shutdown_is_answered_after_the_restart(data: Path) -> None:
    room = Room()
    slow = hanging()
    first, adapter = await start_daemon(data, slow, room)
    first.drain_seconds = 0.2
    turn = asyncio.create_task(adapter.deliver("slow question", sender="scott", event_id="$2"))
    await _wait(lambda: len(room.sent) == 1)
    await first.stop()  # the drain ends with the turn still running: it is cut off
    with pytest.raises(asyncio.CancelledError):
        await turn
    with sqlite3.connect(data / "personad.db") as con:
        status = con.execute("SELECT status FROM events WHERE event_id = '$2'").fetchone()
    assert status == ("processing",), "a cut-off turn must stay unfinished"
    llm = ScriptedLLM()
    second, adapter2 = await start_daemon(data, llm, room)
    try:
        await adapter2.deliver("slow question", sender="scott", event_id="$2")
        await _wait(lambda: adapter2.final_texts() == ["echo: slow question"])
        # the message is answered on its own: not repeated, not glued to anything
        assert _user_texts(llm) == ["slow question"]
        await adapter2.deliver("and another", sender="scott", event_id="$3")
        assert _user_texts(llm) == ["slow question", "and another"]
        log = next((data / "scott/persona/inara/sessions").glob("*.md")).read_text()
        assert log.count("slow question") == 2  # the question once, its echo once
        # once answered, a redelivery is a duplicate
        await adapter2.deliver("slow question", sender="scott", event_id="$2")
        assert len(room.sent) == 2
    finally:
        await second.stop()


async def test_a_cancelled_turn_is_retried_in_the_same_process(data: Path) -> None:
    room = Room()
    slow = hanging()
    daemon, adapter = await start_daemon(data, slow, room)
    try:
        turn = asyncio.create_task(adapter.deliver("hello?", sender="scott", event_id="$4"))
        await _wait(lambda: len(room.sent) == 1)
        turn.cancel()  # an adapter restart cuts the handler off
        with pytest.raises(asyncio.CancelledError):
            await turn
        assert slow.hold is not None
        slow.hold.set()
        await adapter.deliver("hello?", sender="scott", event_id="$4")  # redelivered
        # the retried turn's answer replaces the fragment the cut-off one left
        assert len(room.sent) == 1
        assert adapter.final_texts() == ["echo: hello?"]
        assert _user_texts(slow) == ["hello?"]
    finally:
        await daemon.stop()


async def test_an_answer_logged_but_never_sent_is_sent_after_the_restart(data: Path) -> None:
    room = Room()
    first, stuck = await start_daemon(data, ScriptedLLM(), room, StuckAdapter)
    turn = asyncio.create_task(stuck.deliver("what now?", sender="scott", event_id="$5"))
    log_dir = data / "scott/persona/inara/sessions"
    await _wait(lambda: any("echo: what now?" in p.read_text() for p in log_dir.glob("*.md")))
    # the process dies while the platform holds the send; the next one gets the event again
    llm = ScriptedLLM()
    second, adapter = await start_daemon(data, llm, room)
    try:
        await adapter.deliver("what now?", sender="scott", event_id="$5")
        await _wait(lambda: adapter.final_texts() == ["echo: what now?"])
        assert llm.calls == []  # the answer the log holds is delivered, not asked again
        log = next(log_dir.glob("*.md")).read_text()
        assert log.count("what now?") == 2  # the question once, its echo once
    finally:
        await second.stop()
        turn.cancel()
        await first.stop()


async def test_a_cut_off_message_is_answered_after_a_restart_without_being_delivered_again(
    data: Path,
) -> None:
    """Discord's gateway and Talk's webhooks hand each message over once: the message kept
    with its claim is answered by the next process on its own, and then let go."""
    room = Room()
    first, adapter = await start_daemon(data, hanging(), room)
    first.drain_seconds = 0.1
    turn = asyncio.create_task(adapter.deliver("once only", sender="scott", event_id="$6"))
    await _wait(lambda: len(room.sent) == 1)
    await first.stop()
    with pytest.raises(asyncio.CancelledError):
        await turn
    llm = ScriptedLLM()
    llm.queue(ANSWER)
    second, adapter2 = await start_daemon(data, llm, room)
    try:
        await _wait(lambda: adapter2.final_texts() == [ANSWER.strip()])
        assert len(room.sent) == 1  # the fragment was completed, not joined by a second
        assert _user_texts(llm) == ["once only"]
        await _wait(lambda: _kept(data, "$6") == ("done", None))
    finally:
        await second.stop()


async def test_an_off_the_record_message_is_never_kept_for_a_restart(data: Path) -> None:
    room = Room()
    first, adapter = await start_daemon(data, hanging(), room)
    first.drain_seconds = 0.1
    await adapter.deliver("/otr on", sender="scott", event_id="$7")
    turn = asyncio.create_task(adapter.deliver("private words", sender="scott", event_id="$8"))
    await _wait(lambda: len(room.sent) == 2)
    await _wait(lambda: _kept(data, "$8") == ("processing", None))
    await first.stop()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert b"private words" not in (data / "personad.db").read_bytes()


async def test_a_message_that_kills_every_process_is_let_go(data: Path) -> None:
    room = Room()
    for attempt in range(5):  # the first process and three replays, then it is let go
        daemon, adapter = await start_daemon(data, hanging(), room)
        daemon.drain_seconds = 0.1
        if attempt == 0:
            turn = asyncio.create_task(adapter.deliver("poison", sender="scott", event_id="$9"))
        await _wait(lambda: _kept(data, "$9")[0] == "processing")
        await asyncio.sleep(0.05)
        await daemon.stop()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert _kept(data, "$9") == ("processing", None)  # let go after three replays


def _kept(data: Path, event_id: str) -> tuple[str, str | None]:
    with sqlite3.connect(data / "personad.db") as con:
        row = con.execute(
            "SELECT status, incoming FROM events WHERE event_id = ?", (event_id,)
        ).fetchone()
    return (row[0], row[1]) if row else ("", None)


async def test_a_message_that_arrives_while_stopping_waits_for_the_next_process(
    data: Path,
) -> None:
    """The drain waits for the turns already running, not for a stream of new messages: those
    are kept with their claim and answered by the next process."""
    room = Room()
    slow = hanging()
    first, adapter = await start_daemon(data, slow, room)
    first.drain_seconds = 30
    turn = asyncio.create_task(adapter.deliver("slow one", sender="scott", event_id="$10"))
    await _wait(lambda: len(room.sent) == 1)
    stopping = asyncio.create_task(first.stop())
    await _wait(lambda: first.router is not None and first.router.closing)
    async with asyncio.timeout(10):  # it does not wait behind the running turn
        await adapter.deliver("arrived late", sender="scott", event_id="$11")
    assert len(slow.calls) == 1  # never reached the model in this process
    assert slow.hold is not None
    slow.hold.set()  # the running turn finishes within the drain
    await stopping
    await turn
    llm = ScriptedLLM()
    second, adapter2 = await start_daemon(data, llm, room)
    try:
        await _wait(lambda: "echo: arrived late" in adapter2.final_texts())
        assert _user_texts(llm)[-1] == "arrived late"
        assert _kept(data, "$11") == ("done", None)
    finally:
        await second.stop()
