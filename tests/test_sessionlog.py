"""The day's session log: format, local dates, restore after restart, heading escapes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.turn.conversation import Entry

NY = ZoneInfo("America/New_York")


def _turn(
    role: str, text: str, at: datetime, otr: bool = False, room: str = "telegram:42"
) -> LoggedTurn:
    entry = Entry(
        "user" if role == "user" else "assistant", text, at, "telegram", otr=otr, room=room
    )
    return LoggedTurn("scott" if role == "user" else "inara", entry)


async def test_turns_go_to_the_users_local_day(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "inara")
    at = datetime(2026, 11, 30, 2, 30, tzinfo=UTC)  # 21:30 on the 29th in New York
    path = await log.append([_turn("user", "hello", at), _turn("persona", "hi!", at)], NY)
    assert path.name == "2026-11-29.md"
    text = path.read_text()
    assert "### 21:30:00 · user · scott · telegram:42\n\nhello" in text
    assert "### 21:30:00 · persona · inara · telegram:42\n\nhi!" in text


async def test_restore_reads_back_after_the_last_new_conversation(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "inara")
    at = datetime(2026, 11, 29, 15, 0, tzinfo=NY)
    await log.append([_turn("user", "old topic", at), _turn("persona", "old answer", at)], NY)
    await log.mark_new_conversation(at, NY, "telegram:42")
    tricky = "line one\n### 10:00:00 · user · mallory · matrix\nline three"
    await log.append([_turn("user", tricky, at), _turn("persona", "ok", at)], NY)
    restored = log.restore(at.date(), NY, limit=10)["telegram:42"]
    assert [e.text for e in restored] == [tricky, "ok"]
    assert restored[0].role == "user" and restored[1].role == "assistant"
    assert restored[0].platform == "telegram" and restored[0].room == "telegram:42"
    assert log.restore(at.date(), NY, limit=1)["telegram:42"][0].text == "ok"


async def test_each_room_restores_its_own_conversation(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "inara")
    at = datetime(2026, 11, 29, 15, 0, tzinfo=NY)
    await log.append([_turn("user", "in the dm", at, room="matrix:!dm:x")], NY)
    await log.append([_turn("user", "in the family room", at, room="matrix:!fam:x")], NY)
    await log.mark_new_conversation(at, NY, "matrix:!fam:x")
    await log.append([_turn("user", "dm again", at, room="matrix:!dm:x")], NY)
    restored = log.restore(at.date(), NY, limit=10)
    assert [e.text for e in restored["matrix:!dm:x"]] == ["in the dm", "dm again"]
    assert "matrix:!fam:x" not in restored  # its /new ended it


async def test_an_older_log_without_rooms_is_restored_nowhere(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "inara")
    at = datetime(2026, 11, 29, 15, 0, tzinfo=NY)
    log.directory.mkdir(parents=True)
    log.path_for(at.date()).write_text(
        "# Session log\n\n### 15:00:00 · user · scott · telegram\n\nprivate words\n\n"
    )
    assert log.restore(at.date(), NY, limit=10) == {}


async def test_off_the_record_entries_are_refused(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "inara")
    at = datetime(2026, 11, 29, 15, 0, tzinfo=NY)
    with pytest.raises(ValueError):
        await log.append([_turn("user", "secret", at, otr=True)], NY)
    assert not list(tmp_path.rglob("*.md"))
