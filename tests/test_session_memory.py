"""Memory through the session: recall into the prompt, compaction that never forgets, OTR."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.daemon.daemon import Daemon
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon


class Chat:
    def __init__(self, daemon: Daemon, adapter: RecordingAdapter, llm: ScriptedLLM) -> None:
        self.daemon, self.adapter, self.llm = daemon, adapter, llm
        self.n = 0

    async def say(self, text: str) -> None:
        self.n += 1
        await self.adapter.deliver(text, sender="scott", event_id=f"m{self.n}")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Chat]:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    # a small model: 4,096 tokens, so a few dozen turns overflow it
    config.llm.backends["scripted"].context_window = 4096
    config.prompt.default_tier = 1
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    yield Chat(daemon, adapter, llm)
    await daemon.stop()


def _memory_rows(data: Path) -> list[str]:
    db = data / "scott/persona/inara/memory.db"
    con = sqlite3.connect(db)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        table = "items" if "items" in tables else tables[0]
        return [str(row) for row in con.execute(f"SELECT * FROM {table}")]
    finally:
        con.close()


async def test_a_fact_survives_compaction_and_comes_back_through_recall(
    chat: Chat, tmp_path: Path
) -> None:
    await chat.say("My sister Beatriz lives in Porto and works as an architect.")
    filler = (
        "Today I reorganised the garage shelves, sorted screws by size, and labelled every "
        "drawer so nothing gets lost again. "
    )
    for i in range(40):
        await chat.say(f"Update {i}: {filler}")
    session = chat.daemon.sessions.all()[0]  # type: ignore[union-attr]
    (conversation,) = session.rooms.values()
    entries = conversation.entries
    assert any(e.kind == "pointer" for e in entries), "the conversation was compacted"
    texts_in_window = " ".join(e.text for e in entries if e.kind == "turn")
    assert "Beatriz" not in texts_in_window
    await chat.say("Where does Beatriz live?")
    prompt = chat.llm.calls[-1].system.dynamic
    assert "Recalled memories" in prompt
    recalled = [line for line in prompt.splitlines() if "Beatriz" in line]
    assert recalled and "Porto" in recalled[0]
    assert "[fact ·" in recalled[0] or "[" in recalled[0]


async def test_off_the_record_never_reaches_the_memory_store(chat: Chat, tmp_path: Path) -> None:
    await chat.say("I prefer green tea in the morning.")
    await chat.say("/otr on")
    await chat.say("My bank is Banco Azul and I am switching to Banco Verde next month.")
    await chat.say("/otr off")
    await chat.say("/new")
    rows = " ".join(_memory_rows(tmp_path))
    assert "green tea" in rows
    assert "Banco" not in rows
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"Banco Verde" not in path.read_bytes(), path


async def test_secrets_are_never_stored(chat: Chat, tmp_path: Path) -> None:
    await chat.say(
        "My password is hunter2-Correct-Horse and my api key is sk-ant-api03-abcdefghijklmnopqrstuv"
    )
    await chat.say("/new")
    rows = " ".join(_memory_rows(tmp_path))
    assert "hunter2" not in rows and "sk-ant-api03" not in rows


async def test_a_past_story_comes_back_as_an_episode_after_the_conversation_moved_on(
    chat: Chat, tmp_path: Path
) -> None:
    await chat.say("Went to Sintra with Marta yesterday, the palace was closed for repairs.")
    await chat.say("/new")  # a fresh conversation: only memory can bring it back
    await chat.say("When did I go to Sintra?")
    prompt = chat.llm.calls[-1].system.dynamic
    recalled = [line for line in prompt.splitlines() if "palace was closed" in line]
    assert recalled and "[episode · " in recalled[0] and " · dm]" in recalled[0]
