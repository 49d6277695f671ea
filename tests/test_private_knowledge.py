"""What is said in a direct room never reaches a shared room by the back door, in every backend.

A statement said again is a twin of an item by its normal form, which drops signs,
punctuation, emoji and accents ("HIV+" and "HIV-" are one), and an item keeps the wording, the
date and the source of where it was first said. So a shared room that says again what was said
in a direct room keeps its own copy of it: recall there shows the room's words, when and where
the room heard them, and never the direct room's; the memory tools of the room learn nothing
of the private item (not even that there is one). A line of the room's own file is likewise its
own. Chat commands answered in a shared room name no other room, and an on-record turn never
carries what was said Off The Record. What the identity observer learned from the user's
direct rooms (the name they go by, what they rely on the persona for) stays out of every
prompt a shared room hears: chat, its scheduled jobs, its distillation.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.memory.base import MemoryBackend
from bot.memory.distill.distiller import Distiller
from bot.persona.context import heard_by
from bot.persona.identity.section import bullet_line, heading_for, without_learned
from bot.persona.store import FileText, PersonaStore
from bot.turn.audience import DIRECT, DIRECT_ROOM, Audience, room_folder, room_note
from bot.turn.rooms import ANY_ROOM
from tests.harness import ScriptedLLM, make_persona
from tests.test_audience import _rooms_world, jobs_prompts
from tests.test_memory_room_scope import (  # noqa: F401  (the fixture is used by name)
    AT,
    FAMILY,
    WORK,
    knows,
    learn,
    memory,
    texts,
)
from tests.test_off_the_record import _start

__all__: list[str] = []

PRIVATE = "My blood test came back HIV+."
IN_THE_GROUP = "My blood test came back HIV-!"
QUERY = "blood test HIV"
#: a standing preference, which the prompt of every turn may carry
PREFERENCE = "I prefer my coffee without sugar."
#: said in the direct room on the first day, in the family room nine days later
LATER = AT + timedelta(days=9)


async def seen_by_family(store: MemoryBackend, query: str) -> list[str]:
    """Every text a turn of the family room is shown for ``query``: recall, search, and what
    was said around each hit."""
    hits = await store.prefetch(query, limit=10, audience=FAMILY)
    hits += await store.search(query, limit=10, audience=FAMILY)
    return [f"{hit.item.text} {hit.citation}{hit.around()}" for hit in hits]


async def test_a_room_that_says_it_again_in_other_signs_never_sees_the_private_words(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, IN_THE_GROUP, FAMILY, at=LATER)
    family = await seen_by_family(memory, QUERY)
    assert any("HIV-" in text for text in family), family
    assert not any("HIV+" in text for text in family), family
    # the direct room still has its own words
    assert PRIVATE in texts(await memory.search(QUERY, limit=10))
    assert {item.audience for item in await memory.list_items() if item.text == PRIVATE} == {DIRECT}


async def test_a_room_that_says_it_again_sees_when_it_heard_it_not_when_it_was_said_in_private(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, PRIVATE, FAMILY, at=LATER)
    hits = await memory.prefetch(QUERY, limit=10, audience=FAMILY)
    hits += await memory.search(QUERY, limit=10, audience=FAMILY)
    assert PRIVATE in texts(hits)
    private_day = f"{AT:%Y-%m-%d}"
    for hit in hits:
        assert private_day not in f"{hit.citation}{hit.around()}", hit.citation
        assert hit.item.created_at.date() != AT.date(), hit.citation


async def test_the_memory_tools_of_a_room_learn_nothing_of_a_private_fact(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    tools = {tool.name: tool for tool in memory.tools(audience=FAMILY)}
    answer = await tools["memory_add"].handler({"text": PRIVATE})
    assert answer.startswith("Stored as"), answer  # not "Already known": nothing to tell
    assert {item.audience for item in await memory.list_items() if item.text == PRIVATE} == {
        DIRECT,
        FAMILY.label,
    }
    assert not any("HIV" in text for text in await seen_by_others(memory))


async def seen_by_others(store: MemoryBackend) -> list[str]:
    """What the work room is shown of the blood test."""
    hits = await store.search(QUERY, limit=10, audience=WORK)
    return [hit.item.text for hit in hits]


async def test_a_line_made_shared_never_shares_a_private_items_wording_and_goes_with_its_line(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    """Made shared, a statement reinforces only what is shared already: the private item it
    repeats stays private (its wording, its date), and taking the line out of ``shared/``
    (``/unshare TEXT``) takes all of it out of every room."""
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await memory.mirror("shared/USER.md", f"- {IN_THE_GROUP}\n")
    family = await seen_by_family(memory, QUERY)
    assert any("HIV-" in text for text in family), family
    assert not any("HIV+" in text for text in family), family
    await memory.mirror("shared/USER.md", "")
    assert not await knows(memory, QUERY, "blood test", FAMILY)
    assert PRIVATE in texts(await memory.search(QUERY, limit=10))


async def test_a_private_item_made_shared_in_the_same_words_is_private_again_once_unshared(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await memory.mirror("shared/USER.md", f"- {PRIVATE}\n")
    assert await knows(memory, QUERY, "HIV+", FAMILY)
    await memory.mirror("shared/USER.md", "")
    assert not await knows(memory, QUERY, "blood test", FAMILY)
    assert PRIVATE in texts(await memory.search(QUERY, limit=10))


async def test_a_line_of_a_rooms_own_file_is_the_rooms_own_words(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    assert FAMILY.room is not None
    await memory.mirror("USER.md", f"- {PRIVATE}\n")
    await memory.mirror(f"{room_folder(FAMILY.room)}/MEMORY.md", f"- {IN_THE_GROUP}\n")
    family = await seen_by_family(memory, QUERY)
    assert any("HIV-" in text for text in family), family
    assert not any("HIV+" in text for text in family), family
    assert PRIVATE in texts(await memory.search(QUERY, limit=10))


async def test_a_direct_room_is_shown_once_what_a_room_said_again_in_the_same_words(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    """The room's copy and the private item are two items, both the direct room's to see;
    its recall and its standing memories show the statement once."""
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, PRIVATE, FAMILY, at=LATER)
    assert [item.text for item in await memory.list_items()].count(PRIVATE) == 2
    for hits in (await memory.prefetch(QUERY, limit=10), await memory.search(QUERY, limit=10)):
        shown = [(hit.item.kind, hit.item.text) for hit in hits]
        assert PRIVATE in texts(hits) and len(shown) == len(set(shown)), shown

    async def learn_twice(text: str, heard_by: Audience, at: datetime) -> None:
        await learn(memory, text, heard_by, at)
        await learn(memory, text, heard_by, at + timedelta(days=1))

    await learn_twice(PREFERENCE, DIRECT_ROOM, AT)
    await learn_twice(PREFERENCE, FAMILY, LATER)
    standing = await memory.inject()
    assert standing.count(PREFERENCE) == 1, standing


async def test_asked_when_a_direct_room_is_shown_the_day_each_audience_heard_it(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, PRIVATE, FAMILY, at=LATER)
    hits = await memory.prefetch("when did I tell you my blood test came back?", limit=10)
    days = {hit.item.created_at.date() for hit in hits if hit.item.kind == "episode"}
    assert {AT.date(), LATER.date()} <= days, [(hit.item.text, hit.citation) for hit in hits]


async def test_a_direct_room_is_shown_each_wording_a_room_said_again_in_other_signs(
    memory: MemoryBackend,  # noqa: F811 (the fixture imported above)
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, IN_THE_GROUP, FAMILY, at=LATER)
    for hits in (await memory.prefetch(QUERY, limit=10), await memory.search(QUERY, limit=10)):
        assert {PRIVATE, IN_THE_GROUP} <= set(texts(hits)), texts(hits)


@pytest.fixture
async def chat(tmp_path: Path) -> Any:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    world = await _start(tmp_path, llm, memory_backend="sqlite-fts5")
    world.llm = llm  # type: ignore[attr-defined]
    yield world
    await world.daemon.stop()


async def test_distill_in_a_shared_room_names_no_other_room(chat: Any) -> None:
    await chat.say("we meet at the office on Quarry Lane", room="quarry", direct=False)
    await chat.say("the picnic is on Sunday", room="family", direct=False)
    await chat.say("/distill short")
    for kind in ("short", "mid", "long"):
        answer = await chat.say(f"/distill {kind}", room="family", direct=False)
        assert "quarry" not in answer and "console:" not in answer, answer
    # from a direct room it runs for every audience, and says so
    assert "console:quarry" in await chat.say("/distill mid")


async def test_an_every_room_mode_switched_off_elsewhere_lets_go_of_this_rooms_words_too(
    chat: Any,
) -> None:
    """Off The Record switched on before modes belonged to rooms holds in every room; switched
    off in one, it ends everywhere, and what was said off the record in another room never
    reaches a request of that room's next on-record turn (whose answer is logged and kept)."""
    await chat.daemon.state.set_otr_room("scott", ANY_ROOM, True)
    await chat.daemon.router.otr.load()
    await chat.say("the surprise party is at Lanternfish Hall", room="family", direct=False)
    await chat.say("and the cake is from Bramblewood")
    assert "let go" in await chat.say("/otr off")
    await chat.say("what was the plan again?", room="family", direct=False)
    asked = "\n".join(message.text for message in chat.llm.calls[-1].messages)
    assert "Lanternfish" not in asked and "Bramblewood" not in asked
    await chat.say("and the cake?")
    asked = "\n".join(message.text for message in chat.llm.calls[-1].messages)
    assert "Bramblewood" not in asked and "Lanternfish" not in asked
    assert chat.disk_holds("Lanternfish") == [] and chat.disk_holds("Bramblewood") == []


