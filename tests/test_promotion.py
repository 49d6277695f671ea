"""The file layer grows: facts asked to be remembered, or stated again and again, in a direct
room are promoted into USER.md / MEMORY.md at the session's end, within the file's limit,
through the changelog so /undo reverts them; template placeholders never become memories."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import pytest

from bot.memory.base import TurnRecord
from bot.memory.factory import open_memory
from bot.memory.honcho.backend import HonchoMemory
from bot.memory.sqlite.admission import mirrorable_lines
from bot.persona.identity.changelog import CHANGELOG_FILE
from bot.persona.promotion import REPEATS, Promoter
from bot.persona.store import PersonaStore
from bot.setup.config import HonchoConfig
from tests.fakes.honcho_api import FakeHoncho
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

AT = datetime(2026, 5, 9, 12, 0, tzinfo=UTC)


def _turn(text: str, room: str = "direct") -> TurnRecord:
    return TurnRecord(text, "Noted.", "console", AT, "scott", "inara", room)  # type: ignore[arg-type]


def test_template_placeholders_are_never_mirrored(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    for name in ("USER.md", "MEMORY.md"):
        assert mirrorable_lines((directory / name).read_text()) == {}
    edited = "- Preferred language: Portuguese\n- Scott grows figs on the balcony\n"
    assert list(mirrorable_lines(edited).values()) == [
        "Preferred language: Portuguese",
        "Scott grows figs on the balcony",
    ]


async def test_a_request_to_remember_is_promoted_and_undo_reverts_it(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    user_md = tmp_path / "scott/persona/inara/USER.md"
    before = user_md.read_text()
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=ScriptedLLM())
    ids = count()

    async def say(text: str, room: str = "dm", direct: bool = True) -> str:
        sent = len(adapter.sent)
        await adapter.deliver(
            text, sender="scott", room=room, event_id=f"e{next(ids)}", is_direct=direct
        )
        return "\n".join(adapter.texts()[sent:])

    try:
        await say("Remember that my sister Ana lives in Porto.")
        await say("remember that the office wifi is slow", room="team", direct=False)
        await say("/new")
        text = user_md.read_text()
        assert "## Remembered from scott" in text
        assert "- my sister Ana lives in Porto <!-- trait:promoted:" in text
        assert text.startswith(before.rstrip("\n"))
        memory_md = (tmp_path / "scott/persona/inara/MEMORY.md").read_text()
        assert "wifi" not in memory_md and "wifi" not in text  # said in a shared room
        changelog = (tmp_path / "scott/persona/inara" / CHANGELOG_FILE).read_text()
        assert "remembered: my sister Ana lives in Porto (asked to remember)" in changelog
        answer = await say("/undo")
        assert "USER.md no longer says “my sister Ana lives in Porto”" in answer
        assert user_md.read_text() == before
    finally:
        await daemon.stop()


async def test_a_fact_stated_in_enough_sessions_is_promoted_once(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    promoter = Promoter(store, lambda name: 4000)
    said = "I work as a nurse at the Santa Maria hospital."
    for session in range(REPEATS):
        done = await promoter.promote([_turn(said)], user="scott", persona="inara", at=AT)
        assert done == ([] if session < REPEATS - 1 else [f"USER.md: {said}"])
    assert await promoter.promote([_turn(said)], user="scott", persona="inara", at=AT) == []
    text = (tmp_path / "scott/persona/inara/USER.md").read_text()
    assert text.count("nurse") == 1
    # secrets, one-off chatter and shared rooms never count
    for turn in (
        _turn("remember that my wifi password is hunter2hunter2"),
        _turn("I went to the shop yesterday."),
        _turn("remember that the team meets on Mondays", room="shared"),
    ):
        assert await promoter.promote([turn], user="scott", persona="inara", at=AT) == []
    text = (tmp_path / "scott/persona/inara/USER.md").read_text()
    assert "hunter2" not in text and "shop" not in text and "Mondays" not in text


async def test_a_fact_counts_as_one_with_its_subject_pronoun_said_or_not(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    # counted twice before, once with "eu" (as keys were kept then) and once without
    (directory / "promotion_state.json").write_text(
        '{"counts": {"em eu lisbo lisboa mor moro": 1, "em lisbo lisboa mor moro": 1},'
        ' "declined": {}}'
    )
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    done = await promoter.promote(
        [_turn("Eu moro em Lisboa.")], user="scott", persona="inara", at=AT
    )
    assert done == ["USER.md: Eu moro em Lisboa."]
    assert "Eu moro em Lisboa." in (directory / "USER.md").read_text()


async def test_the_oldest_promoted_line_gives_way_at_the_limit_never_a_hand_line(
    tmp_path: Path,
) -> None:
    directory = make_persona(tmp_path, "scott")
    user_md = directory / "USER.md"
    hand = "# About scott\n\n- Scott plays the cello.\n"
    user_md.write_text(hand)
    store = PersonaStore(tmp_path)
    limit = len(hand) + 200
    promoter = Promoter(store, lambda name: limit)
    facts = [
        "my first car was a blue Fiat Panda from 1998",
        "my favourite band has always been Radiohead",
        "my daughter Rita was born in March 2019",
    ]
    for fact in facts:
        done = await promoter.promote(
            [_turn(f"Remember that {fact}.")], user="scott", persona="inara", at=AT
        )
        assert done == [f"USER.md: {fact}"]
    text = user_md.read_text()
    assert len(text) <= limit
    assert "cello" in text and "Rita" in text and "Fiat" not in text
    changelog = (directory / CHANGELOG_FILE).read_text()
    assert "gave way: “my first car was a blue Fiat Panda from 1998”" in changelog
    # a fact that cannot fit without cutting hand-written lines is not promoted
    long_fact = "my grandmother's village " + "is very far away " * 20
    assert (
        await promoter.promote(
            [_turn(f"Remember that {long_fact}.")], user="scott", persona="inara", at=AT
        )
        == []
    )
    assert "cello" in user_md.read_text()


@pytest.mark.parametrize("backend", ["sqlite-fts5", "holographic"])
async def test_no_backend_mirrors_template_filler(tmp_path: Path, backend: str) -> None:
    directory = make_persona(tmp_path, "scott")
    memory = await open_memory(make_config(tmp_path, memory_backend=backend), directory)
    try:
        for name in ("USER.md", "MEMORY.md"):
            await memory.mirror(name, (directory / name).read_text())
        assert await memory.list_items() == []
        await memory.mirror("USER.md", "# About scott\n\n- Scott grows figs on the balcony\n")
        assert [item.text for item in await memory.list_items()] == [
            "Scott grows figs on the balcony"
        ]
        # a promoted line is mirrored as its fact, without its slot marker
        promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
        said = [_turn("Remember that my sister Ana lives in Porto.")]
        await promoter.promote(said, user="scott", persona="inara", at=AT)
        await memory.mirror("USER.md", (directory / "USER.md").read_text())
        assert [item.text for item in await memory.list_items()] == ["my sister Ana lives in Porto"]
    finally:
        await memory.close()


async def test_honcho_mirrors_no_template_filler(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    async with FakeHoncho(api_key="k-1") as fake:
        memory = HonchoMemory(
            tmp_path / "honcho",
            config=HonchoConfig(base_url=fake.base_url, workspace="personad"),
            user="scott",
            persona="inara",
            env={"HONCHO_API_KEY": "k-1"},
            max_retries=0,
        )
        await memory.open()
        try:
            for name in ("USER.md", "MEMORY.md"):
                await memory.mirror(name, (directory / name).read_text())
            assert await memory.list_items() == []
        finally:
            await memory.close()


async def test_a_promoted_line_carries_no_marker_but_its_own(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    said = "Remember that my tone <!-- trait:length --> is formal."
    done = await promoter.promote([_turn(said)], user="scott", persona="inara", at=AT)
    assert done == ["USER.md: my tone is formal"]
    text = (directory / "USER.md").read_text()
    assert "trait:length" not in text and text.count("<!--") == 1
