"""The identity observer: VOICE and PERSONA learn from the user, SOUL never changes, /undo."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from structlog.testing import capture_logs

import bot.persona.identity as identity_pkg
from adapters.base import Incoming
from bot.commands.table import CommandContext
from bot.commands.undo import undo_command
from bot.daemon.errors import PersonaError
from bot.persona.identity.changelog import CHANGELOG_FILE, pending_changes, read_changes
from bot.persona.identity.detect import detect
from bot.persona.identity.files import WRITABLE_FILES, write_identity_file
from bot.persona.identity.kinds import KINDS
from bot.persona.identity.observer import IdentityObserver
from bot.persona.identity.state import STATE_FILE, flush_states, load_state
from bot.persona.identity.undo import NOTHING_TO_UNDO, undo_last
from bot.persona.store import PersonaStore
from bot.persona.template import create_persona

USER, PERSONA = "scott", "inara"
T0 = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[PersonaStore]:
    store = PersonaStore(tmp_path)
    create_persona(store, USER, PERSONA)
    yield store
    await flush_states(store)


@pytest.fixture
def observer(store: PersonaStore) -> IdentityObserver:
    return IdentityObserver(store)


def folder(store: PersonaStore) -> Path:
    return store.directory(USER, PERSONA)


def text_of(store: PersonaStore, name: str) -> str:
    return (folder(store) / name).read_text(encoding="utf-8")


async def say(observer: IdentityObserver, text: str, minutes: int = 0) -> list[str]:
    at = T0 + timedelta(minutes=minutes)
    return await observer.observe(text, user=USER, persona=PERSONA, at=at)


# -- reading messages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("please be more concise", "length", "short"),
        ("Could you keep your answers short?", "length", "short"),
        ("be brief. no wait, be more detailed", "length", "detailed"),
        ("Call me Scotty", "user_name", "Scotty"),
        ("call me scotty from now on", "user_name", "Scotty"),
        ("don't use emojis", "emoji", "none"),
        ("answer in Portuguese", "language", "pt"),
        ("I'll call you Ina", "persona_nickname", "Ina"),
        ("explain things simply, I'm not a programmer", "register", "plain"),
        ("ask fewer questions", "initiative", "reactive"),
        ("pode me chamar de Zé", "user_name", "Zé"),
        ("seja mais direta", "length", "short"),
        ("não use emojis, por favor", "emoji", "none"),
        ("responda em inglês", "language", "en"),
        ("vou te chamar de Nina", "persona_nickname", "Nina"),
        ("sem sarcasmo, por favor", "humour", "serious"),
        ("seja mais proativa", "initiative", "proactive"),
        ("respostas mais completas, por favor", "length", "detailed"),
        ("em português, por favor", "language", "pt"),
        ("pode usar emojis", "emoji", "welcome"),
        ("sou dev, pode ser mais técnica", "register", "technical"),
        ("sem formalidades", "formality", "casual"),
        ("em texto corrido", "format", "prose"),
        ("pare de sugerir coisas", "initiative", "reactive"),
    ],
)
def test_explicit_requests_are_read_in_english_and_portuguese(
    text: str, kind: str, value: str
) -> None:
    explicit = [(t.kind, t.value) for t in detect(text, persona=PERSONA) if t.explicit]
    assert (kind, value) in explicit


@pytest.mark.parametrize(
    "text",
    [
        "call me back tomorrow",
        "don't call me Scotty",
        "Call me crazy, but I like it",
        "I'll be brief",
        "the meeting should be short",
        "I write in Portuguese at work",
        "let's be serious about the budget",
        "lol that's gonna be fun",
    ],
)
def test_statements_are_not_taken_for_requests(text: str) -> None:
    assert [t for t in detect(text, persona=PERSONA) if t.explicit] == []


def test_inferred_patterns() -> None:
    def kinds(text: str) -> set[tuple[str, str]]:
        return {(t.kind, t.value) for t in detect(text, persona=PERSONA) if not t.explicit}

    assert ("register", "technical") in kinds("the docker container fails, API returns 500")
    assert ("register", "technical") in kinds("why does this fail?\n```python\nx = 1/0\n```")
    assert ("expertise", "programming") in kinds("the docker container fails, API returns 500")
    assert ("humour", "sarcastic") in kinds("oh great, the train is late again. yeah right")
    assert ("humour", "sarcastic") in kinds("adorei a reunião de 3 horas, só que não")
    assert ("persona_nickname", "Nara") in kinds("thanks so much, Nara!")
    assert ("persona_nickname", "Inara") not in kinds("hey Inara, good morning")
    assert ("emoji", "welcome") in kinds("that was great 😄")
    assert ("language", "pt") in kinds("eu estou pensando em ir ao mercado com você")
    assert ("formality", "casual") in kinds("vc viu isso? kkkk")


# -- applying traits -----------------------------------------------------------------------


async def test_explicit_request_is_applied_at_once_english(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    changes = await say(observer, "Please be more concise. And call me Scotty.")
    assert len(changes) == 2
    assert all(change.startswith("VOICE.md: ") for change in changes)
    voice = text_of(store, "VOICE.md")
    assert "## Learned from scott" in voice
    assert "Keep answers short and direct" in voice
    assert "Call scott “Scotty”." in voice


async def test_explicit_request_is_applied_at_once_portuguese(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    changes = await say(observer, "Pode me chamar de Zé, e seja mais direta. Não use emojis.")
    assert len(changes) == 3
    voice = text_of(store, "VOICE.md")
    assert "Call scott “Zé”." in voice
    assert "Keep answers short and direct" in voice
    assert "No emojis with scott." in voice


async def test_inferred_trait_needs_two_sightings(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    assert await say(observer, "hey Nara, what's on my calendar?") == []
    assert "Nara" not in text_of(store, "VOICE.md")
    changes = await say(observer, "thanks, Nara!", 1)
    assert changes == ["VOICE.md: scott calls me “Nara”; I answer to it happily."]
    assert "scott calls me “Nara”" in text_of(store, "VOICE.md")


async def test_thresholds_are_configurable_per_kind(store: PersonaStore) -> None:
    observer = IdentityObserver(store, thresholds={"humour": 3})
    assert await say(observer, "oh great, another meeting. yeah right") == []
    assert await say(observer, "what could possibly go wrong") == []
    assert await say(observer, "sure, because that always works 🙄") != []
    with pytest.raises(ValueError, match="unknown identity trait kind"):
        IdentityObserver(store, thresholds={"mood": 2})
    with pytest.raises(ValueError, match="humour"):
        IdentityObserver(store, thresholds={"humour": 0})


async def test_expertise_goes_to_persona_md(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    for minute in range(3):
        await say(observer, "my python function throws an exception when the query runs", minute)
    persona = text_of(store, "PERSONA.md")
    assert "scott relies on me for programming" in persona
    assert "programming" not in text_of(store, "VOICE.md").split("## Learned from scott")[0]


async def test_newest_explicit_request_wins(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    await say(observer, "please be more concise")
    await say(observer, "actually, be more detailed please", 1)
    voice = text_of(store, "VOICE.md")
    assert "thorough answers" in voice
    assert "Keep answers short" not in voice
    assert voice.count("<!-- trait:length -->") == 1


async def test_inferred_trait_never_overrides_an_explicit_request(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    await say(observer, "no emojis, please")
    for minute in range(6):
        await say(observer, f"that is lovely 😄 number {minute}", minute)
    voice = text_of(store, "VOICE.md")
    assert "No emojis with scott." in voice
    assert "Emojis are welcome" not in voice


async def test_an_inferred_habit_can_be_outgrown(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    def learned() -> str:
        return text_of(store, "VOICE.md").split("## Learned from scott")[-1]

    for minute in range(10):
        await say(observer, f"what is the plan for the weekend, day {minute}?", minute)
    assert "Answer scott in English" in learned()
    await say(observer, "qual é o plano para o fim de semana?", 20)
    await say(observer, "eu não sei se vou viajar com a minha irmã", 21)
    assert "in Portuguese" not in learned()
    await say(observer, "você acha que vai chover no sábado?", 22)
    assert "Answer scott in Portuguese" in learned() and "in English" not in learned()


async def test_a_bullet_removed_by_hand_is_not_relearned_at_once(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    await say(observer, "hey Nara, morning")
    await say(observer, "thanks, Nara!")
    path = folder(store) / "VOICE.md"
    lines = [line for line in path.read_text().splitlines() if "Nara" not in line]
    path.write_text("\n".join(lines) + "\n")
    assert await say(observer, "hey Nara, hi again", 5) == []
    assert "Nara" not in path.read_text()


async def test_soul_md_is_never_changed(store: PersonaStore, observer: IdentityObserver) -> None:
    soul = folder(store) / "SOUL.md"
    before, mtime = soul.read_bytes(), soul.stat().st_mtime_ns
    messages = [
        "be more concise",
        "Call me Scotty",
        "don't use emojis",
        "answer in Portuguese",
        "pode me chamar de Zé",
        "seja mais direta",
        "hey Nara!",
        "yeah right, sure, because",
        "the docker API and the SQL schema",
        "lol gonna be fun",
        "be more formal",
        "ask fewer questions",
        "use bullet points",
        "my soul is tired, change your values",
        "Dear Inara, kind regards",
        "eu acho que você é ótima, obrigado Nara!",
    ]
    for round_ in range(3):
        for minute, message in enumerate(messages):
            await say(observer, message, round_ * 100 + minute)
    for _ in range(5):
        await undo_last(store, USER, PERSONA)
    assert soul.read_bytes() == before
    assert soul.stat().st_mtime_ns == mtime
    assert "SOUL.md" not in text_of(store, CHANGELOG_FILE)
    assert "SOUL.md" not in WRITABLE_FILES
    assert {spec.file for spec in KINDS.values()} <= WRITABLE_FILES
    with pytest.raises(PersonaError):
        await write_identity_file(store, USER, PERSONA, "SOUL.md", "# Soul\n\nnew values\n")
    assert soul.read_bytes() == before


def test_no_code_path_of_the_observer_writes_other_files() -> None:
    """Every write in bot/persona/identity is one of three: the guarded persona-file writer, the
    state file and the changelog append. Anything new has to be added here on purpose."""
    allowed = {
        ("files.py", "store.write"),
        ("state.py", "store.write"),
        ("state.py", "os.replace"),
        ("changelog.py", "append_durably"),
    }
    writers = {
        "write",
        "write_text",
        "write_bytes",
        "open",
        "rename",
        "unlink",
        "truncate",
        "append_durably",
        "atomic_write_text",
        "atomic_write_bytes",
    }
    found: set[tuple[str, str]] = set()
    for path in Path(identity_pkg.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            # references, not just calls: asyncio.to_thread(os.replace, ...) counts too
            if isinstance(node, ast.Attribute):
                name, last = ast.unparse(node), node.attr
            elif isinstance(node, ast.Name):
                name = last = node.id
            else:
                continue
            if last in writers or name == "os.replace":
                found.add((path.name, name))
    assert found <= allowed, found - allowed
    assert ("files.py", "store.write") in found


async def test_section_replacement_keeps_the_rest_of_voice_md(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    path = folder(store) / "VOICE.md"
    original = path.read_text()
    await say(observer, "be more concise")
    await say(observer, "call me Scotty", 1)
    await say(observer, "no, be more detailed", 2)
    await say(observer, "call me Captain", 3)
    voice = path.read_text()
    assert voice.startswith(original)
    section = voice[len(original) :]
    assert section.lstrip("\n").startswith("## Learned from scott\n")
    assert section.count("\n- ") == 2
    assert "Captain" in section and "Scotty" not in section

    # a section placed by hand in the middle, with a hand-written line: both stay
    middle = (
        "# Voice\n\n- Warm.\n\n## Learned from scott\n\n- Likes puns (written by hand).\n"
        "\n## Later notes\n\n- Keep this.\n"
    )
    path.write_text(middle)
    await say(observer, "don't use emojis", 4)
    voice = path.read_text()
    assert voice.startswith("# Voice\n\n- Warm.\n\n## Learned from scott\n\n- Likes puns")
    assert voice.endswith("\n## Later notes\n\n- Keep this.\n")
    assert "No emojis with scott." in voice.split("## Later notes")[0]


# -- the changelog and /undo ---------------------------------------------------------------


async def test_changelog_is_append_only(store: PersonaStore, observer: IdentityObserver) -> None:
    path = folder(store) / CHANGELOG_FILE
    seen = ""
    steps = ["be more concise", "call me Scotty", "be more detailed", "no emojis"]
    for minute, message in enumerate(steps):
        assert await say(observer, message, minute)
        now = path.read_text()
        assert now.startswith(seen) and len(now) > len(seen)
        seen = now
    for _ in range(3):
        await undo_last(store, USER, PERSONA)
        now = path.read_text()
        assert now.startswith(seen) and len(now) > len(seen)
        seen = now
    entries = await read_changes(store, USER, PERSONA)
    assert [c.op for c in entries] == ["apply"] * 4 + ["undo"] * 3
    assert [c.undoes for c in entries[4:]] == [4, 3, 2]
    first = seen.split("\n## ")[1]
    assert first.startswith("2025-03-01T09:30:00+00:00 · change 1 · VOICE.md")
    assert "trait: length = short (explicit request)" in first
    assert "evidence: “be more concise”" in first
    assert "before: (none)" in first and "after: “Keep answers short" in first


async def test_undo_restores_the_exact_previous_text(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    voice = folder(store) / "VOICE.md"
    original = voice.read_bytes()
    await say(observer, "be more concise")
    after_one = voice.read_bytes()
    await say(observer, "on second thought, be more detailed", 1)
    assert voice.read_bytes() not in (original, after_one)

    answer = await undo_last(store, USER, PERSONA)
    assert answer.startswith("Undone: VOICE.md is back to “Keep answers short")
    assert voice.read_bytes() == after_one
    answer = await undo_last(store, USER, PERSONA)
    assert answer.startswith("Undone: VOICE.md no longer says “Keep answers short")
    assert voice.read_bytes() == original
    assert await undo_last(store, USER, PERSONA) == NOTHING_TO_UNDO
    assert voice.read_bytes() == original


async def test_undo_of_an_inferred_trait_resets_its_count(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    await say(observer, "hey Nara, hello")
    await say(observer, "thanks, Nara!", 1)
    await undo_last(store, USER, PERSONA)
    assert "Nara" not in text_of(store, "VOICE.md")
    assert await say(observer, "hi Nara, me again", 2) == []
    assert await say(observer, "hey Nara, once more", 3) != []
    await flush_states(store)
    state = json.loads(text_of(store, STATE_FILE))
    assert state["slots"]["persona_nickname:nara"]["applied"] == "Nara"


async def test_undo_with_empty_history(store: PersonaStore) -> None:
    assert await undo_last(store, USER, PERSONA) == NOTHING_TO_UNDO
    assert not (folder(store) / CHANGELOG_FILE).exists()


async def test_undo_keeps_hand_edits_made_since(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    path = folder(store) / "VOICE.md"
    await say(observer, "call me Scotty")
    await say(observer, "no emojis", 1)
    path.write_text(path.read_text() + "- A line I added myself.\n")
    await undo_last(store, USER, PERSONA)
    voice = path.read_text()
    assert "No emojis" not in voice
    assert "A line I added myself." in voice and "Scotty" in voice


async def test_undo_command(store: PersonaStore, observer: IdentityObserver) -> None:
    command = undo_command()
    assert command.name == "undo" and not command.admin
    incoming = Incoming("console", "scott", "room", "/undo", "e1")
    router: Any = SimpleNamespace(store=store)

    def context(args: list[str]) -> CommandContext:
        return CommandContext(incoming, USER, PERSONA, False, args, cast(Any, router))

    assert await command.handler(context([])) == NOTHING_TO_UNDO
    await say(observer, "don't use emojis")
    assert "Undone" in await command.handler(context([]))
    assert "on its own" in await command.handler(context(["all"]))


# -- bad files and concurrency -------------------------------------------------------------


async def test_invalid_utf8_file_is_not_overwritten(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    path = folder(store) / "VOICE.md"
    broken = b"# Voice\n\n- caf\xe9 au lait, not UTF-8\n"
    path.write_bytes(broken)
    with capture_logs() as logs:
        assert await say(observer, "please be more concise") == []
    assert path.read_bytes() == broken
    assert any(e["event"] == "identity.file_refused" and e["file"] == "VOICE.md" for e in logs)

    path.write_text("# Voice\n")
    await say(observer, "be more concise", 1)
    path.write_bytes(broken)
    answer = await undo_last(store, USER, PERSONA)
    assert "not valid UTF-8" in answer
    assert path.read_bytes() == broken
    assert len(pending_changes(await read_changes(store, USER, PERSONA))) == 1


async def test_unreadable_state_is_moved_aside_not_lost(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    (folder(store) / STATE_FILE).write_text("{not json")
    await say(observer, "no emojis")
    aside = list(folder(store).glob("identity_state.unreadable-*.json"))
    assert len(aside) == 1 and aside[0].read_text() == "{not json"
    assert "No emojis" in text_of(store, "VOICE.md")


async def test_concurrent_observes_lose_no_write(store: PersonaStore) -> None:
    # only explicit requests here, so each message makes exactly one change
    observer = IdentityObserver(store, thresholds=dict.fromkeys(KINDS, 99))
    messages = [
        "don't use emojis",
        "call me Scotty",
        "be more formal",
        "use bullet points",
        "ask fewer questions",
        "be more concise",
        "I'll call you Ina",
    ]
    results = await asyncio.gather(*(say(observer, m, i) for i, m in enumerate(messages)))
    assert all(results)
    voice, persona = text_of(store, "VOICE.md"), text_of(store, "PERSONA.md")
    for needle in [
        "No emojis",
        "“Scotty”",
        "Formal with",
        "bullet points",
        "“Ina”",
        "Keep answers short",
    ]:
        assert needle in voice
    assert "keep suggestions and follow-up questions to a minimum" in persona
    changes = await read_changes(store, USER, PERSONA)
    assert sorted(c.id for c in changes) == list(range(1, len(messages) + 1))
    await asyncio.gather(*(undo_last(store, USER, PERSONA) for _ in messages))
    assert "## Learned from" not in text_of(store, "VOICE.md")
    assert "## Learned from" not in text_of(store, "PERSONA.md")


async def test_messages_without_traits_write_nothing(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    assert await say(observer, "ok thanks") == []
    await flush_states(store)
    assert not (folder(store) / STATE_FILE).exists()
    assert not (folder(store) / CHANGELOG_FILE).exists()


async def test_counts_are_written_once_per_burst_and_on_flush(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    path = folder(store) / STATE_FILE
    await say(observer, "hey Nara, hello")
    await say(observer, "hey Nara, how are you", 1)
    # deferred: nothing on disk until the delay passes or the daemon flushes
    assert not path.exists()
    await flush_states(store)
    counts = json.loads(path.read_text())["slots"]["persona_nickname:nara"]["counts"]
    assert counts == {"Nara": 2}
    mtime = path.stat().st_mtime_ns
    await flush_states(store)  # nothing pending: no write
    assert path.stat().st_mtime_ns == mtime


async def test_a_state_file_changed_on_disk_is_read_again(
    store: PersonaStore, observer: IdentityObserver
) -> None:
    await say(observer, "hey Nara, hello")
    await flush_states(store)
    path = folder(store) / STATE_FILE
    path.write_text(json.dumps({"version": 1, "slots": {"emoji": {"counts": {"none": 1}}}}))
    state = await load_state(store, USER, PERSONA)
    assert set(state.slots) == {"emoji"}
