"""The router and sessions end to end in-process: a recording adapter and a scripted model."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.base import AdapterContext
from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from bot.setup.config import Config
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona


class World:
    def __init__(self, daemon: Daemon, adapter: RecordingAdapter, llm: ScriptedLLM, data: Path):
        self.daemon = daemon
        self.adapter = adapter
        self.llm = llm
        self.data = data
        self._n = 0

    async def say(self, text: str, sender: str = "scott", **kw: object) -> str:
        self._n += 1
        before = len(self.adapter.sent)
        await self.adapter.deliver(text, sender=sender, event_id=f"e{self._n}", **kw)  # type: ignore[arg-type]
        new = self.adapter.texts()[before:]
        return new[-1] if new else ""


async def _world(
    config: Config, data: Path, llm: ScriptedLLM, **adapter_kw: object
) -> tuple[Daemon, RecordingAdapter]:
    daemon = Daemon(config, backends={"scripted": llm}, http=False, jobs=False)

    async def handler(incoming):  # type: ignore[no-untyped-def]
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    adapter = RecordingAdapter(
        AdapterContext(handler=handler, state=daemon.state.for_adapter("console"), data_dir=data),
        **adapter_kw,  # type: ignore[arg-type]
    )
    daemon.attach("console", adapter)
    await daemon.start()
    return daemon, adapter


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    llm = ScriptedLLM()
    daemon, adapter = await _world(make_config(tmp_path), tmp_path, llm)
    yield World(daemon, adapter, llm, tmp_path)
    await daemon.stop()


async def test_a_message_is_answered_and_logged(world: World) -> None:
    reply = await world.say("Hello there")
    assert reply == "echo: Hello there"
    logs = list((world.data / "scott/persona/inara/sessions").glob("*.md"))
    assert len(logs) == 1
    text = logs[0].read_text()
    assert "Hello there" in text and "echo: Hello there" in text
    system = world.llm.calls[-1].system
    assert "--- IDENTITY.md ---" in system.stable
    assert "Current date and time:" in system.dynamic


async def test_unknown_sender_is_ignored(world: World) -> None:
    assert await world.say("hi", sender="mallory") == ""
    assert world.llm.calls == []


async def test_duplicate_event_is_answered_once(world: World) -> None:
    await world.adapter.deliver("once", sender="scott", event_id="dup")
    await world.adapter.deliver("once", sender="scott", event_id="dup")
    assert world.adapter.texts() == ["echo: once"]


async def test_no_answer_goes_out_before_its_event_is_recorded(world: World) -> None:
    """The claim of a new event is written while the turn runs; whatever reaches the room
    (an answer, a command's reply, a refusal) waits for it, so a restart never answers twice."""
    database = world.data / "personad.db"
    recorded_at_send: list[bool] = []
    send = world.adapter.send

    async def checking_send(
        room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        with sqlite3.connect(database) as con:
            row = con.execute("SELECT 1 FROM events WHERE event_id = ?", (reply_to,)).fetchone()
        recorded_at_send.append(row is not None)
        return await send(room, text, reply_to=reply_to, key=key)

    await world.say("hello")  # the session is open: the turn below touches no database
    world.adapter.send = checking_send  # type: ignore[method-assign]
    # another writer holds the database for a moment: the claim's write waits, the turn not
    blocker = sqlite3.connect(database, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    asyncio.get_running_loop().call_later(0.3, blocker.rollback)
    try:
        assert await world.say("a question") == "echo: a question"
    finally:
        blocker.close()
    assert world.llm.calls  # the model was asked while the claim was still being written
    await world.say("/otr")
    await world.say("   ")
    assert recorded_at_send == [True, True, True]


async def test_admin_command_refused_for_non_admin(world: World) -> None:
    assert await world.say("/users", sender="holly") == ADMIN_ONLY
    assert "scott" in await world.say("/users", sender="scott")


async def test_otr_keeps_everything_off_disk(world: World) -> None:
    await world.say("/otr on")
    marker = "ZEBRA-MARKER-7731"
    assert await world.say(f"secret plan {marker}") == f"echo: secret plan {marker}"
    assert "Off The Record" in world.llm.calls[-1].system.dynamic
    await world.say("/otr off")
    await world.say("back on record")
    for path in world.data.rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), path


async def test_an_off_the_record_first_turn_leaves_no_day_file(world: World) -> None:
    await world.say("/otr on")
    await world.say("nobody should know we spoke today")
    assert not list(world.data.rglob("sessions/*.md"))
    await world.say("/otr off")
    await world.say("on the record now")
    [day] = world.data.rglob("sessions/*.md")
    assert "on the record now" in day.read_text()


async def test_bad_input_gets_clear_answers(world: World) -> None:
    assert "empty" in await world.say("   ")
    long = "x" * 9000
    assert "limit" in await world.say(long)
    assert "text" in await world.say("", kind="attachment")
    assert "/nosuch" in await world.say("/nosuch")


class GateLLM(ScriptedLLM):
    """Holds each call until released, and records how many were in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.peak = 0
        self.release = asyncio.Event()

    async def complete(self, **kw):  # type: ignore[no-untyped-def, override]
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await self.release.wait()
            return await super().complete(**kw)
        finally:
            self.in_flight -= 1


async def test_sessions_run_concurrently_and_turns_in_order(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    llm = GateLLM()
    daemon, adapter = await _world(make_config(tmp_path), tmp_path, llm)
    try:
        tasks = [
            asyncio.create_task(adapter.deliver("first", sender="scott", event_id="a1")),
            asyncio.create_task(adapter.deliver("second", sender="scott", event_id="a2")),
            asyncio.create_task(adapter.deliver("hers", sender="holly", event_id="b1")),
        ]
        for _ in range(50):
            await asyncio.sleep(0.01)
            if llm.in_flight == 2:
                break
        assert llm.peak == 2  # scott's first turn and holly's, never scott's two at once
        llm.release.set()
        await asyncio.gather(*tasks)
        assert llm.peak == 2
        second_call = next(c for c in llm.calls if c.messages[-1].text == "second")
        history = [m.text for m in second_call.messages]
        assert history[:2] == ["first", "echo: first"]
    finally:
        await daemon.stop()


async def test_a_reminder_set_in_conversation_reaches_the_notification_room(
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime

    from bot.tools.jobs import surface_reminders_once

    make_persona(tmp_path, "scott")
    users = {
        "scott": {
            "identities": ["console:scott"],
            "timezone": "UTC",
            "notification_room": "console:notices",
        }
    }
    llm = ScriptedLLM()
    daemon, adapter = await _world(make_config(tmp_path, users=users), tmp_path, llm)
    try:
        llm.queue_tool("reminder_add", {"text": "Call the dentist", "when": "2099-01-02T09:00"})
        llm.queue("I'll remind you.")
        await adapter.deliver("remind me to call the dentist", sender="scott", event_id="r1")
        reminders = (tmp_path / "scott/persona/inara/REMINDERS.md").read_text()
        assert "2099-01-02 09:00 Call the dentist" in reminders
        assert daemon.router is not None
        sent = await surface_reminders_once(
            config=daemon.config,
            store=daemon.store,
            notifier=daemon.notifier,
            now=datetime(2099, 1, 2, 9, 0, 30, tzinfo=UTC),
        )
        assert sent == 1
        room, text = adapter.sent[-1]
        assert room == "notices" and "Call the dentist" in text
        assert "- [x]" in (tmp_path / "scott/persona/inara/REMINDERS.md").read_text()
    finally:
        await daemon.stop()


async def test_a_persona_file_with_invalid_utf8_is_skipped_not_fatal(world: World) -> None:
    (world.data / "scott/persona/inara/SOUL.md").write_bytes(b"values \xff\xfe broken")
    assert await world.say("still there?") == "echo: still there?"
    stable = world.llm.calls[-1].system.stable
    assert "--- IDENTITY.md ---" in stable and "--- SOUL.md ---" not in stable


async def test_reload_reads_the_config_file_again(tmp_path: Path) -> None:
    from bot.setup.config_loader import load_config

    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    path = tmp_path / "personad.toml"
    base = (
        f'[daemon]\ndata_dir = "{tmp_path}"\n[http]\nenabled = false\n'
        '[llm.backends.scripted]\nkind = "openai_compat"\nmodel = "s"\n'
        'base_url = "http://127.0.0.1:9/v1"\n[llm.roles.chat]\nbackend = "scripted"\n'
        '[memory]\nbackend = "none"\n'
        '[users.scott]\nidentities = ["console:scott"]\nadmin = true\n'
    )
    path.write_text(base)
    llm = ScriptedLLM()
    daemon, adapter = await _world(load_config(path, {}), tmp_path, llm)
    try:
        await adapter.deliver("hi", sender="holly", event_id="h1")
        assert adapter.texts() == []
        path.write_text(base + '[users.holly]\nidentities = ["console:holly"]\n')
        await adapter.deliver("/reload", sender="scott", event_id="s1")
        assert "reloaded" in adapter.texts()[-1]
        await adapter.deliver("hi again", sender="holly", event_id="h2")
        assert adapter.texts()[-1] == "echo: hi again"
        path.write_text(base + '[users.holly]\ntimezone = "Nowhere/Land"\n')
        await adapter.deliver("/reload", sender="scott", event_id="s2")
        assert "not reloaded" in adapter.texts()[-1] and "Nowhere/Land" in adapter.texts()[-1]
    finally:
        await daemon.stop()


async def test_a_message_whose_turn_failed_is_logged_not_sent_again(world: World) -> None:
    """What the user said is kept in the log, but the user was told it went unanswered:
    the next request does not carry it along (a user who retries would send it twice)."""
    from bot.daemon.errors import LLMError

    world.llm.queue_error(LLMError("down", user_message="I can't reach my language model."))
    assert await world.say("Remember: the boiler code is in the blue folder") == (
        "I can't reach my language model."
    )
    log = next((world.data / "scott/persona/inara/sessions").glob("*.md")).read_text()
    assert "the boiler code is in the blue folder" in log
    assert "· event · not answered · console:room1" in log
    reply = await world.say("try again")
    assert reply == "echo: try again"
    sent = "\n".join(message.text for message in world.llm.calls[-1].messages)
    assert "blue folder" not in sent


async def test_a_persona_file_edited_while_running_reaches_the_next_prompt(world: World) -> None:
    await world.say("first")
    soul = world.data / "scott/persona/inara/SOUL.md"
    soul.write_text("Values: answer like a lighthouse keeper.")
    for _ in range(500):  # the daemon's watcher reads the change as the loop runs
        await world.say("next")
        if "lighthouse keeper" in world.llm.calls[-1].system.stable:
            break
        await asyncio.sleep(0.01)
    assert "lighthouse keeper" in world.llm.calls[-1].system.stable


async def test_the_chosen_persona_survives_a_restart(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "scott", "developer")
    llm = ScriptedLLM()
    daemon, adapter = await _world(make_config(tmp_path), tmp_path, llm)
    try:
        await adapter.deliver("/persona developer", sender="scott", event_id="p1")
    finally:
        await daemon.stop()
    daemon, adapter = await _world(make_config(tmp_path), tmp_path, llm)
    try:
        await adapter.deliver("hello again", sender="scott", event_id="p2")
    finally:
        await daemon.stop()
    assert (tmp_path / "scott/persona/developer/sessions").is_dir()
    assert not list((tmp_path / "scott/persona/inara/sessions").glob("*.md"))
