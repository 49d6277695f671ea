"""Edits of persona files by hand: logged in the identity changelog, undone one by one,
never undone over a later change, and left alone by the chat's /undo."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.persona.edits import edit_file, undo_change, undoable_changes
from bot.persona.identity.changelog import CHANGELOG_FILE, read_changes
from bot.persona.identity.observer import IdentityObserver
from bot.persona.identity.undo import NOTHING_TO_UNDO, undo_last
from bot.persona.store import PersonaStore
from tests.harness import make_persona


async def test_an_edit_is_logged_and_undone(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    path = tmp_path / "scott/persona/inara/USER.md"
    before = path.read_text()
    assert await edit_file(store, "scott", "inara", "USER.md", "- Likes tea\n", by="scott")
    assert not await edit_file(store, "scott", "inara", "USER.md", "- Likes tea\n", by="scott")
    assert path.read_text() == "- Likes tea\n"
    [change] = await read_changes(store, "scott", "inara")
    assert (change.op, change.file, change.section_before) == ("edit", "USER.md", before)
    log = (tmp_path / "scott/persona/inara" / CHANGELOG_FILE).read_text()
    assert "edited by scott in the web console" in log
    assert await undo_last(store, "scott", "inara") == NOTHING_TO_UNDO  # /undo: not its own

    answer = await undo_change(store, "scott", "inara", change.id, by="scott")
    assert answer.startswith("Undone")
    assert path.read_text() == before
    assert undoable_changes(await read_changes(store, "scott", "inara")) == []
    again = await undo_change(store, "scott", "inara", change.id, by="scott")
    assert "undone already" in again


async def test_an_edit_changed_since_is_not_undone(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    await edit_file(store, "scott", "inara", "AGENTS.md", "first\n", by="scott")
    await edit_file(store, "scott", "inara", "AGENTS.md", "second\n", by="scott")
    first, second = await read_changes(store, "scott", "inara")
    answer = await undo_change(store, "scott", "inara", first.id, by="scott")
    assert "has changed since" in answer
    assert (tmp_path / "scott/persona/inara/AGENTS.md").read_text() == "second\n"
    await undo_change(store, "scott", "inara", second.id, by="scott")
    await undo_change(store, "scott", "inara", first.id, by="scott")
    assert (tmp_path / "scott/persona/inara/AGENTS.md").read_text().startswith("# Projects")


async def test_a_change_the_persona_made_is_undone_from_its_own_entry(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    observer = IdentityObserver(store)
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    assert await observer.observe("please be more concise", user="scott", persona="inara", at=at)
    await edit_file(store, "scott", "inara", "AGENTS.md", "- the garden\n", by="scott")
    learned, edited = await read_changes(store, "scott", "inara")
    assert (learned.op, edited.op) == ("apply", "edit")
    voice = tmp_path / "scott/persona/inara/VOICE.md"
    assert "## Learned from scott" in voice.read_text()
    answer = await undo_change(store, "scott", "inara", learned.id, by="scott")
    assert answer.startswith("Undone")
    assert "## Learned from scott" not in voice.read_text()
    assert (tmp_path / "scott/persona/inara/AGENTS.md").read_text() == "- the garden\n"
    assert [c.id for c in undoable_changes(await read_changes(store, "scott", "inara"))] == [
        edited.id
    ]
