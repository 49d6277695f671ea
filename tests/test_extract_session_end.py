"""Extract at the end of a session: the model reads the on-record turns and proposes durable
facts with categories and confidence; the write policy filters them; a model failure falls
back to the backend's own rules."""

from __future__ import annotations

import json
import sqlite3
from itertools import count
from pathlib import Path

from bot.errors import LLMError
from bot.memory.extraction import parse_proposals
from tests.fakes.openai_api import FakeOpenAI, Text
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon


def _rows(data: Path) -> list[tuple[str, str, str]]:
    path = data / "scott/persona/inara/memory.db"
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT text, category, source FROM items WHERE status = 'active'"
        ).fetchall()


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
