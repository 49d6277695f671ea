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
from bot.daemon import Daemon
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
    assert rig.session_log().endswith("· event · answer delivered\n\n")


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
