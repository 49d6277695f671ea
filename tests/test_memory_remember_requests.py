"""A request to remember is read however it is put, in English and Portuguese, and the fact it
asks to keep comes back as written; reminders and questions about the past are not requests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.memory.base import TurnRecord
from bot.memory.factory import open_memory
from bot.memory.policy import classify
from bot.memory.remember_requests import asked_to_remember
from bot.persona.promotion import Promoter
from bot.persona.store import PersonaStore
from tests.harness import make_config, make_persona

__all__: list[str] = []

AT = datetime(2026, 5, 9, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Remember that Scott is allergic to peanuts.", "Scott is allergic to peanuts"),
        ("Please remember that my sister is called Ana.", "my sister is called Ana"),
        ("Remember: the gate sticks in winter", "the gate sticks in winter"),
        ("Remember, I'm vegetarian.", "I'm vegetarian"),
        ("Remember I'm vegetarian", "I'm vegetarian"),
        ("Hey, remember that I'm vegetarian!", "I'm vegetarian"),
        ("Oh and remember that I'm vegetarian", "I'm vegetarian"),
        ("Can you remember that I prefer tea?", "I prefer tea"),
        ("Could you please remember that I prefer tea?", "I prefer tea"),
        ("I want you to remember that I prefer tea.", "I prefer tea"),
        ("Keep in mind that Ana is vegan.", "Ana is vegan"),
        ("Please keep this in mind: Ana is vegan.", "Ana is vegan"),
        ("Make a note that my car is a grey Golf.", "my car is a grey Golf"),
        ("Note that I'm vegetarian.", "I'm vegetarian"),
        ("Write down that my car is a grey Golf.", "my car is a grey Golf"),
        ("Save this: my bike is in the shed.", "my bike is in the shed"),
        ("Don’t forget that Ana's birthday is on May 3.", "Ana's birthday is on May 3"),
        ("Never forget that I'm allergic to cats.", "I'm allergic to cats"),
        ("Remember that when I travel I prefer aisle seats.", "when I travel I prefer aisle seats"),
        ("Lembra que sou vegetariano.", "sou vegetariano"),
        ("lembra que o meu dentista é o Dr. Costa", "o meu dentista é o Dr. Costa"),
        ("Lembra-te de que sou vegetariano.", "sou vegetariano"),
        ("Lembre-se de que sou vegetariano.", "sou vegetariano"),
        ("Por favor, lembra que sou vegetariano.", "sou vegetariano"),
        ("Olha, lembra que a Ana é vegana.", "a Ana é vegana"),
        ("Podes lembrar que sou vegetariano?", "sou vegetariano"),
        ("Você pode lembrar que sou vegetariano?", "sou vegetariano"),
        ("Quero que lembres que sou vegetariano.", "sou vegetariano"),
        ("Não te esqueças de que sou vegetariano.", "sou vegetariano"),
        ("Não se esqueça que sou vegetariano.", "sou vegetariano"),
        ("Não esquece que sou vegetariano.", "sou vegetariano"),
        ("Guarda isto: sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Toma nota: sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Anota aí que sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Grava aí que sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Regista que sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Registra que sou alérgico a nozes.", "sou alérgico a nozes"),
        ("Memoriza que sou alérgico a nozes.", "sou alérgico a nozes"),
    ],
)
def test_a_request_to_remember_gives_the_fact_as_written(sentence: str, fact: str) -> None:
    assert asked_to_remember(sentence) == fact


@pytest.mark.parametrize(
    "sentence",
    [
        "Do you remember the trip?",
        "Remember when we went to Sintra?",
        "Can you remember what I said?",
        "Remember to buy milk.",
        "Don't forget to call mum.",
        "Remember the milk.",
        "Remember me?",
        "Remember that?",
        "Remember.",
        "Note the date.",
        "Note to self: buy milk",
        "Keep going!",
        "Store hours are 9 to 5.",
        "I remember that day well.",
        "So I went home.",
        "Lembra-me de ligar à mãe.",
        "Não te esqueças de comprar pão.",
        "Lembras-te de quando fomos a Sintra?",
        "Lembra quando fomos a Sintra?",
        "Lembras-te do Rui?",
        "Guarda o carro na garagem.",
        "Grava o episódio de hoje.",
    ],
)
def test_reminders_questions_and_other_uses_of_the_words_are_no_request(sentence: str) -> None:
    assert asked_to_remember(sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "For the record, I'm vegetarian.",
        "Just so you know, I work nights.",
        "FYI my sister is called Ana.",
        "Fica sabendo que sou alérgico a nozes.",
        "Só pra constar: moro em Braga.",
    ],
)
def test_a_note_informs_the_write_policy_but_asks_nothing_to_be_remembered(sentence: str) -> None:
    assert asked_to_remember(sentence) is None  # not promoted at once: it must come back
    assert classify(sentence).accepted


def test_the_write_policy_keeps_a_request_put_as_a_question() -> None:
    for sentence in ("Você pode lembrar que sou vegetariano?", "Podes lembrar que moro em Braga?"):
        verdict = classify(sentence)
        assert verdict.accepted, (sentence, verdict)
    assert not classify("Você pode lembrar o que eu disse?").accepted


@pytest.mark.parametrize(
    ("said", "file", "line"),
    [
        (
            "Could you keep in mind that I'm allergic to walnuts?",
            "USER.md",
            "I'm allergic to walnuts",
        ),
        ("Olha, anota aí que a Ana é vegana.", "MEMORY.md", "a Ana é vegana"),
    ],
)
async def test_a_request_however_put_is_promoted_at_once(
    tmp_path: Path, said: str, file: str, line: str
) -> None:
    make_persona(tmp_path, "scott")
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    turn = TurnRecord(said, "Noted.", "console", AT, "scott", "inara", "direct")
    done = await promoter.promote([turn], user="scott", persona="inara", at=AT)
    assert done == [f"{file}: {line}"]
    assert f"- {line} <!--" in (tmp_path / "scott/persona/inara" / file).read_text()


@pytest.mark.parametrize("backend", ["sqlite-fts5", "holographic"])
async def test_a_request_is_stored_as_its_fact_and_the_fact_said_again_reinforces_it(
    tmp_path: Path, backend: str
) -> None:
    directory = make_persona(tmp_path, "scott")
    memory = await open_memory(make_config(tmp_path, memory_backend=backend), directory)
    try:
        for minute, said in enumerate(
            (
                "Remember that my sister Ana lives in Porto.",
                "My sister Ana lives in Porto.",
                "Podes lembrar que o Rui trabalha em Braga?",
            )
        ):
            at = AT.replace(minute=minute)
            turn = TurnRecord(said, "Noted.", "console", at, "scott", "inara", "direct")
            await memory.sync(turn)
        items = {item.text: item for item in await memory.list_items()}
        assert set(items) == {"my sister Ana lives in Porto", "o Rui trabalha em Braga"}
        assert items["my sister Ana lives in Porto"].reinforced == 1
    finally:
        await memory.close()