async def test_a_distillation_notice_names_no_room_in_a_shared_notification_room(
    tmp_path: Path,
) -> None:
    """The notice of a scheduled mid or long distillation speaks of every audience's memory
    (each shared room by name): a notification room known as shared is not told it."""
    config, store, room, notifier = _rooms_world(tmp_path)
    await room.start()
    for key in ("console:scott-dm", "console:quarry"):  # the notification room is a group
        await store.write("scott", "inara", f"{room_folder(key)}/ROOM.md", room_note(key))
        await store.write(
            "scott", "inara", f"{room_folder(key)}/MEMORY_SHORT.md", f"# {key}\n\nthe picnic\n"
        )
    await store.write("scott", "inara", "MEMORY_SHORT.md", "# Recent\n\nthe therapist\n")
    llm = ScriptedLLM()
    distiller = Distiller(config, store, {"scripted": llm}, notify=notifier.notify)
    assert "console:quarry" in await distiller.run("scott", "inara", "mid")
    assert room.sent, "the room was told something"
    assert not any("quarry" in text or "Mid-term" in text for _room, text in room.sent)


async def test_nothing_typed_off_the_record_is_shared(chat: Any) -> None:
    """``/share TEXT`` would write TEXT to ``shared/USER.md`` (and every room's memory): Off The
    Record nothing is kept, as no tool that keeps anything runs then."""
    await chat.say("/otr on")
    answer = await chat.say("/share I am moving to Wrenfield in May")
    assert "Off The Record" in answer
    assert chat.disk_holds("Wrenfield") == []
    await chat.say("/otr off")
    assert "Wrenfield" in await chat.say("/share I am moving to Wrenfield in May")


