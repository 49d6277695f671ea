"""A question that names the person or the persona ("What did Scott paint?", "Inara, what
did I say?") is searched without those names: they say whose side it asks about, and no
answer says them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryHit, TurnRecord
from bot.memory.follow_ups import recall
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.party_names import without_parties
from bot.memory.sqlite.backend import SqliteFtsMemory
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

__all__: list[str] = []

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PARTIES = ("scott", "inara")
#: what Scott says over the weeks, his name in some of it ...
SAID = [
    "Scott here, up before sunrise again!",
    "Scott's alarm went off before sunrise, the cat sat on it.",
    "The plumber finally came about the kitchen tap.",
    "Mum rang, she wants us all there on Sunday.",
]
#: ... and what he painted, told without it
PAINTED = (
    "Long week. I painted the old boathouse at sunrise on Sunday, my best one yet, though"
    " my hands were freezing and the dog kept running off with the rags."
)


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        ("What did Scott paint?", "What did paint?"),
        ("Inara, what did I say about the dentist?", "what did I say about the dentist?"),
        ("When is Scott's dentist appointment?", "When is dentist appointment?"),
        ("When is Scott’s dentist appointment?", "When is dentist appointment?"),
        ("Qual é o emprego da Inês?", "Qual é o emprego?"),
        ("O que é que o Scott pintou?", "O que é que o pintou?"),
        ("What did SCOTT and INARA plan for June?", "What did and plan for June?"),
        ("what did scott paint?", "what did scott paint?"),
        ("Where did I plant the rose bush?", "Where did I plant the rose bush?"),
        ("What did Rose say about the bush?", "What did say about the bush?"),
        ("What did Scotty paint?", "What did Scotty paint?"),
        ("Who is Scott?", "Who is Scott?"),
        ("Where does Ana Rita work?", "Where does work?"),
        ("Where does Ana work?", "Where does Ana work?"),
        ("Scott, what did I paint?", "what did I paint?"),
        ("Scott's dentist is where?", "dentist is where?"),
        ("Scott painted what?", "Scott painted what?"),
        ("Scott2 is my login?", "Scott2 is my login?"),
    ],
)
def test_the_parties_names_are_not_searched(question: str, searched: str) -> None:
    assert without_parties(question, ("Scott", "inês", "Inara", "Ana Rita", "rose")) == searched


@pytest.mark.parametrize(
    "question",
    ["What did I buy last May?", "Will I need a coat on Sunday?", "Will you remember it?"],
)
def test_a_name_that_is_a_word_of_the_calendar_or_the_language_stays(question: str) -> None:
    assert without_parties(question, ("May", "Will", "Sunday", "Scott")) == question


def test_without_parties_a_question_is_searched_as_it_is() -> None:
    assert without_parties("What did Scott paint?", ()) == "What did Scott paint?"
    assert without_parties("What did Scott paint?", ("", "  ")) == "What did Scott paint?"


async def _told(memory: SqliteFtsMemory | HolographicMemory) -> str:
    """Weeks of Scott's messages, some that say his name, and one long one that says what he
    painted (without it)."""
    for day, text in enumerate(SAID * 2):
        at = NOW - timedelta(days=40 - day)
        await memory.sync(TurnRecord(text, "Good to hear.", "telegram", at, *PARTIES))
    at = NOW - timedelta(days=10)
    await memory.sync(TurnRecord(PAINTED, "Frame it!", "telegram", at, *PARTIES))
    return PAINTED


def _said(hit: MemoryHit) -> str:
    """The message a hit is (or the one its fact was told in)."""
    return hit.item.context or hit.item.text


@pytest.mark.parametrize("kind", [SqliteFtsMemory, HolographicMemory])
async def test_a_question_naming_the_person_finds_what_they_said(
    tmp_path: Path, kind: type[SqliteFtsMemory] | type[HolographicMemory]
) -> None:
    async with kind(tmp_path, now=lambda: NOW) as memory:
        painted = await _told(memory)
        question = "What did Scott paint at sunrise?"
        # the name searched matches what says it, ahead of the answer
        named = await recall(memory, question, [], limit=1)
        assert _said(named[0]) != painted
        hits = await recall(memory, question, [], limit=1, parties=PARTIES)
        assert _said(hits[0]) == painted
        asked = await recall(
            memory, "Inara, what did Scott paint at sunrise?", [], limit=1, parties=PARTIES
        )
        assert _said(asked[0]) == painted


async def test_a_session_leaves_its_user_and_persona_out_of_what_it_searches(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    try:
        said = [
            "Scott here, back from the lake house!",
            "Inara is the name my sister picked for you.",
            "The harbour at sunrise was unreal today.",
            "I painted the boathouse at sunrise, my best one yet.",
        ]
        for number, text in enumerate(said):
            llm.queue("Good to hear.")
            await adapter.deliver(text, sender="scott", event_id=f"m{number}")
        llm.queue("Noted.")
        await adapter.deliver("/new", sender="scott", event_id="new")
        llm.queue("The boathouse.")
        await adapter.deliver(
            "Inara, what did Scott paint at sunrise?", sender="scott", event_id="q"
        )
        recalled = llm.calls[-1].system.dynamic.split("--- Recalled memories ---")[1]
        assert "boathouse" in recalled
        # what shares nothing with the question but a name is not recalled
        assert "Scott here" not in recalled
        assert "my sister picked" not in recalled
    finally:
        await daemon.stop()
