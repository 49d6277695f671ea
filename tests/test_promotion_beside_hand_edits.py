"""Promotion into USER.md / MEMORY.md as a user lives with it for months: a secret the door
withheld leaves no line behind, a fact the file says already is not written twice, and
``/undo`` brings back the lines that gave way even after a hand edit."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count
from pathlib import Path

from bot.memory.base import TurnRecord
from bot.persona.identity.undo import undo_last
from bot.persona.promotion import Promoter
from bot.persona.store import PersonaStore
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

AT = datetime(2026, 5, 9, 12, 0, tzinfo=UTC)


def _turn(text: str, room: str = "direct") -> TurnRecord:
    return TurnRecord(text, "Noted.", "console", AT, "scott", "inara", room)  # type: ignore[arg-type]


async def test_a_secret_withheld_at_the_door_leaves_no_line_in_user_md(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    user_md = tmp_path / "scott/persona/inara/USER.md"
    before = user_md.read_text()
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=ScriptedLLM())
    ids = count()

    async def say(text: str) -> None:
        await adapter.deliver(text, sender="scott", room="dm", event_id=f"e{next(ids)}")

    try:
        await say("Remember that my wifi password is hunter2hunter2.")
        await say("/new")
        text = user_md.read_text()
        assert "hunter2" not in text
        assert "secret withheld" not in text and "wifi" not in text
        assert text == before
    finally:
        await daemon.stop()


async def test_a_fact_the_file_says_already_is_not_promoted_again(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    user_md.write_text("# About scott\n\n- I live in Lisbon.\n")
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    for said in ("Remember that I live in Lisbon.", "remember that i live in LISBON"):
        done = await promoter.promote([_turn(said)], user="scott", persona="inara", at=AT)
        assert done == []
    assert user_md.read_text() == "# About scott\n\n- I live in Lisbon.\n"


async def test_undo_after_a_hand_edit_brings_back_the_lines_that_gave_way(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    hand = "# About scott\n\n- Scott plays the cello.\n"
    user_md.write_text(hand)
    store = PersonaStore(tmp_path)
    promoter = Promoter(store, lambda name: len(hand) + 200)
    facts = [
        "my first car was a blue Fiat Panda from 1998",
        "my favourite band has always been Radiohead",
        "my daughter Rita was born in March 2019",
    ]
    for fact in facts:
        await promoter.promote(
            [_turn(f"Remember that {fact}.")], user="scott", persona="inara", at=AT
        )
    assert "Fiat" not in user_md.read_text()
    # the user adds a line of their own under the promoted ones, then takes the last back
    user_md.write_text(user_md.read_text() + "- Scott also plays the piano.\n")
    await undo_last(store, "scott", "inara", at=AT)
    text = user_md.read_text()
    assert "Rita" not in text
    assert "cello" in text and "- Scott also plays the piano.\n" in text
    assert "- my first car was a blue Fiat Panda from 1998 <!-- trait:promoted:" in text
    assert text.index("Fiat") < text.index("Radiohead") < text.index("piano")
