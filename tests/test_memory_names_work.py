"""A question about someone's work finds the message that names their trade: of two messages
that match the question's words alike, the one that says "vet nurse", "arquiteta" or "laid
off" is lifted above the one that only talks about the days."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend
from bot.memory.episodes.work_words import asks_about_work, names_work
from tests.test_memory_says_when import BUILDERS, NOW, _episodes, _tell

__all__: list[str] = []


@pytest.mark.parametrize(
    "question",
    [
        "What do I do for a living?",
        "Where am I working now?",
        "What's my brother's job?",
        "What line of work is Walt's daughter in these days?",
        "Who does Priya work for?",
        "What was his profession before he retired?",
        "Qual é a minha profissão?",
        "O que o Rodrigo faz da vida?",
        "A minha namorada trabalha em quê?",
        "Que cargo é que a Rita vai ocupar?",
        "What was my role at the insurance company before they let me go?",
        "Where does Tom work?",
        "What does Tom do?",
        "O que faz a Ana?",
        "Is Tom working today?",
        "Onde é que o meu irmão trabalha?",
        "Qual é o trabalho da Rita?",
        "Where does my sister work?",
    ],
)
def test_a_question_about_work(question: str) -> None:
    assert asks_about_work(question)


@pytest.mark.parametrize(
    "question",
    [
        "Where did we go on holiday?",
        "What did I eat at the wedding?",
        "Did the new charger work?",
        # a thing that works, or a job that is no one's trade
        "Is the heater working?",
        "Who do I call when the boiler isn't working?",
        "What jobs are left on the to-do list?",
        "Did the plumber finish the job?",
        "What's the cargo on the ship?",
        "O aquecedor está a trabalhar?",
        "What does it do?",
        "Quando é o aniversário da Ana?",
        "O que comprámos para a cozinha?",
        "What role does salt play in bread?",
        "Which role did she get in the school play?",
    ],
)
def test_a_question_about_something_else(question: str) -> None:
    assert not asks_about_work(question)


@pytest.mark.parametrize(
    "text",
    [
        "Being the only qualified vet nurse on shift over the holidays is not fun.",
        "I'm still the UX designer on the digital team.",
        "They laid off half the office, me included.",
        "Ser arquiteta de obra pública é isso.",
        "Agora trabalho por conta própria.",
        "O Luís é bombeiro no quartel da avenida.",
        "A Dra. Sousa é médica de família.",
        "I'm the events coordinator at the museum now.",
        "She's a compliance officer at the bank.",
        "My sister is a teaching assistant at the primary school.",
        "Sou coordenadora de projeto numa ONG.",
    ],
)
def test_a_line_of_work_named(text: str) -> None:
    assert names_work(text)


@pytest.mark.parametrize(
    "text",
    [
        "The clinic was chaos and I held a spaniel all Friday.",
        "We had the bean chili again, my favourite.",
        "Ouvimos música até tarde.",
        "Fomos à praia no domingo.",
        "The architecture in Porto is stunning.",
        "My assistant app keeps mishearing me.",  # the one spoken to, not a trade
    ],
)
def test_no_line_of_work_named(text: str) -> None:
    assert not names_work(text)


@pytest.mark.parametrize("build", BUILDERS, ids=["sqlite-fts5", "holographic"])
@pytest.mark.parametrize(
    ("told", "later", "asked", "other"),
    [
        (
            "Another Sunday at the clinic as the only vet nurse, can you believe it?",
            "Another Sunday at the clinic with no coffee at all, can you believe it?",
            "What's my job at the clinic?",
            "What happened at the clinic?",
        ),
        (
            "Mais um domingo no estaleiro, arquiteta e cansada, acreditas?",
            "Mais um domingo no estaleiro, molhada e cansada, acreditas?",
            "Qual é a minha profissão no estaleiro?",
            "Como foi o domingo no estaleiro?",
        ),
    ],
    ids=["english", "portuguese"],
)
async def test_a_question_about_work_finds_the_message_that_names_it(
    tmp_path: Path,
    build: Callable[[Path], MemoryBackend],
    told: str,
    later: str,
    asked: str,
    other: str,
) -> None:
    """Two messages that match the question's words alike: the newer comes first, unless the
    question asks about work and only the older names a trade."""
    memory = build(tmp_path)
    await memory.open()
    try:
        await _tell(memory, told, NOW - timedelta(days=30))
        await _tell(memory, later, NOW - timedelta(days=20))
        plain = _episodes(await memory.prefetch(other, limit=4))
        assert [hit.item.text for hit in plain[:2]] == [later, told]
        assert "names_work" not in plain[0].parts
        found = _episodes(await memory.prefetch(asked, limit=4))
        assert [hit.item.text for hit in found[:2]] == [told, later]
        assert found[0].parts["names_work"] > 0
        assert found[1].parts["names_work"] == 0
    finally:
        await memory.close()
