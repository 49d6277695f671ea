"""A name said to the one spoken to ("Hey Mel!", "Thanks, Inara!") is not what a message is
about: it is not indexed, so a question that names that person finds what was said about
them, not every greeting."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.addressed_names import message_terms, unaddressed
from bot.memory.base import MemoryHit, TurnRecord
from bot.memory.episodes.file import EPISODE_FILE
from bot.memory.episodes.question_asked import question_in
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.stemming import index_terms

__all__: list[str] = []

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


def blanked(text: str) -> list[str]:
    """The words :func:`unaddressed` took out of ``text``."""
    kept = unaddressed(text)
    assert len(kept) == len(text)
    return [word for word in text.split() if word not in kept.split()]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hey Mel! Good to see you!", "Mel!"),
        ("Hi, Caroline! How have you been?", "Caroline!"),
        ("Thanks so much, Caroline!", "Caroline!"),
        ("Good to see you, Mel!", "Mel!"),
        ("What about you, Caroline?", "Caroline?"),
        ("Morning Inara! The sun is out.", "Inara!"),
        ("Hi Dr Okafor, the dog is fine.", "Dr Okafor,"),
        ("Oh hello Inara, long day.", "Inara,"),
        ("Bom dia Inara! Dormiste bem?", "Inara!"),
        ("Obrigada, Ana!", "Ana!"),
        ("Olá Rui, lembras-te do jantar?", "Rui,"),
        ("Tu és uma máquina, Joana. Aqui foi calmo.", "Joana."),
        ("Vou dormir. Abraço, Rui!", "Rui!"),
        ("You'll be fine, George. My brother had it done.", "George."),
        ("How did the dentist appointment go, Ana?", "Ana?"),
        ("The seals are on. Well done, Dad.", "Dad."),
        ("Ai Joana, que momento.", "Joana,"),
    ],
)
def test_a_name_said_to_someone_is_taken_out(text: str, name: str) -> None:
    assert " ".join(blanked(text)) == name


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Porto, Portugal.",
        "Honestly, I think so.",
        "Last night, Sarah came over.",
        "'WELCOME HOME', Milo insisted.",
        "Hi, Ingrid again, Amara lent me the phone.",
        "Hi I'm back from the clinic.",
        "hey mel",  # no capital: no name to tell
        "We saw Caroline at the market and she waved.",
        "Caroline: I went to a support group yesterday.",
        "The welcome sign at Kingston was lovely.",
        "Morning runs with Ana are the best part of the week.",
        "Good luck Thursday. Call me after.",
        "Oh no, RIP Gus!! Are you ok?",
        "Amazing, you booked it already.",
    ],
)
def test_a_name_said_about_someone_stays(text: str) -> None:
    assert unaddressed(text) == text
    assert message_terms(text) == index_terms(text)


def test_the_index_keeps_every_other_word_of_a_greeting() -> None:
    assert message_terms("Hey Mel! The bakery job starts Monday.") == index_terms(
        "Hey! The bakery job starts Monday."
    )


async def _greeted(memory: SqliteFtsMemory | HolographicMemory) -> None:
    """A month of chats with a persona called Inara: greetings by name most days, and one
    message that says where the user's dentist is."""
    for day in range(20):
        at = NOW - timedelta(days=30 - day)
        said = ["Morning Inara!", "Thanks, Inara!", "Hey Inara, quick one."][day % 3]
        await memory.sync(TurnRecord(said, "Hello! What's up?", "telegram", at, "ana", "inara"))
        if day == 7:
            await memory.sync(
                TurnRecord(
                    "The dentist moved her practice to Rua Augusta, next to the bakery.",
                    "Easier to get to.",
                    "telegram",
                    at + timedelta(minutes=5),
                    "ana",
                    "inara",
                )
            )


def _texts(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.context or hit.item.text for hit in hits]


