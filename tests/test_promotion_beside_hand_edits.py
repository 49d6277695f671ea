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


async def _remember(promoter: Promoter, *said: str) -> None:
    """Each of ``said`` told in a session of its own, in that order."""
    for text in said:
        await promoter.promote([_turn(text)], user="scott", persona="inara", at=AT)


async def test_a_newer_fact_replaces_the_promoted_one_it_contradicts(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    store = PersonaStore(tmp_path)
    promoter = Promoter(store, lambda name: 4000)
    await _remember(
        promoter,
        "Remember that I live in Lisbon.",
        "Remember that my dentist is Dr. Varga.",
        "Remember that my sister is a nurse.",
    )
    await _remember(
        promoter,
        "Please remember that I moved to Porto last month.",
        "Remember that my new dentist is Dr. Silva.",
        "Remember that my sister is pregnant.",
    )
    text = user_md.read_text()
    assert "Porto" in text and "Lisbon" not in text
    assert "Dr. Silva" in text and "Varga" not in text
    # two things true of a sister at once: neither replaces the other
    assert "my sister is a nurse" in text and "my sister is pregnant" in text
    # the replaced line comes back with /undo of the fact that replaced it (the last three
    # undone first)
    for _ in range(3):
        await undo_last(store, "scott", "inara", at=AT)
    text = user_md.read_text()
    assert "Lisbon" in text and "Porto" not in text
    assert "Varga" in text and "Dr. Silva" not in text


async def test_a_portuguese_fact_replaces_the_one_it_contradicts(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    await _remember(
        promoter, "Lembra-te de que moro em Lisboa.", "Lembra-te que trabalho como enfermeira."
    )
    await _remember(
        promoter, "Lembra-te que agora moro no Porto.", "Lembra-te que trabalho como professora."
    )
    text = user_md.read_text()
    assert "Porto" in text and "Lisboa" not in text
    assert "professora" in text and "enfermeira" not in text


async def test_a_fact_typed_all_in_lower_case_replaces_only_what_it_surely_names(
    tmp_path: Path,
) -> None:
    """Someone who never types a capital: a new dentist named after a title replaces the old
    one; "i moved to porto" looks like "i moved to python" and replaces nothing."""
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    await _remember(promoter, "remember that i live in lisbon", "remember my dentist is dr varga")
    await _remember(promoter, "please remember i moved to porto", "remember my dentist is dr silva")
    text = user_md.read_text()
    assert "dr silva" in text and "varga" not in text
    assert "lisbon" in text and "porto" in text


async def test_a_hand_written_line_and_a_fact_of_another_kind_stay(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    user_md.write_text("# About scott\n\n- I live in Lisbon.\n")
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    await _remember(
        promoter,
        "Remember that I work from home on Fridays.",
        "Remember that I live with my sister.",
        "Remember that I moved to Porto.",
    )
    text = user_md.read_text()
    # the user's own line is theirs to change; what is no one-at-a-time fact replaces nothing
    assert "- I live in Lisbon.\n" in text
    assert "I work from home on Fridays" in text and "I live with my sister" in text
    assert "I moved to Porto" in text


async def test_undo_of_a_replacing_fact_names_the_newer_fact(tmp_path: Path) -> None:
    """The change records the line written, not the one it replaced: the changelog and
    /undo's sentence name "I moved to Porto", which is what /undo takes away."""
    directory = make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    promoter = Promoter(store, lambda name: 4000)
    await _remember(promoter, "Remember that I live in Lisbon.", "Remember that I moved to Porto.")
    changelog = (directory / "IDENTITY_CHANGELOG.md").read_text()
    newest = changelog[changelog.rindex("- after:") :].splitlines()[0]
    assert "Porto" in newest and "Lisbon" not in newest
    said = await undo_last(store, "scott", "inara", at=AT)
    assert "no longer says “I moved to Porto" in said, said
    text = (directory / "USER.md").read_text()
    assert "Lisbon" in text and "Porto" not in text
