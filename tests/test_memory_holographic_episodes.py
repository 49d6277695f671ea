"""Episodes with the holographic backend: every on-record message is recallable with its date,
beside the facts its traces hold; rooms, secrets, forgetting and Off The Record hold too."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import MemoryHit
from bot.memory.holographic.backend import HolographicMemory
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon
from tests.test_memory_episodes import (
    NOW,
    OFFICE,
    PUB,
    episodes,
    newer_message_matching_less_stays_below,
    said,
)

__all__: list[str] = []

PORTO = "We went to Porto last week and walked along the river."


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[HolographicMemory]:
    async with HolographicMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


def texts(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.text for hit in hits]


async def test_a_story_the_policy_keeps_no_fact_of_is_recalled_with_its_date(
    memory: HolographicMemory,
) -> None:
    await said(memory, PORTO, at=datetime(2026, 5, 12, 19, 0, tzinfo=UTC))
    assert await memory.list_items() == []  # no durable fact: a past-tense story
    hits = await memory.prefetch("when did I go to Porto?", limit=4)
    assert texts(hits)[0] == PORTO
    assert hits[0].citation == "[episode · 2026-05-12 · dm]"
    assert hits[0].item.id.startswith("e")


async def test_facts_and_episodes_blend_without_saying_one_thing_twice(
    memory: HolographicMemory,
) -> None:
    await said(memory, "I prefer green tea in the morning.", "Green tea it is.")
    facts = [item.text for item in await memory.list_items()]
    assert facts == ["I prefer green tea in the morning."]
    hits = await memory.prefetch("green tea morning", limit=5)
    assert texts(hits).count("I prefer green tea in the morning.") == 1
    # the persona's side is kept too, beside the message it answered: one exchange, one place
    (fact,) = [hit for hit in hits if hit.item.text == "I prefer green tea in the morning."]
    assert fact.reply is not None and fact.reply.message == "Green tea it is."
    assert "Green tea it is." not in episodes(hits)
    # asked when, the dated episode answers in the fact's place
    when = await memory.prefetch("when did I say I prefer green tea?", limit=1)
    assert when[0].citation == "[episode · 2026-05-20 · dm]"


async def test_time_words_prefer_what_was_said_then(memory: HolographicMemory) -> None:
    await said(memory, "Dinner with Rita at the Thai place.", at=datetime(2026, 3, 14, tzinfo=UTC))
    await said(
        memory, "Dinner with Rita at the new ramen bar.", at=datetime(2026, 5, 12, tzinfo=UTC)
    )
    march = episodes(await memory.prefetch("dinner with Rita in March", limit=1))
    assert march == ["Dinner with Rita at the Thai place."]
    last_week = episodes(await memory.prefetch("dinner with Rita last week", limit=1))
    assert last_week == ["Dinner with Rita at the new ramen bar."]


async def test_a_direct_episode_is_never_recalled_in_a_shared_room(
    memory: HolographicMemory,
) -> None:
    await said(memory, "I went to the clinic about my knee.", "Get well soon.")
    await said(memory, "We watched the match at the pub.", heard_by=PUB)
    for query in ("clinic knee", "get well soon", "when did I go to the clinic?"):
        found = texts(await memory.prefetch(query, limit=8, audience=PUB))
        assert "I went to the clinic about my knee." not in found, query
        assert "Get well soon." not in found, query
    shared = await memory.prefetch("match pub", limit=5, audience=PUB)
    assert shared[0].citation == "[episode · 2026-05-20 · group]"
    assert await memory.prefetch("match pub", limit=5, audience=OFFICE) == []
    direct = (await memory.prefetch("clinic knee", limit=1))[0]
    assert not await memory.forget(direct.item.id, audience=PUB)  # out of that room's reach
    # said again in a shared room, that room keeps its own copy
    await said(memory, "I went to the clinic about my knee.", heard_by=PUB)
    assert "I went to the clinic about my knee." in episodes(
        await memory.prefetch("clinic knee", limit=5, audience=PUB)
    )


async def test_an_episode_is_kept_with_its_secret_redacted(memory: HolographicMemory) -> None:
    await said(memory, "My wifi password is hunter2-Blue-77 and the router is in the hall.")
    await memory.close()
    raw = b"".join(path.read_bytes() for path in memory.persona_dir.iterdir() if path.is_file())
    assert b"hunter2-Blue-77" not in raw
    await memory.open()
    assert episodes(await memory.prefetch("hunter2-Blue-77", limit=5)) == []
    assert episodes(await memory.prefetch("wifi router", limit=5)) == [
        "My wifi password is [secret withheld: password]."
    ]


async def test_forget_explain_and_export_an_episode(memory: HolographicMemory) -> None:
    await said(memory, "Hi!", "Did you find the keys you lost at the gym?")
    hit = (await memory.prefetch("keys gym", limit=1))[0]
    details = await memory.explain(hit.item.id)
    assert details["kind"] == "episode" and details["speaker"] == "persona"
    assert details["said"].startswith("2026-05-20")
    assert details["citation"] == "[episode · 2026-05-20 · dm]"
    assert await memory.forget(hit.item.id)
    assert await memory.forget(hit.item.id)  # forgetting twice still finds it
    assert episodes(await memory.prefetch("keys gym", limit=5)) == []
    assert (await memory.stats())["episodes"] == {"active": 1, "forgotten": 1}
    exported = {row["text"]: row for row in await memory.export()}
    assert exported["Did you find the keys you lost at the gym?"]["status"] == "forgotten"
    assert exported["Hi!"]["kind"] == "episode"
    with sqlite3.connect(memory.episodes_path) as db:  # kept, only marked
        rows = db.execute("SELECT text, status FROM episodes ORDER BY id").fetchall()
    assert ("Did you find the keys you lost at the gym?", "forgotten") in rows
    assert not await memory.forget("e999")
    assert await memory.explain("e999") == {}


async def test_episodes_outlive_a_restart(tmp_path: Path) -> None:
    async with HolographicMemory(tmp_path, now=lambda: NOW) as memory:
        await said(memory, PORTO, at=NOW - timedelta(days=8))
    async with HolographicMemory(tmp_path, now=lambda: NOW) as reopened:
        assert episodes(await reopened.prefetch("Porto river", limit=3)) == [PORTO]


async def test_a_damaged_episode_file_stops_open_naming_it_and_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    damaged = tmp_path / "episodes.db"
    damaged.write_bytes(b"not a database, just bytes" * 100)
    memory = HolographicMemory(tmp_path)
    with pytest.raises(MemoryStoreError, match=r"episodes\.db"):
        await memory.open()
    assert damaged.read_bytes() == b"not a database, just bytes" * 100
    damaged.unlink()
    async with HolographicMemory(tmp_path) as reopened:  # the same folder opens once it is gone
        assert (await reopened.stats())["episodes"] == {}


async def test_a_fact_whose_id_reads_like_an_episode_id_is_still_the_fact(
    memory: HolographicMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    await said(memory, "Hello there.")  # episodes e1 and e2 exist
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID("e0000000000145678123456781234567"))
    result = await memory.add("Ana is allergic to peanuts.", source="test", force=True)
    assert result.item_id == "e00000000001"
    assert (await memory.explain("e00000000001"))["text"] == "Ana is allergic to peanuts."
    assert await memory.forget("e00000000001")
    assert texts(await memory.prefetch("hello there", limit=3)) == ["Hello there."]
    assert [item.status for item in await memory.list_items(include_inactive=True)] == ["forgotten"]


async def test_the_search_tool_cites_episodes_and_forgets_them(memory: HolographicMemory) -> None:
    await said(memory, PORTO, at=datetime(2026, 5, 12, tzinfo=UTC))
    await memory.add("Ana prefers window seats on trains.", source="test", force=True)
    tools = {tool.name: tool for tool in memory.tools()}
    found = await tools["memory_search"].handler({"query": "when did I go to Porto?"})
    line = found.splitlines()[0]
    assert line.startswith(f"- {PORTO} [episode · 2026-05-12 · dm] (id e")
    episode_id = line.rsplit("id ", 1)[1].rstrip(")")
    structural = await tools["memory_search"].handler({"query": "what does Ana prefer on trains"})
    assert "structure;" in structural.splitlines()[0]
    assert await tools["memory_forget"].handler({"id": episode_id}) == f"Forgotten: {episode_id}."
    assert PORTO not in await tools["memory_search"].handler({"query": "Porto river"})


# -- through the daemon --------------------------------------------------------------------


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[tuple[RecordingAdapter, ScriptedLLM]]:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    config = make_config(tmp_path, memory_backend="holographic")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    yield adapter, llm
    await daemon.stop()


async def test_on_record_turns_come_back_and_off_the_record_ones_never_reach_the_store(
    chat: tuple[RecordingAdapter, ScriptedLLM], tmp_path: Path
) -> None:
    adapter, llm = chat
    turns = [
        PORTO,
        "/otr on",
        "We went to Coimbra to see Banco Verde about a loan.",
        "/otr off",
        "/new",
        "When did I go to Porto?",
    ]
    for n, text in enumerate(turns):
        await adapter.deliver(text, sender="scott", event_id=f"m{n}")
    prompt = llm.calls[-1].system.dynamic
    recalled = [line for line in prompt.splitlines() if "Porto last week" in line]
    assert recalled and "[episode · " in recalled[0] and " · dm]" in recalled[0]
    folder = tmp_path / "scott/persona/inara"
    assert (folder / "episodes.db").is_file()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"Banco Verde" not in path.read_bytes(), path


async def test_a_newer_message_matching_less_stays_below(memory: HolographicMemory) -> None:
    """Its episodes are ranked by BM25 alone: recency only breaks ties, as in sqlite-fts5."""
    await newer_message_matching_less_stays_below(memory)
