"""Answers the platform cannot take wait in the outbox and arrive exactly once when it
recovers, also across a restart; health shows what is wrong. In-process: a recording adapter
that can be made unreachable (``down``) and a scripted model."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.delivery.steps import WITHHELD_NOTE, Step, withheld
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

TOKEN = "api-token-0123456789abcdef"


class Rig:
    def __init__(self, data: Path) -> None:
        self.data = data
        self.llm = ScriptedLLM()
        self.daemon: Daemon | None = None
        self.adapter: RecordingAdapter | None = None

    async def start(self, *, down: bool = False, http: bool = False) -> RecordingAdapter:
        extra = {"http": {"enabled": True, "port": 0}} if http else None
        daemon = Daemon(
            make_config(self.data, extra=extra),
            backends={"scripted": self.llm},
            env={"PERSONAD_API_TOKEN": TOKEN},
            jobs=False,
        )
        daemon.outbox.base_delay = 0.02
        daemon.outbox.max_delay = 0.1

        async def handler(incoming: Incoming) -> None:
            assert daemon.router is not None
            await daemon.router.handle(incoming)

        context = AdapterContext(
            handler=handler, state=daemon.state.for_adapter("console"), data_dir=self.data
        )
        adapter = RecordingAdapter(context)
        if self.adapter is not None:  # the same room as the process before
            adapter.sent, adapter.keys = self.adapter.sent, self.adapter.keys
            adapter._ids = len(adapter.sent)
        adapter.down = down
        daemon.attach("console", adapter)
        await daemon.start()
        self.daemon, self.adapter = daemon, adapter
        return adapter

    def status(self, event_id: str) -> str | None:
        with sqlite3.connect(self.data / "personad.db") as con:
            row = con.execute("SELECT status FROM events WHERE event_id = ?", (event_id,))
            found = row.fetchone()
        return str(found[0]) if found else None

    def outbox_rows(self) -> int:
        with sqlite3.connect(self.data / "personad.db") as con:
            return int(con.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def session_log(self) -> str:
        return next((self.data / "scott/persona/inara/sessions").glob("*.md")).read_text()


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    make_persona(tmp_path, "scott")
    rig = Rig(tmp_path)
    yield rig
    if rig.daemon is not None:
        await rig.daemon.stop()


async def eventually(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):
        while not check():  # noqa: ASYNC110 (plain values, nothing to wait on)
            await asyncio.sleep(0.01)


async def test_an_answer_due_while_the_platform_is_down_arrives_once_when_it_is_back(
    rig: Rig,
) -> None:
    adapter = await rig.start(down=True)
    await adapter.deliver("are you there?", sender="scott", event_id="$1")
    assert adapter.sent == []
    assert rig.status("$1") == "queued"
    assert rig.outbox_rows() == 1
    log = rig.session_log()
    assert log.index("echo: are you there?") < log.index("event · answer queued")
    assert "answer delivered" not in log
    # redelivered while its answer waits: not answered a second time
    await adapter.deliver("are you there?", sender="scott", event_id="$1")
    assert len(rig.llm.calls) == 1
    adapter.down = False
    await eventually(lambda: rig.status("$1") == "done")
    assert adapter.texts() == ["echo: are you there?"]
    assert rig.outbox_rows() == 0
    # the log notes the delivery right after the outbox let go of the answer
    await eventually(lambda: rig.session_log().endswith("· event · answer delivered\n\n"))


async def test_the_outbox_survives_a_restart(rig: Rig) -> None:
    adapter = await rig.start(down=True)
    await adapter.deliver("remember to answer", sender="scott", event_id="$2")
    await adapter.deliver("and this one", sender="scott", event_id="$3")
    assert rig.daemon is not None
    await rig.daemon.stop()
    rig.daemon = None
    assert rig.outbox_rows() == 2 and rig.status("$2") == "queued"
    adapter = await rig.start()
    # the platform redelivers both: they are duplicates, the outbox answers them
    await adapter.deliver("remember to answer", sender="scott", event_id="$2")
    await eventually(lambda: rig.status("$3") == "done")
    assert adapter.texts() == ["echo: remember to answer", "echo: and this one"]
    assert len(rig.llm.calls) == 2
    assert rig.outbox_rows() == 0


async def test_off_the_record_answers_wait_in_memory_only(rig: Rig) -> None:
    adapter = await rig.start()
    await adapter.deliver("/otr on", sender="scott", event_id="$4")
    adapter.down = True
    await adapter.deliver("my secret plan zebra", sender="scott", event_id="$5")
    assert rig.outbox_rows() == 0
    assert rig.status("$5") == "processing"  # unfinished until delivered
    for path in rig.data.rglob("*"):
        if path.is_file():
            assert b"zebra" not in path.read_bytes(), path
    adapter.down = False
    await eventually(lambda: rig.status("$5") == "done")
    assert adapter.texts()[-1] == "echo: my secret plan zebra"


async def test_healthz_says_why_an_adapter_is_unhealthy(rig: Rig) -> None:
    adapter = await rig.start(http=True)
    assert rig.daemon is not None
    base = f"http://127.0.0.1:{rig.daemon.http_port}"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 200
        # a platform that stopped answering syncs for longer than its limit is stalled
        rig.daemon.health.stall_seconds = {"console": 30.0}
        adapter.health.last_ok = time.monotonic() - 60
        adapter.health.failed("sync timed out")
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 503
            body = await response.json()
        assert body["problems"]["console"].startswith("stalled: no success for 60s")
        assert "sync timed out" in body["problems"]["console"]
        assert body["adapters"]["console"]["synced"] is False
        async with http.get(f"{base}/status", headers=auth) as response:
            assert (await response.json())["adapters"]["console"]["state"] == "stalled"
        adapter.health.touch()
        # answers that cannot be delivered for a while: the outbox is backing up
        adapter.down = True
        await adapter.deliver("hello", sender="scott", event_id="$6")
        rig.daemon.outbox.parcels[0].created_at -= 600
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 503
            body = await response.json()
        assert body["problems"]["console"].startswith("outbox backing up: 1 answers waiting")
        adapter.down = False
        await eventually(lambda: not rig.daemon.outbox.parcels)  # type: ignore[union-attr]
        adapter.health.running = False
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 503
            assert (await response.json())["problems"] == {"console": "not running"}
        adapter.health.running = True
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 200


async def test_status_all_says_why(rig: Rig) -> None:
    adapter = await rig.start()
    assert rig.daemon is not None
    rig.daemon.config.users["scott"].admin = True
    adapter.down = True
    await adapter.deliver("ping", sender="scott", event_id="$7")
    adapter.down = False
    adapter.health.running = False
    before = len(adapter.sent)
    adapter.health.running = True
    await eventually(lambda: not rig.daemon.outbox.parcels)  # type: ignore[union-attr]
    rig.daemon.health.stall_seconds = {"console": 30.0}
    adapter.health.last_ok = time.monotonic() - 90
    await adapter.deliver("/status all", sender="scott", event_id="$8")
    assert len(adapter.sent) == before + 2
    assert "- console: stalled: no success for 90s, the limit is 30s" in adapter.texts()[-1]


async def test_a_new_answer_waits_behind_earlier_ones_to_its_room(rig: Rig) -> None:
    adapter = await rig.start(down=True)
    assert rig.daemon is not None
    rig.daemon.outbox.base_delay = rig.daemon.outbox.max_delay = 3600.0  # no retry by itself
    await adapter.deliver("first", sender="scott", event_id="$9")
    adapter.down = False
    await adapter.deliver("second", sender="scott", event_id="$10")
    assert adapter.sent == []  # not ahead of the answer still waiting
    assert rig.status("$10") == "queued"
    await rig.daemon.outbox.run_due(now=time.time() + 7200)
    assert adapter.texts() == ["echo: first", "echo: second"]
    assert rig.status("$9") == rig.status("$10") == "done"


def refusals(data: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(data / "personad.db") as con:
        rows = con.execute("SELECT event_id, user, room, reason FROM undelivered ORDER BY id")
        return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows.fetchall()]


async def test_an_answer_refused_for_good_is_recorded_never_retried_and_not_backing_up(
    rig: Rig,
) -> None:
    adapter = await rig.start(http=True)
    assert rig.daemon is not None
    adapter.removed_from.add("kicked")
    await adapter.deliver("are you there?", sender="scott", room="kicked", event_id="$20")
    assert adapter.refused == 1 and adapter.sent == []
    assert rig.status("$20") == "done" and rig.outbox_rows() == 0
    assert rig.daemon.outbox.parcels == []
    [(event, user, room, reason)] = refusals(rig.data)
    assert (event, user, room) == ("$20", "scott", "kicked")
    assert reason == "PermanentSendError: the bot was removed from kicked"
    await rig.daemon.outbox.run_due(now=time.time() + 3600)
    assert adapter.refused == 1  # never tried again
    log = rig.session_log()
    assert log.index("echo: are you there?") < log.index("event · answer refused by the platform")
    assert "answer queued" not in log
    base = f"http://127.0.0.1:{rig.daemon.http_port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 200
        auth = {"Authorization": f"Bearer {TOKEN}"}
        async with http.get(f"{base}/status", headers=auth) as response:
            body = await response.json()
    assert body["adapters"]["console"]["outbox"] == {"waiting": 0, "oldest_s": 0.0, "refused": 1}
    [listed] = body["refused"]
    assert (listed["room"], listed["user"], listed["reason"]) == ("kicked", "scott", reason)
    # the user's /status names it, and so does the admin's /status all
    await adapter.deliver("/status", sender="scott", event_id="$21")
    status = adapter.texts()[-1]
    assert "- Answers the platform refused for good: 1" in status
    assert "console kicked, 0 min ago: PermanentSendError: the bot was removed" in status
    rig.daemon.config.users["scott"].admin = True
    await adapter.deliver("/status all", sender="scott", event_id="$22")
    overview = adapter.texts()[-1]
    assert "- console: ok, last ok" in overview and "1 answers refused for good" in overview
    assert "- answers refused for good: 1\n  - scott/inara on console kicked" in overview


async def test_a_queued_answer_refused_later_leaves_the_outbox_and_is_listed_after_a_restart(
    rig: Rig,
) -> None:
    adapter = await rig.start(down=True)
    assert rig.daemon is not None
    rig.daemon.outbox.base_delay = rig.daemon.outbox.max_delay = 3600.0  # no retry by itself
    await adapter.deliver("first", sender="scott", event_id="$23")
    await adapter.deliver("second", sender="scott", event_id="$24")
    assert rig.outbox_rows() == 2 and rig.status("$23") == "queued"
    # the platform is back, but the bot was removed from the room meanwhile
    adapter.down = False
    adapter.removed_from.add("room1")
    assert await rig.daemon.outbox.run_due(now=time.time() + 7200) == 0
    # the first was tried while down; the second waited behind it untried: one try each now
    assert adapter.refused == 3
    assert rig.outbox_rows() == 0 and rig.daemon.outbox.parcels == []
    assert rig.status("$23") == rig.status("$24") == "done"
    assert [r[0] for r in refusals(rig.data)] == ["$23", "$24"]
    assert rig.daemon.outbox.backing_up("console") is None
    await eventually(lambda: rig.session_log().count("answer refused by the platform") == 2)
    await rig.daemon.stop()
    rig.daemon = None
    await rig.start()
    assert rig.daemon is not None
    refused = rig.daemon.outbox.refusals(user="scott")
    assert [(r.event_id, r.room, r.attempts) for r in refused] == [
        ("$24", "room1", 1),
        ("$23", "room1", 2),
    ]
    assert all(r.reason.startswith("PermanentSendError: the bot was removed") for r in refused)


async def test_an_off_the_record_answer_refused_for_good_leaves_nothing_on_disk(
    rig: Rig,
) -> None:
    adapter = await rig.start()
    assert rig.daemon is not None
    rig.daemon.outbox.base_delay = rig.daemon.outbox.max_delay = 3600.0  # no retry by itself
    await adapter.deliver("/otr on", sender="scott", event_id="$25")
    adapter.down = True
    await adapter.deliver("my secret plan zebra", sender="scott", event_id="$26")
    assert rig.status("$26") == "processing"  # waiting in memory
    adapter.down = False
    adapter.removed_from.add("room1")
    await rig.daemon.outbox.run_due(now=time.time() + 7200)
    assert rig.status("$26") == "done" and rig.daemon.outbox.parcels == []
    [refusal] = rig.daemon.outbox.refusals()
    assert (refusal.event_id, refusal.durable) == ("$26", False)
    assert refusals(rig.data) == []
    for path in rig.data.rglob("*"):
        if path.is_file():
            assert b"zebra" not in path.read_bytes(), path
            assert b"answer refused" not in path.read_bytes(), path


async def test_a_refused_command_reply_is_named_as_one_in_status_all(rig: Rig) -> None:
    adapter = await rig.start()
    assert rig.daemon is not None
    adapter.removed_from.add("kicked")
    await adapter.deliver("/help", sender="scott", room="kicked", event_id="$30")
    await eventually(lambda: rig.daemon.outbox.refusals())  # type: ignore[union-attr]
    rig.daemon.config.users["scott"].admin = True
    await adapter.deliver("/status all", sender="scott", event_id="$31")
    overview = adapter.texts()[-1]
    assert "  - a command reply on console kicked" in overview
    assert "?/?" not in overview


async def test_two_passes_at_once_send_a_waiting_answer_once(rig: Rig) -> None:
    adapter = await rig.start(down=True)
    assert rig.daemon is not None
    rig.daemon.outbox.base_delay = rig.daemon.outbox.max_delay = 3600.0  # no retry by itself
    await adapter.deliver("first", sender="scott", event_id="$30")
    adapter.down = False
    later = time.time() + 7200
    counts = await asyncio.gather(
        rig.daemon.outbox.run_due(now=later), rig.daemon.outbox.run_due(now=later)
    )
    assert sorted(counts) == [0, 1]
    assert adapter.texts() == ["echo: first"]
    assert rig.status("$30") == "done" and rig.daemon.outbox.parcels == []


def test_a_withheld_answer_becomes_one_note_where_the_room_shows_it() -> None:
    """What a room already shows of a withheld answer (a streamed beginning its edits
    complete) is edited to the note; else the note takes the first message's place, and
    nothing is spoken; withholding twice changes nothing."""
    streamed = [
        Step("edit", "dm", "part one, whole", "k0", message_id="m1"),
        Step("send", "dm", "part two", "k1"),
        Step("voice", "dm", "part one, part two", "kv"),
    ]
    [note] = withheld(streamed)
    assert note.op == "edit" and note.message_id == "m1" and note.text == WITHHELD_NOTE
    assert note.key != "k0", "the answer's own edit may be behind its key already"
    assert withheld([note]) == [note]
    unsent = [
        Step("send", "dm", "part one", "k0", reply_to="e1"),
        Step("send", "dm", "part two", "k1"),
    ]
    note = [Step("send", "dm", WITHHELD_NOTE, "k0", reply_to="e1", confirm=True)]
    assert withheld(unsent) == note
    assert withheld(note) == note
    assert withheld([Step("voice", "dm", "hello", "kv")]) == []
