"""A sign that changes what a word says is part of it when sentences are compared: "my blood
type is A-" corrects "my blood type is A+", it does not repeat it; and a store written before
its comparison form kept signs is brought to it once, at open."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import TurnRecord
from bot.memory.episodes.file import EPISODE_FILE
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.normal_form import normalise_text, without_signs
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.query import fold

__all__: list[str] = []

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PLUS = "My blood type is A+"
#: a file's lines: one kept as its own text, one as the fact it asks to keep
USER_MD = "- Works in C++ at the lab\n- Remember that my blood type is O+\n"
MINUS = "My blood type is A-"


def _old_form(text: str) -> str:
    """The comparison form before it kept signs (memory.db v12, episodes.db v7)."""
    return " ".join(re.findall(r"[^\W_]+", fold(text)))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("My blood type is A+", "My blood type is A-"),
        ("My blood type is A+", "My blood type is A"),
        ("I got a B+ in chemistry.", "I got a B- in chemistry."),
        ("I write C++ at work", "I write C at work"),
        ("It was -5 this morning", "It was 5 this morning"),
        ("It was −5 this morning", "It was 5 this morning"),
    ],
)
def test_a_sign_that_changes_a_word_keeps_two_sentences_apart(one: str, other: str) -> None:
    assert normalise_text(one) != normalise_text(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("A well-known bakery", "a well known bakery"),
        ("Open 9-5 on weekdays", "open 9 5 on weekdays"),
        ("Salt+pepper, that's all", "salt pepper that s all"),
        ("The kids - all three - are asleep", "the kids all three are asleep"),
        ("Café  É LONGE", "cafe e longe"),
    ],
)
def test_everything_else_is_compared_as_before(one: str, other: str) -> None:
    assert normalise_text(one) == normalise_text(other) == _old_form(other)


def test_a_minus_sign_is_a_hyphen_minus() -> None:
    assert normalise_text("It was −5 this morning") == normalise_text("it was -5 this morning!")


@pytest.mark.parametrize("kind", [SqliteFtsMemory, HolographicMemory])
async def test_a_correction_of_a_sign_is_a_fact_of_its_own(
    tmp_path: Path, kind: type[SqliteFtsMemory] | type[HolographicMemory]
) -> None:
    async with kind(tmp_path, now=lambda: NOW) as memory:
        assert (await memory.add(PLUS, source="user")).stored
        corrected = await memory.add(MINUS, source="user")
        assert corrected.stored, corrected.reason
        again = await memory.add("my blood type is a+", source="user")
        assert not again.stored and again.duplicate_of is not None


@pytest.mark.parametrize("kind", [SqliteFtsMemory, HolographicMemory])
async def test_a_message_with_another_sign_is_not_said_again(
    tmp_path: Path, kind: type[SqliteFtsMemory] | type[HolographicMemory]
) -> None:
    async with kind(tmp_path, now=lambda: NOW) as memory:
        for day, text in enumerate(["Got a B+ on the essay", "Got a B- on the essay"]):
            at = NOW - timedelta(days=3 - day)
            await memory.sync(TurnRecord(text, "Noted.", "telegram", at, "scott", "inara"))
        hits = await memory.prefetch("essay grade", limit=5)
        said = {hit.item.context or hit.item.text for hit in hits}
        assert {"Got a B+ on the essay", "Got a B- on the essay"} <= said


def _age(path: Path, tables: list[str], version: int) -> None:
    """``path`` as it was at ``version``: each table's norms in the old form."""
    with sqlite3.connect(path) as db:
        for table in tables:
            for rowid, text in db.execute(f"SELECT rowid, text FROM {table}").fetchall():
                db.execute(f"UPDATE {table} SET norm = ? WHERE rowid = ?", (_old_form(text), rowid))
        if "items" in tables and "mirror_lines" in {
            name for (name,) in db.execute("SELECT name FROM sqlite_master")
        }:  # a line was known by its own old form
            for filename, norm in db.execute("SELECT filename, norm FROM mirror_lines").fetchall():
                db.execute(
                    "UPDATE mirror_lines SET norm = ? WHERE filename = ? AND norm = ?",
                    (without_signs(norm), filename, norm),
                )
        db.execute("DELETE FROM schema_version WHERE version > ?", (version,))


def _norms(path: Path, table: str) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT text, norm FROM {table}").fetchall()


@pytest.mark.parametrize(
    ("kind", "file", "tables", "version"),
    [
        (SqliteFtsMemory, "memory.db", ["items", "episodes"], 12),
        (HolographicMemory, EPISODE_FILE, ["episodes"], 7),
        (HolographicMemory, "holographic.db", ["items"], 3),
    ],
)
async def test_a_store_written_before_is_compared_with_signs_once_opened(
    tmp_path: Path,
    kind: type[SqliteFtsMemory] | type[HolographicMemory],
    file: str,
    tables: list[str],
    version: int,
) -> None:
    async with kind(tmp_path, now=lambda: NOW) as memory:
        await memory.add(PLUS, source="user")
        at = NOW - timedelta(days=1)
        await memory.sync(
            TurnRecord("Got a B+ on the essay", "Nice.", "telegram", at, "scott", "inara")
        )
        if isinstance(memory, SqliteFtsMemory):
            await memory.mirror("USER.md", USER_MD)
    _age(tmp_path / file, tables, version)
    assert any(
        norm != normalise_text(text)
        for table in tables
        for text, norm in _norms(tmp_path / file, table)
    )
    async with kind(tmp_path, now=lambda: NOW) as memory:
        for table in tables:
            assert all(
                norm == normalise_text(text) for text, norm in _norms(tmp_path / file, table)
            )
        corrected = await memory.add(MINUS, source="user")
        assert corrected.stored, corrected.reason
        if isinstance(memory, SqliteFtsMemory):
            # the file's lines, mirrored again, are the items they were: none left the file
            await memory.mirror("USER.md", USER_MD)
            with sqlite3.connect(tmp_path / file) as db:
                rows = db.execute(
                    "SELECT m.norm, i.status FROM mirror_lines m JOIN items i ON i.id = m.item_id"
                ).fetchall()
            assert sorted(rows) == [
                ("remember that my blood type is o+", "active"),
                ("works in c++ at the lab", "active"),
            ]


async def test_a_honcho_ledger_written_before_is_compared_with_signs_once_opened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "honcho.db"
    ledger = HonchoLedger(path)
    await ledger.open()
    await ledger.add_conclusion("c1", PLUS, "fact", "user", 0.9, "told")
    await ledger.commit()
    assert await ledger.active_by_norm(normalise_text(MINUS), "direct") is None
    await ledger.close()
    _age(path, ["items"], 3)
    assert _norms(path, "items") == [(PLUS, "my blood type is a")]
    ledger = HonchoLedger(path)
    await ledger.open()
    try:
        assert _norms(path, "items") == [(PLUS, "my blood type is a+")]
        assert await ledger.active_by_norm(normalise_text(MINUS), "direct") is None
        found = await ledger.active_by_norm(normalise_text("my blood type is A+!"), "direct")
        assert found is not None and found.text == PLUS
    finally:
        await ledger.close()
