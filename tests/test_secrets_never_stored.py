"""Secrets never reach disk: memory writes, extraction, mirrors, distillation, the changelog.

Each test writes through the real path (the sqlite-fts5 store, the persona's session logs
and distiller, the identity observer) and then reads the files back as bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.memory.base import TurnRecord
from bot.memory.distill.distiller import Distiller
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.policy import redact_secrets, split_candidates, withhold_sentences
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.persona.identity.changelog import CHANGELOG_FILE, Change, render
from bot.persona.identity.observer import IdentityObserver
from bot.persona.identity.state import flush_states
from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.persona.store import PersonaStore
from bot.turn.conversation import Entry
from tests.harness import ScriptedLLM, make_config, make_persona

__all__: list[str] = []

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
#: (what a person writes, the secret values in it)
SAID = [
    ("my password is below.\nhunter2!", ["hunter2"]),
    ("Use Lavender#19 as my gmail password", ["Lavender#19"]),
    ("pw for the router is Admin4321!", ["Admin4321"]),
    ("the wifi key is Seagull-4471", ["Seagull-4471"]),
    ("Card 4111 1111 1111 1111, CVV 737, exp 11/27", ["4111 1111", "737", "11/27"]),
    ("my IBAN is GB82 WEST 1234 5698 7654 32", ["5698 7654"]),
    ("meu cpf 11144477735", ["11144477735"]),
    ("Minha senha do banco está abaixo.\nJacaré#2020", ["Jacaré#2020"]),
    ("senha do roteador:\n- Coruja_Azul4", ["Coruja_Azul4"]),
]
VALUES = [value for _text, values in SAID for value in values]


def _bytes_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _leaks(folder: Path) -> list[str]:
    stored = _bytes_under(folder)
    return [value for value in VALUES if value.encode() in stored]


def _turn(text: str) -> TurnRecord:
    return TurnRecord(
        user_text=text, reply_text="ok", platform="telegram", at=NOW, user="ana", persona="zoe"
    )


def test_a_value_on_the_line_after_its_keyword_is_a_secret() -> None:
    text = "I moved to Porto last year.\nmy password is below.\nhunter2!\nI love the river."
    assert redact_secrets(text) == (
        "I moved to Porto last year.\nmy password is below.\n[secret withheld: password]\n"
        "I love the river."
    )
    assert split_candidates(text) == ["I moved to Porto last year.", "I love the river."]


def test_redaction_keeps_ordinary_text_and_is_stable() -> None:
    text = "I changed my bank password today. My bank is Itaú."
    assert redact_secrets(text) == text
    once = redact_secrets("my pin is 4821 and the wifi is slow")
    assert "4821" not in once
    assert redact_secrets(once) == once


def test_whole_sentences_are_withheld_for_a_remote_store() -> None:
    text = "I love Lisbon. The wifi is slow.\nrouter admin password:\nadmin!Rt55x\nbye"
    assert withhold_sentences(text, "[x]") == (
        "I love Lisbon. The wifi is slow.\nrouter admin password:\n[x]\nbye"
    )


@pytest.fixture
async def fts(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


async def test_memory_add_of_a_secret_stores_nothing_even_forced(
    fts: SqliteFtsMemory, tmp_path: Path
) -> None:
    for text, _values in SAID:
        plain = await fts.add(text, source="test")
        forced = await fts.add(text, source="test", category="fact", force=True)
        assert not plain.stored and not forced.stored, text
        assert "secret" in forced.reason and "never stored" in forced.reason
    await fts.close()
    assert _leaks(tmp_path) == []


async def test_extraction_and_mirrors_keep_the_facts_but_no_secret(
    fts: SqliteFtsMemory, tmp_path: Path
) -> None:
    for text, _values in SAID:
        await fts.sync(_turn(f"I work as a nurse at the hospital.\n{text}"))
    await fts.extract([_turn(text) for text, _values in SAID])
    await fts.mirror(
        "USER.md", "# Ana\n- Ana is a nurse in Porto.\n- wifi password:\n- Lagarto2019\n"
    )
    kept = [item.text for item in await fts.list_items()]
    assert "I work as a nurse at the hospital." in kept
    assert "Ana is a nurse in Porto." in kept
    assert not any("password" in text for text in kept)
    await fts.close()
    assert _leaks(tmp_path) == []
    assert b"Lagarto2019" not in _bytes_under(tmp_path)


async def test_holographic_refuses_a_forced_multi_line_secret(tmp_path: Path) -> None:
    memory = HolographicMemory(tmp_path)
    await memory.open()
    result = await memory.add("my password is below.\nhunter2!", source="test", force=True)
    assert not result.stored and "secret" in result.reason
    await memory.sync(_turn("my password is below.\nhunter2!"))
    await memory.close()
    assert b"hunter2" not in _bytes_under(tmp_path)


async def test_short_distillation_writes_no_secret(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    log = SessionLog(directory, "inara")
    at = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    turns = [LoggedTurn("scott", Entry("user", "I planted tomatoes on the balcony.", at))]
    for text, _values in SAID:
        turns.append(LoggedTurn("scott", Entry("user", text, at)))
        turns.append(LoggedTurn("inara", Entry("assistant", "Noted, I won't keep that.", at)))
    turns.append(LoggedTurn("inara", Entry("assistant", "Your wifi key is Seagull-4471.", at)))
    await log.append(turns, ZoneInfo("UTC"))
    await Distiller(make_config(tmp_path), PersonaStore(tmp_path), {}).run(
        "scott", "inara", "short"
    )
    digest = (directory / "MEMORY_SHORT.md").read_text(encoding="utf-8")
    assert "tomatoes" in digest and "[secret withheld: password]" in digest
    assert digest.count("### 09:00:00 · user · scott · console") == len(SAID) + 1
    assert [value for value in VALUES if value in digest] == []


async def test_mid_distillation_redacts_what_the_model_writes(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_SHORT.md").write_text("Scott planted tomatoes.\n")
    llm = ScriptedLLM()
    llm.queue("Scott gardens. His router password is Admin4321! and his PIN is 4821.")
    distiller = Distiller(make_config(tmp_path), PersonaStore(tmp_path), {"scripted": llm})
    assert "updated" in await distiller.run("scott", "inara", "mid")
    mid = (directory / "MEMORY_MID.md").read_text(encoding="utf-8")
    assert mid.startswith("Scott gardens.")
    assert "Admin4321" not in mid and "4821" not in mid


def test_a_changelog_entry_never_quotes_a_secret() -> None:
    change = Change(
        id=1,
        op="apply",
        at="2026-11-29T12:00:00+00:00",
        file="VOICE.md",
        slot="length",
        kind="length",
        value="short",
        explicit=True,
        evidence="be brief, my pin is 4821. " + "x" * 60 + " card 4111 1111 1111 1111 then more",
        bullet_before=None,
        bullet_after="- [length] Keep answers short.",
        section_before="",
        section_after="",
    )
    entry = render(change)
    assert "be brief" in entry and "…" in entry
    assert "4821" not in entry and "4111 1" not in entry


async def test_observed_changes_log_no_secret(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    make_persona(tmp_path, "scott")
    observer = IdentityObserver(store)
    changes = await observer.observe(
        "Please be more concise. My gmail password is Lavender#19",
        user="scott",
        persona="inara",
        at=NOW,
    )
    assert changes
    await flush_states(store)
    changelog = (store.directory("scott", "inara") / CHANGELOG_FILE).read_text(encoding="utf-8")
    assert "be more concise" in changelog.lower()
    assert b"Lavender" not in _bytes_under(store.directory("scott", "inara"))
