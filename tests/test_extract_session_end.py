"""Extract at the end of a session: the model reads the on-record turns and proposes durable
facts with categories and confidence; the write policy filters them; a model failure falls
back to the backend's own rules."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import pytest

from bot.daemon.cli import main
from bot.daemon.errors import LLMError
from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.extraction import FactExtractor, parse_proposals
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.turn.audience import Audience
from tests.fakes.honcho_api import FakeHoncho
from tests.fakes.openai_api import FakeOpenAI, Text
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon
from tests.test_memory_room_scope import honcho_memory


def _rows(data: Path) -> list[tuple[str, str, str]]:
    path = data / "scott/persona/inara/memory.db"
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT text, category, source FROM items WHERE status = 'active'"
        ).fetchall()


def _confidences(data: Path) -> dict[str, float]:
    with sqlite3.connect(data / "scott/persona/inara/memory.db") as db:
        rows = db.execute("SELECT text, confidence FROM items WHERE source LIKE 'extract%'")
        return {str(text): float(confidence) for text, confidence in rows.fetchall()}


def test_only_usable_proposals_are_taken() -> None:
    answer = (
        "Here you go:\n```json\n"
        + json.dumps(
            [
                {"fact": "Scott is allergic to peanuts", "category": "fact", "confidence": 0.9},
                {"fact": "Scott felt tired", "category": "fact", "confidence": 0.2},
                {"fact": "Scott's PIN is 4321", "category": "mood", "confidence": 0.9},
                {
                    "fact": "api key sk-abcdefghijklmnopqrstuvwx",
                    "category": "fact",
                    "confidence": 1,
                },
                "not an object",
            ]
        )
        + "\n```"
    )
    [only] = parse_proposals(answer)
    assert (only.text, only.category, only.confidence) == (
        "Scott is allergic to peanuts",
        "fact",
        0.9,
    )
    assert parse_proposals("no list here") == [] and parse_proposals("[{oops") == []


def test_a_confidence_out_of_range_is_clamped_and_one_that_is_no_number_dropped() -> None:
    def one(confidence: object) -> list[float]:
        item = {"fact": "Scott keeps bees", "category": "fact", "confidence": confidence}
        return [p.confidence for p in parse_proposals(json.dumps([item]))]

    assert one(1.7) == [1.0] and one(0.64) == [0.64] and one(1) == [1.0]
    assert one(True) == [] and one("0.9") == [] and one(None) == []
    assert (
        parse_proposals('[{"fact": "Scott keeps bees", "category": "fact", "confidence": NaN}]')
        == []
    )


async def test_session_end_stores_what_the_model_proposes(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    ids = count()
    try:
        await adapter.deliver(
            "my kid can't eat peanuts, be careful with snacks",
            sender="scott",
            event_id=f"e{next(ids)}",
        )
        await adapter.deliver("/otr on", sender="scott", event_id=f"e{next(ids)}")
        await adapter.deliver(
            "something off the record about cashews", sender="scott", event_id=f"e{next(ids)}"
        )
        await adapter.deliver("/otr off", sender="scott", event_id=f"e{next(ids)}")
        llm.queue(
            json.dumps(
                [
                    {
                        "fact": "Scott's son is allergic to peanuts",
                        "category": "fact",
                        "confidence": 0.95,
                    },
                    {
                        "fact": "Scott prefers green tea over coffee",
                        "category": "preference",
                        "confidence": 0.7,
                    },
                    {  # the write policy still decides: a one-off story is not kept
                        "fact": "Scott went to the shop yesterday",
                        "category": "fact",
                        "confidence": 0.8,
                    },
                ]
            )
        )
        await adapter.deliver("/new", sender="scott", event_id=f"e{next(ids)}")
        prompt = llm.calls[-1].messages[0].text
        assert "peanuts" in prompt and "cashews" not in prompt  # OTR never reaches the model
        rows = _rows(tmp_path)
        stored = {
            (text, category) for text, category, source in rows if source.startswith("extract")
        }
        assert stored == {
            ("Scott's son is allergic to peanuts", "fact"),
            ("Scott prefers green tea over coffee", "preference"),
        }
    finally:
        await daemon.stop()
    # each item keeps the confidence the model gave it, and its citation shows it
    assert _confidences(tmp_path) == {
        "Scott's son is allergic to peanuts": 0.95,
        "Scott prefers green tea over coffee": 0.7,
    }
    async with SqliteFtsMemory(tmp_path / "scott/persona/inara") as memory:
        [hit] = await memory.search("allergic peanuts", limit=1)
    assert hit.citation.startswith("[fact · extract console ") and hit.citation.endswith(" · 0.95]")


async def test_memory_explain_shows_the_models_confidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(
        make_config(tmp_path, memory_backend="sqlite-fts5"), tmp_path, llm=llm
    )
    try:
        await adapter.deliver("we keep bees on the roof", sender="scott", event_id="b1")
        facts = [{"fact": "Scott keeps bees on the roof", "category": "fact", "confidence": 0.83}]
        llm.queue(json.dumps(facts))
        await adapter.deliver("/new", sender="scott", event_id="b2")
    finally:
        await daemon.stop()
    with sqlite3.connect(tmp_path / "scott/persona/inara/memory.db") as db:
        [(rowid,)] = db.execute("SELECT id FROM items WHERE source LIKE 'extract%'").fetchall()
    monkeypatch.delenv("PERSONAD_CONFIG", raising=False)
    monkeypatch.setenv("PERSONAD__MEMORY__BACKEND", "sqlite-fts5")
    monkeypatch.setenv("PERSONAD__MEMORY__EMBEDDINGS", "off")
    command = ["memory", "explain", str(rowid), "--user", "scott", "--persona", "inara"]
    capsys.readouterr()
    assert await asyncio.to_thread(main, [*command, "--data-dir", str(tmp_path)]) == 0
    details = json.loads(capsys.readouterr().out)
    assert details["confidence"] == 0.83 and details["citation"].endswith(" · 0.83]")


@asynccontextmanager
async def _opened(kind: str, folder: Path) -> AsyncIterator[MemoryBackend]:
    memory: MemoryBackend
    if kind == "honcho":
        async with FakeHoncho() as fake:
            memory = honcho_memory(fake, folder)
            await memory.open()
            try:
                yield memory
            finally:
                await memory.close()
        return
    memory = HolographicMemory(folder) if kind == "holographic" else SqliteFtsMemory(folder)
    await memory.open()
    try:
        yield memory
    finally:
        await memory.close()


@pytest.mark.parametrize("kind", ["sqlite-fts5", "holographic", "honcho"])
async def test_every_backend_stores_a_given_confidence_clamped(kind: str, tmp_path: Path) -> None:
    async with _opened(kind, tmp_path) as memory:
        await memory.add("Alice keeps bees on the roof.", source="extract", confidence=0.61)
        await memory.add("Alice grows tomatoes on the balcony.", source="extract", confidence=4.0)
        await memory.add("Alice prefers green tea over coffee.", source="cli")
        items = {item.text: item.confidence for item in await memory.list_items()}
    assert items["Alice keeps bees on the roof."] == pytest.approx(0.61)
    assert items["Alice grows tomatoes on the balcony."] == 1.0
    # without one, the write policy's own confidence, as before
    assert 0.0 < items["Alice prefers green tea over coffee."] <= 1.0


@pytest.mark.parametrize("kind", ["sqlite-fts5", "holographic", "honcho"])
async def test_each_audience_is_read_apart_and_its_facts_keep_its_label(
    kind: str, tmp_path: Path
) -> None:
    family, work = Audience("matrix:!family"), Audience("telegram:-100")
    llm = ScriptedLLM()
    llm.queue(
        '[{"fact": "My brother Rui plays the cello.", "category": "fact", "confidence": 0.9}]'
    )
    llm.queue('[{"fact": "My manager Rita drives a tram.", "category": "fact", "confidence": 0.9}]')
    at = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    turns = [
        TurnRecord(
            "My brother Rui plays the cello.", "Nice.", "matrix", at, "alice", "inara", family.label
        ),
        TurnRecord(
            "My manager Rita drives a tram.", "Oh.", "telegram", at, "alice", "inara", work.label
        ),
    ]
    async with _opened(kind, tmp_path) as memory:
        assert await FactExtractor(llm).extract(memory, turns) == 2
        labels = {item.text: item.audience for item in await memory.list_items()}
    assert labels == {
        "My brother Rui plays the cello.": family.label,
        "My manager Rita drives a tram.": work.label,
    }
    # the model never read one room's words beside the other's
    read = [call.messages[0].text for call in llm.calls]
    assert len(read) == 2 and "cello" in read[0] and "tram" not in read[0]


async def test_a_failing_model_falls_back_to_the_rules(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    try:
        await adapter.deliver(
            "I prefer green tea over coffee in the mornings.", sender="scott", event_id="a1"
        )
        llm.queue_error(LLMError("down", user_message="the model is down"))
        await adapter.deliver("/new", sender="scott", event_id="a2")
        texts = [text for text, _category, _source in _rows(tmp_path)]
        assert any("green tea" in text for text in texts)
    finally:
        await daemon.stop()


async def test_the_extract_role_is_served_by_its_own_backend_over_the_wire(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    async with FakeOpenAI() as chat, FakeOpenAI() as local:

        def backend(fake: FakeOpenAI) -> dict[str, str]:
            return {"kind": "openai_compat", "model": "m", "base_url": fake.base_url + "/v1"}

        config = make_config(
            tmp_path,
            memory_backend="sqlite-fts5",
            extra={
                "llm": {
                    "backends": {"scripted": backend(chat), "local": backend(local)},
                    "roles": {
                        "chat": {"backend": "scripted"},
                        "distill_extract": {"backend": "local"},
                    },
                }
            },
        )
        facts = [{"fact": "Scott keeps bees in the garden", "category": "fact", "confidence": 0.9}]
        local.script(Text(json.dumps(facts)))
        daemon, adapter = await start_daemon(config, tmp_path, env={})
        try:
            await adapter.deliver("the bees made honey again", sender="scott", event_id="w1")
            await adapter.deliver("/new", sender="scott", event_id="w2")
        finally:
            await daemon.stop()
        assert len(chat.requests) == 1 and len(local.requests) == 1
        assert "the bees made honey again" in json.dumps(local.requests[0].body)
        assert ("Scott keeps bees in the garden", "fact") in {
            (text, category) for text, category, _source in _rows(tmp_path)
        }


async def test_a_stopping_daemon_does_not_wait_on_the_model(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    await adapter.deliver(
        "my daughter Clara is allergic to shellfish", sender="scott", event_id="1"
    )
    asked = len(llm.calls)
    await daemon.stop()
    assert len(llm.calls) == asked  # shutdown extracted by the rules, without a model call
    assert any("shellfish" in text for text, _category, _source in _rows(tmp_path))