@pytest.fixture(params=["sqlite", "holographic"])
async def memory(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[SqliteFtsMemory | HolographicMemory]:
    backend: SqliteFtsMemory | HolographicMemory = (
        SqliteFtsMemory(tmp_path, now=lambda: NOW)
        if request.param == "sqlite"
        else HolographicMemory(tmp_path, now=lambda: NOW)
    )
    async with backend:
        yield backend


async def test_a_question_naming_the_persona_finds_no_greeting(
    memory: SqliteFtsMemory | HolographicMemory,
) -> None:
    await _greeted(memory)
    hits = await memory.prefetch("Inara, where is the dentist now?", limit=5)
    assert _texts(hits)[0].startswith("The dentist moved")
    assert not any("Inara" in text for text in _texts(hits))
    # the greetings themselves are still kept, and found by what else they say
    found = _texts(await memory.prefetch("quick one", limit=3))
    assert "Hey Inara, quick one." in found


async def test_a_name_said_about_someone_still_finds_the_message(
    memory: SqliteFtsMemory | HolographicMemory,
) -> None:
    await _greeted(memory)
    told = "Inara is the name my sister picked for you, after a character she loved."
    await memory.sync(TurnRecord(told, "I like it.", "telegram", NOW, "ana", "inara"))
    hits = await memory.prefetch("who picked the name Inara?", limit=3)
    assert _texts(hits)[0] == told


@pytest.mark.parametrize(
    ("kind", "file", "version"),
    [(SqliteFtsMemory, "memory.db", 11), (HolographicMemory, EPISODE_FILE, 6)],
)
async def test_messages_kept_before_the_upgrade_lose_the_names_they_were_said_to(
    tmp_path: Path, kind: type[SqliteFtsMemory] | type[HolographicMemory], file: str, version: int
) -> None:
    """A store written before v12 indexed "Morning Inara!" by "inara", and an answer to "How
    did the dentist appointment go, Ana?" by "ana" too: once opened, neither is."""
    memory = kind(tmp_path, now=lambda: NOW)
    await memory.open()
    await _greeted(memory)
    at = NOW - timedelta(days=2)
    asked = "How did the dentist appointment go, Ana?"
    answer = "A new filling, nothing more."
    await memory.sync(TurnRecord("Back from the clinic.", asked, "telegram", at, "ana", "inara"))
    await memory.sync(
        TurnRecord(answer, "Good.", "telegram", at + timedelta(minutes=1), "ana", "inara")
    )
    await memory.close()
    with sqlite3.connect(tmp_path / file) as db:
        rows = db.execute(
            "SELECT e.id, e.text, e.terms, q.text FROM episodes e"
            " LEFT JOIN episodes q ON q.id = e.answers"
        ).fetchall()
        for rowid, text, terms, question in rows:
            old = index_terms(text)  # as every message was indexed before v12
            if question is not None:
                old = f"{old} {index_terms(question_in(question) or '')}"
            if old != terms:
                db.execute(
                    "INSERT INTO episodes_fts (episodes_fts, rowid, terms) VALUES ('delete', ?, ?)",
                    (rowid, terms),
                )
                db.execute("UPDATE episodes SET terms = ? WHERE id = ?", (old, rowid))
                db.execute("INSERT INTO episodes_fts (rowid, terms) VALUES (?, ?)", (rowid, old))
        assert (
            "ana"
            in db.execute("SELECT terms FROM episodes WHERE text = ?", (answer,))
            .fetchone()[0]
            .split()
        )
        db.execute("DROP TABLE renew_words")
        db.execute("DELETE FROM schema_version WHERE version > ?", (version,))
    upgraded = kind(tmp_path, now=lambda: NOW)
    await upgraded.open()
    try:
        hits = await upgraded.prefetch("Inara, where is the dentist now?", limit=5)
        assert not any("Inara" in text for text in _texts(hits))
        assert answer in _texts(await upgraded.prefetch("dentist appointment", limit=5))
    finally:
        await upgraded.close()
    with sqlite3.connect(tmp_path / file) as db:
        assert db.execute("SELECT count(*) FROM renew_words").fetchone() == (0,)
        (terms,) = db.execute("SELECT terms FROM episodes WHERE text = ?", (answer,)).fetchone()
        assert "ana" not in terms.split()
        assert "dentist" in terms.split()
