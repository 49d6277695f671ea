"""Writes of the sqlite-fts5 backend: policy, secrets, duplicates, sync, mirror, forget."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.memory.base import TurnRecord
from bot.memory.sqlite.backend import MAX_ITEM_CHARS, SqliteFtsMemory
from bot.memory.sqlite.query import mirror_lines
from bot.memory.sqlite.schema import SCHEMA_VERSION

__all__: list[str] = []

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SECRETS = [
    "my password is hunter2",
    "A minha senha do banco é 83jd92kd",
    "the api key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
]


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


def _all_text(db_path: Path) -> str:
    """Every string in every table of the file, read without the backend."""
    with sqlite3.connect(db_path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        chunks = []
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):
                chunks.extend(str(value) for value in row if isinstance(value, str))
    return "\n".join(chunks)


def _rows(db_path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db_path) as db:
        return list(db.execute(sql))


async def test_secrets_are_never_stored_even_when_forced(memory: SqliteFtsMemory) -> None:
    for secret in SECRETS:
        plain = await memory.add(secret, source="test")
        forced = await memory.add(secret, source="test", category="fact", force=True)
        assert not plain.stored and not forced.stored
        assert "secret" in forced.reason and "forced" in forced.reason
    await memory.mirror("MEMORY.md", "\n".join(f"- {secret}" for secret in SECRETS))
    await memory.sync(TurnRecord(SECRETS[0], "ok", "telegram", NOW, "ana", "zoe"))
    stored = _all_text(memory.path)
    for needle in ("hunter2", "83jd92kd", "sk-ant-api03", "ghp_abcdef"):
        assert needle not in stored
    assert _rows(memory.path, "SELECT COUNT(*) FROM items") == [(0,)]


async def test_trivia_and_ephemera_are_rejected_unless_forced(memory: SqliteFtsMemory) -> None:
    for text in ("ok", "kkkk valeu", "I'm eating lunch right now", "what time is it?"):
        result = await memory.add(text, source="test")
        assert not result.stored and result.category is None
        assert result.reason.startswith("rejected")
    assert _rows(memory.path, "SELECT COUNT(*) FROM items") == [(0,)]
    forced = await memory.add("I'm eating lunch right now", source="cli", force=True)
    assert forced.stored and forced.category == "fact"
    explained = await memory.explain(str(forced.item_id))
    assert explained["confidence"] < 0.5
    assert "forced" in explained["reason"]
    chosen = await memory.add("ok then", source="cli", category="decision", force=True)
    assert chosen.category == "decision"


async def test_accepted_write_keeps_the_policy_category(memory: SqliteFtsMemory) -> None:
    result = await memory.add("We decided to sell the car next spring.", source="cli")
    assert result.stored and result.category == "decision" and result.item_id
    item = (await memory.list_items())[0]
    assert (item.text, item.category, item.source) == (
        "We decided to sell the car next spring.",
        "decision",
        "cli",
    )


async def test_duplicates_reinforce_instead_of_repeating(memory: SqliteFtsMemory) -> None:
    first = await memory.add("I drink my coffee without sugar.", source="telegram 2026-11-01")
    again = await memory.add("i drink my COFFEE without sugar!", source="matrix 2026-11-20")
    assert not again.stored and again.duplicate_of == first.item_id
    assert again.reason == f"reinforced existing memory {first.item_id}"
    assert _rows(memory.path, "SELECT COUNT(*) FROM items") == [(1,)]
    details = await memory.explain(str(first.item_id))
    assert details["reinforced"] == 1
    kinds = [event["kind"] for event in details["history"]]
    assert kinds == ["created", "reinforced"]
    assert details["history"][1]["detail"] == "matrix 2026-11-20"


async def test_reinforcement_raises_confidence(memory: SqliteFtsMemory) -> None:
    first = await memory.add("I drink my coffee without sugar.", source="a")
    before = (await memory.explain(str(first.item_id)))["confidence"]
    await memory.add("I drink my coffee without sugar.", source="b")
    after = (await memory.explain(str(first.item_id)))["confidence"]
    assert before < after <= 0.99


async def test_overlong_memory_is_refused_with_a_reason(memory: SqliteFtsMemory) -> None:
    result = await memory.add("I like tea. " * 400, source="cli", force=True)
    assert not result.stored
    assert str(MAX_ITEM_CHARS) in result.reason and "too long" in result.reason
    megabyte = await memory.add("x" * 1_000_000, source="cli", force=True)
    assert not megabyte.stored
    assert _rows(memory.path, "SELECT COUNT(*) FROM items") == [(0,)]


async def test_sync_stores_user_candidates_with_platform_and_date(
    memory: SqliteFtsMemory,
) -> None:
    turn = TurnRecord(
        "I live in Porto. ok. My cat is called Miso and she hates the vacuum cleaner.",
        "Noted!",
        "telegram",
        datetime(2026, 11, 29, 9, 30, tzinfo=UTC),
        "ana",
        "zoe",
    )
    await memory.sync(turn)
    items = await memory.list_items()
    assert {item.source for item in items} == {"telegram 2026-11-29"}
    assert sorted(item.text for item in items) == [
        "I live in Porto.",
        "My cat is called Miso and she hates the vacuum cleaner.",
    ]
    # the reply is kept as an episode (what was said), never as a durable fact
    assert not any("Noted" in item.text for item in items)
    assert (await memory.stats())["episodes"] == {"active": 2}
    # extract over the same session records nothing new and does not double-count
    assert await memory.extract([turn]) == 0
    assert all(item.reinforced == 0 for item in await memory.list_items())


async def test_extract_counts_new_items_and_reinforces_repeats(memory: SqliteFtsMemory) -> None:
    day = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
    turns = [
        TurnRecord("I work as a nurse at the hospital.", "", "discord", day, "ana", "zoe"),
        TurnRecord(
            "Remember that I work as a nurse at the hospital.",
            "",
            "discord",
            day.replace(hour=11),
            "ana",
            "zoe",
        ),
        TurnRecord(
            "I work as a nurse at the hospital.", "", "discord", day.replace(hour=12), "ana", "zoe"
        ),
        TurnRecord("hahaha", "", "discord", day, "ana", "zoe"),
    ]
    # the request to remember is kept as the fact it asks for: one item, said three times
    assert await memory.extract(turns) == 1
    nurse = [i for i in await memory.list_items() if i.text == "I work as a nurse at the hospital."]
    assert nurse[0].reinforced == 2


async def test_mirror_supersedes_removed_lines_and_keeps_them(memory: SqliteFtsMemory) -> None:
    await memory.mirror("MEMORY.md", "# Memory\n\n- I live in Lisbon.\n- My cat is called Miso.\n")
    assert {i.source for i in await memory.list_items()} == {"MEMORY.md"}
    await memory.mirror("MEMORY.md", "# Memory\n\n- I live in Lisbon.\n")
    active = [i.text for i in await memory.list_items()]
    assert active == ["I live in Lisbon."]
    everything = {i.text: i.status for i in await memory.list_items(include_inactive=True)}
    assert everything["My cat is called Miso."] == "superseded"
    assert await memory.search("Miso") == []
    # the line comes back: the same item is active again, not a copy
    await memory.mirror("MEMORY.md", "- I live in Lisbon.\n- My cat is called Miso.\n")
    assert len(await memory.list_items(include_inactive=True)) == 2
    assert [h.item.text for h in await memory.search("Miso")] == ["My cat is called Miso."]
    # mirroring the same text again changes nothing
    await memory.mirror("MEMORY.md", "- I live in Lisbon.\n- My cat is called Miso.\n")
    assert all(i.reinforced == 0 for i in await memory.list_items())


async def test_mirror_of_a_known_fact_reinforces_it_and_never_supersedes_it(
    memory: SqliteFtsMemory,
) -> None:
    said = await memory.add("My sister Ana lives in Porto.", source="telegram 2026-11-01")
    await memory.mirror("USER.md", "* My sister Ana lives in Porto.\n")
    details = await memory.explain(str(said.item_id))
    assert details["reinforced"] == 1 and details["source"] == "telegram 2026-11-01"
    await memory.mirror("USER.md", "")
    assert (await memory.explain(str(said.item_id)))["status"] == "active"


async def test_forget_keeps_the_row_and_it_stays_explainable(memory: SqliteFtsMemory) -> None:
    result = await memory.add("I am allergic to peanuts.", source="cli")
    assert await memory.forget(str(result.item_id))
    assert await memory.search("peanuts") == []
    assert await memory.list_items() == []
    details = await memory.explain(str(result.item_id))
    assert details["status"] == "forgotten" and details["text"] == "I am allergic to peanuts."
    assert details["history"][-1]["kind"] == "forgotten"
    assert _rows(memory.path, "SELECT status FROM items") == [("forgotten",)]
    assert await memory.forget("999") is False
    assert await memory.forget("not-an-id") is False
    assert await memory.explain("999") == {}
    # saying it again after forgetting stores it anew
    again = await memory.add("I am allergic to peanuts.", source="cli")
    assert again.stored and again.duplicate_of is None


async def test_the_engine_cannot_delete_items(memory: SqliteFtsMemory) -> None:
    await memory.add("I am allergic to peanuts.", source="cli")
    with sqlite3.connect(memory.path) as db, pytest.raises(sqlite3.DatabaseError, match="never"):
        db.execute("DELETE FROM items")


async def test_inject_stats_and_export(memory: SqliteFtsMemory) -> None:
    assert await memory.inject() == ""
    await memory.add("I prefer short answers without emojis.", source="telegram 2026-11-02")
    await memory.add("We decided to eat vegetarian on Mondays.", source="telegram 2026-11-03")
    await memory.add("My blood type is A positive.", source="telegram 2026-11-04")
    await memory.mirror("MEMORY.md", "- I prefer tea in the evening.")
    block = await memory.inject()
    assert "short answers" in block and "vegetarian" in block
    assert "[preference · telegram 2026-11-02 · " in block
    assert "blood type" not in block and "tea in the evening" not in block
    # the most reinforced first
    await memory.add("We decided to eat vegetarian on Mondays.", source="telegram 2026-11-05")
    block = await memory.inject()
    assert block.index("vegetarian") < block.index("short answers")
    await memory.forget("3")
    stats = await memory.stats()
    assert stats["items"] == 4
    assert stats["by_status"] == {"active": 3, "forgotten": 1}
    assert stats["backend"] == "sqlite-fts5" and stats["schema_version"] == SCHEMA_VERSION
    exported = await memory.export()
    assert [row["status"] for row in exported] == ["active", "active", "forgotten", "active"]
    assert {"id", "text", "category", "source", "confidence", "created", "last_seen"} <= set(
        exported[0]
    )


def test_mirror_lines_are_the_file_facts() -> None:
    text = (
        "# About Ana\n\n"
        "- Lives in Porto.\n"
        "* Works as a nurse.\n"
        "1. Has a cat called Miso.\n"
        "- [x] Booked the dentist for March.\n"
        "---\n"
        "```\nnot a fact\n```\n"
        "| table | row |\n"
        "Plain line fact.\n"
        "- Lives in Porto.\n"
    )
    assert mirror_lines(text) == [
        "Lives in Porto.",
        "Works as a nurse.",
        "Has a cat called Miso.",
        "Booked the dentist for March.",
        "Plain line fact.",
    ]
