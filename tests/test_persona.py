"""Persona folders: names, the template, cached reads, atomic writes and the tiered prompt."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.daemon.errors import NameRejected, PersonaError
from bot.memory.base import MemoryHit, MemoryItem
from bot.persona.context import OTR_LINE, build_system_prompt, datetime_line, files_for_tier
from bot.persona.names import validate_name
from bot.persona.store import PERSONA_FILES, PersonaStore, bind_persona, persona_path
from bot.persona.template import create_persona


@pytest.mark.parametrize("name", ["..", "../x", "a/b", ".hidden", "", "a\\b", "x" * 65, "é"])
def test_unsafe_names_are_rejected(name: str) -> None:
    with pytest.raises(NameRejected):
        validate_name(name, "persona")


def test_template_creates_every_file(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    for name in PERSONA_FILES:
        assert (directory / name).is_file(), name
    assert (directory / "sessions").is_dir()
    identity = (directory / "IDENTITY.md").read_text()
    assert "scott" in identity and "{{user}}" not in identity
    with pytest.raises(PersonaError, match="already exists"):
        create_persona(store, "scott", "inara")
    with pytest.raises(PersonaError, match="no persona template"):
        create_persona(store, "scott", "other", template="nonexistent")


def test_template_renames_the_example_persona(tmp_path: Path) -> None:
    directory = create_persona(PersonaStore(tmp_path), "holly", "tina")
    assert "Tina" in (directory / "IDENTITY.md").read_text()
    assert "Inara" not in (directory / "SOUL.md").read_text()


def test_reads_are_cached_by_mtime_and_invalid_utf8_is_reported(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    first = store.read("scott", "inara", "SOUL.md")
    assert store.read("scott", "inara", "SOUL.md") is first
    path = directory / "SOUL.md"
    path.write_text("changed soul")
    os.utime(path, ns=(1, 2_000_000_000_000_000_000))
    assert store.read("scott", "inara", "SOUL.md").text == "changed soul"
    (directory / "VOICE.md").write_bytes(b"caf\xe9 \xff")
    broken = store.read("scott", "inara", "VOICE.md")
    assert broken.text == "" and broken.problem and "UTF-8" in broken.problem
    assert store.read("scott", "inara", "MISSING.md").text == ""
    with pytest.raises(PersonaError):
        store.read("scott", "inara", "../../etc/passwd")


async def test_odd_files_in_place_of_a_persona_file_never_hang_or_crash(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    (directory / "SOUL.md").unlink()
    os.mkfifo(directory / "SOUL.md")  # nobody writes to it: a blocking open would wait forever
    assert store.read("scott", "inara", "SOUL.md").text == ""
    (directory / "VOICE.md").unlink()
    (directory / "VOICE.md").mkdir()
    folder = store.read("scott", "inara", "VOICE.md")
    assert folder.text == "" and folder.problem and "VOICE.md" in folder.problem
    # the same in a disk thread
    assert (await store.load("scott", "inara", "SOUL.md")).text == ""
    assert (await store.load("scott", "inara", "VOICE.md")).problem
    assert (await store.load("scott", "inara", "PERSONA.md")).text.strip()


async def test_writes_are_atomic_and_private(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    await store.write("scott", "inara", "SCRATCH.md", "note\n")
    assert (directory / "SCRATCH.md").read_text() == "note\n"
    assert (directory / "SCRATCH.md").stat().st_mode & 0o077 == 0
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_persona_path_follows_the_context(tmp_path: Path) -> None:
    with pytest.raises(PersonaError):
        persona_path("SOUL.md")
    with bind_persona(tmp_path, "scott", "inara"):
        assert persona_path("SOUL.md") == tmp_path / "scott/persona/inara/SOUL.md"
        with pytest.raises(PersonaError):
            persona_path("..")


def _prompt(store: PersonaStore, tier: int, **kw: object):  # type: ignore[no-untyped-def]
    now = datetime(2026, 5, 9, 14, 34, tzinfo=ZoneInfo("America/New_York"))
    return build_system_prompt(
        read=lambda name: store.read("scott", "inara", name),
        limit=lambda name: 100,
        tier=tier,
        now=now,
        otr=bool(kw.pop("otr", False)),
        **kw,  # type: ignore[arg-type]
    )


def test_tiers_add_files_in_order(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    for name in files_for_tier(4):
        (directory / name).write_text(f"content of {name}")
    tier1 = _prompt(store, 1).stable
    assert "--- IDENTITY.md ---" in tier1 and "SOUL.md" not in tier1
    tier2 = _prompt(store, 2).stable
    assert tier2.index("IDENTITY.md") < tier2.index("SOUL.md") < tier2.index("REMINDERS.md")
    assert "MEMORY_LONG.md" not in tier2
    tier3 = _prompt(store, 3).stable
    assert "MEMORY_LONG.md" in tier3 and "SCRATCH.md" not in tier3
    tier4 = _prompt(store, 4).stable
    assert "--- SCRATCH.md ---" in tier4 and "--- TASKS.json ---" in tier4
    (directory / "USER.md").unlink()
    assert "USER.md" not in _prompt(store, 2).stable  # missing files are skipped


def test_long_files_are_cut_with_a_visible_marker(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    directory = create_persona(store, "scott", "inara")
    (directory / "SOUL.md").write_text("s" * 250)
    stable = _prompt(store, 2).stable
    assert "[… SOUL.md cut here: 150 of 250 characters not shown]" in stable


def test_system_block_wording_and_otr_line(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    create_persona(store, "scott", "inara")
    plain = _prompt(store, 2)
    assert plain.dynamic == (
        "--- System ---\nCurrent date and time: Saturday, 2026-05-09 at 02:34 PM EDT"
    )
    otr = _prompt(store, 2, otr=True)
    assert otr.dynamic.endswith(OTR_LINE)
    assert OTR_LINE.startswith("Current mode: Off The Record — this conversation is private")
    assert plain.stable == otr.stable  # the cached prefix does not change with the mode
    nodate = _prompt(store, 2, inject_datetime=False)
    assert nodate.dynamic == ""


def test_recalled_memories_carry_citations(tmp_path: Path) -> None:
    store = PersonaStore(tmp_path)
    create_persona(store, "scott", "inara")
    item = MemoryItem(
        id="1",
        text="Scott takes coffee without sugar",
        category="preference",
        source="telegram 2026-11-02",
        confidence=0.9,
        created_at=datetime(2026, 11, 2),
    )
    prompt = _prompt(store, 2, recalled=[MemoryHit(item, 1.0)])
    assert "- Scott takes coffee without sugar [preference · telegram 2026-11-02 · 0.90]" in (
        prompt.dynamic
    )


def test_datetime_line_format() -> None:
    now = datetime(2026, 5, 9, 14, 34, tzinfo=ZoneInfo("America/New_York"))
    assert datetime_line(now) == "Current date and time: Saturday, 2026-05-09 at 02:34 PM EDT"


def test_templates_are_named_for_personas_and_the_old_names_still_work(tmp_path: Path) -> None:
    from bot.persona.template import TEMPLATE_ALIASES, available_templates

    shipped = available_templates()
    assert {"inara", "developer", "tina", "wintermute"} <= set(shipped)
    assert not {"holly", "brian"} & set(shipped)  # the seed's users, not personas
    store = PersonaStore(tmp_path)
    for old, new in TEMPLATE_ALIASES.items():
        made = create_persona(PersonaStore(tmp_path / old), "scott", "p", template=old)
        again = create_persona(PersonaStore(tmp_path / new), "scott", "p", template=new)
        for name in PERSONA_FILES:
            assert (made / name).read_text() == (again / name).read_text(), name
    with pytest.raises(PersonaError, match="no persona template named 'nobody'"):
        create_persona(store, "scott", "x", template="nobody")
