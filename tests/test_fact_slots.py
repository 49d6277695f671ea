"""Which facts about the user say a thing they have one of at a time, in English and
Portuguese: the newer of two such facts replaces the older in USER.md."""

from __future__ import annotations

import pytest

from bot.persona.fact_slots import fact_slot


@pytest.mark.parametrize(
    ("fact", "slot"),
    [
        ("I live in Lisbon", "home"),
        ("I now live in Porto", "home"),
        ("I'm living in Porto now", "home"),
        ("I've moved to Porto", "home"),
        ("So I moved into a flat in Leith", "home"),
        ("Eu moro em Lisboa", "home"),
        ("Agora moro no Porto", "home"),
        ("Vivo em Braga", "home"),
        ("Mudei-me para o Porto", "home"),
        ("Mudei-me para um apartamento novo", "home"),
        ("I moved into a new flat in Leith", "home"),
        ("I’m living in Porto now.", "home"),
        ("I work at Cascade Mutual as a UX designer", "employer"),
        ("I'm working for the council now", "employer"),
        ("Trabalho na Sonae", "employer"),
        ("I work as a nurse", "job"),
        ("Trabalho como enfermeira", "job"),
        ("I'm 34 years old", "age"),
        ("Tenho 34 anos", "age"),
        ("My dentist is Dr. Varga", "my dentist"),
        ("My new dentist is Dr. Silva", "my dentist"),
        ("O meu dentista é o Dr. Silva", "my dentist"),
        ("Meu dentista é o Dr. Silva", "my dentist"),
        ("My wife is called Ana", "my wife"),
        ("A minha mulher chama-se Ana", "my wife"),
        ("Oh, and my boss is Rui", "my boss"),
        ("My birthday is March 3", "my birthday"),
        ("O meu aniversário é a 3 de março", "my birthday"),
        ("My favourite colour is green", "my favourite colour"),
        ("My favorite color is blue", "my favourite colour"),
        ("A minha cor favorita é o verde", "my favourite colour"),
        # typed all in lower case: no capital to tell a name by, but a title or a dwelling
        ("my dentist is dr varga", "my dentist"),
        ("my husband is mr rui costa", "my husband"),
        ("i moved into a new flat", "home"),
    ],
)
def test_a_one_at_a_time_fact_names_its_slot(fact: str, slot: str) -> None:
    assert fact_slot(fact) == slot


@pytest.mark.parametrize(
    "fact",
    [
        "I live with my sister",
        "I work from home on Fridays",
        "Eu trabalho com crianças",
        "My sister is a nurse",
        "My job is tiring",
        "I am 5 minutes away",
        "I love living in Lisbon",
        "My dentist's surgery is on Rua Augusta",
        "Scott lives in Lisbon",
        "I moved to the night shift",
        "I've moved to a new team at work",
        "I work at home on Fridays",
        "Trabalho em casa às sextas",
        "Mudei para o turno da noite",
        "My boss is on holiday this week",
        "My wife is pregnant",
        "O meu chefe é impossível",
        "My boss is Italian",
        "My new doctor is an American",
    ],
)
def test_a_fact_that_may_hold_beside_another_names_none(fact: str) -> None:
    assert fact_slot(fact) is None


@pytest.mark.parametrize(
    "fact",
    [
        "I'm living on a tight budget",
        "I live on coffee and toast",
        "I live in fear of the dentist",
        "Vivo na esperança de mudar",
        "I work at night",
        "I work at least 50 hours a week",
        "I'm working at weekends now",
        "I work for fun",
        "Trabalho à noite",
        # typed all in lower case: a place and a thing look alike, a title and a trade too
        "i moved to porto",
        "i moved to python",
        "i moved to a new team",
        "i live in constant fear",
        "i live on coffee",
        "mudei para vegetariano",
        "my husband is a doctor",
        "my dentist is doctor who",
        "my boss is nice",
        "I moved to sales",
    ],
)
def test_what_one_lives_on_or_works_at_that_is_no_place_names_none(fact: str) -> None:
    """Such a fact would take "I live in Lisbon" or "I work at Google" out of USER.md."""
    assert fact_slot(fact) is None