#: VOICE.md with a line written by hand and what the observer learned in a direct room
VOICE = (
    "# Voice\n\n- Warm, never gushing.\n\n"
    + heading_for("scott")
    + "\n\n"
    + bullet_line("user_name", "Call scott \u201cCaptain Nemo\u201d.")
    + "\n"
    + bullet_line("expertise:money", "scott relies on me for money matters: budgets, bills.")
    + "\n"
)


def test_a_shared_room_reads_the_same_file_once_left_out_of_what_was_learned() -> None:
    """The prompt's cache compares the files it rendered by identity: a file as read is
    handed back as one object, learned or not, so an unchanged file is not rendered again."""
    voice = FileText("VOICE.md", VOICE)
    plain = FileText("PERSONA.md", "# Persona\n")
    assert heard_by(voice, FAMILY) is heard_by(FileText("VOICE.md", VOICE), FAMILY)
    assert "Captain Nemo" not in heard_by(voice, FAMILY).text
    assert heard_by(plain, FAMILY) is plain and heard_by(voice, DIRECT_ROOM) is voice


def test_what_was_learned_is_left_out_and_what_was_written_by_hand_kept() -> None:
    assert without_learned(VOICE).strip() == "# Voice\n\n- Warm, never gushing."
    by_hand = VOICE + "- Scott wrote this line himself.\n\n## Later\n\nmore\n"
    kept = without_learned(by_hand)
    assert "Captain Nemo" not in kept and "money" not in kept
    assert heading_for("scott") in kept and "wrote this line himself" in kept
    assert kept.endswith("## Later\n\nmore\n")
    assert without_learned("# Voice\n\nplain\n") == "# Voice\n\nplain\n"


async def test_what_the_observer_learned_in_private_stays_out_of_a_shared_rooms_prompt(
    chat: Any, tmp_path: Path
) -> None:
    await chat.say("please call me Captain Nemo from now on")
    await asyncio.sleep(0.1)  # the observer runs after the answer
    folder = tmp_path / "scott/persona/inara"
    learned = "".join((folder / name).read_text() for name in ("VOICE.md", "PERSONA.md"))
    assert "Captain Nemo" in learned
    await chat.say("who is bringing the salad?", room="family", direct=False)
    assert "Captain Nemo" not in chat.llm.calls[-1].system.stable
    await chat.say("and for me?")
    assert "Captain Nemo" in chat.llm.calls[-1].system.stable


async def test_a_shared_rooms_job_and_distillation_read_nothing_learned_in_private(
    tmp_path: Path,
) -> None:
    config, store, room, notifier = _rooms_world(tmp_path)
    await store.write("scott", "inara", "VOICE.md", VOICE)
    private, shared = await jobs_prompts(config, store, room, notifier)
    assert "Captain Nemo" in private and "Warm, never gushing" in private
    assert "Captain Nemo" not in shared and "money" not in shared
    assert "Warm, never gushing" in shared
    own = room_folder("console:family")
    await store.write("scott", "inara", f"{own}/MEMORY_SHORT.md", "# family\n\nthe picnic\n")
    llm = ScriptedLLM()
    distiller = Distiller(config, PersonaStore(tmp_path), {"scripted": llm})
    await distiller.run("scott", "inara", "mid")
    rooms = [call.system.stable for call in llm.calls if "the picnic" in call.messages[0].text]
    assert rooms and all("Captain Nemo" not in system for system in rooms)
