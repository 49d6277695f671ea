"""The time a recall question names, in English and Portuguese: which days it means (as the
user's zone counts them), and what is left to search once the time words are taken out."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.memory.episodes.time_query import read_time

__all__: list[str] = []

#: a Wednesday afternoon
NOW = datetime(2026, 5, 20, 15, 0, tzinfo=UTC)


def days(query: str, now: datetime = NOW) -> tuple[str, str] | None:
    """The window as first day and last day (inclusive), or None when no time is named."""
    window = read_time(query, now).window
    if window is None:
        return None
    start, end = (datetime.fromtimestamp(edge, now.tzinfo) for edge in window)
    last = datetime.fromtimestamp(window[1] - 1, now.tzinfo)
    assert start.time() == end.time() == datetime.min.time(), query
    return start.date().isoformat(), last.date().isoformat()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # the day before yesterday
        ("what did I do the day before yesterday", ("2026-05-18", "2026-05-18")),
        ("o que fiz anteontem", ("2026-05-18", "2026-05-18")),
        ("o que eu fiz antes de ontem?", ("2026-05-18", "2026-05-18")),
        ("what did I do yesterday", ("2026-05-19", "2026-05-19")),
        ("ontem", ("2026-05-19", "2026-05-19")),
        # weekdays: the latest such day, today included unless "last"
        ("what did I do last Tuesday", ("2026-05-19", "2026-05-19")),
        ("what did I do on Monday", ("2026-05-18", "2026-05-18")),
        ("what did I do on Friday?", ("2026-05-15", "2026-05-15")),
        ("what did I eat on Wednesday", ("2026-05-20", "2026-05-20")),
        ("what did I eat last Wednesday", ("2026-05-13", "2026-05-13")),
        ("on Monday last week", ("2026-05-11", "2026-05-11")),
        ("since Monday, what did I read", ("2026-05-18", "2026-05-20")),
        ("o que fiz na terça passada", ("2026-05-19", "2026-05-19")),
        ("o que fiz na segunda", ("2026-05-18", "2026-05-18")),
        ("o que fiz na segunda-feira", ("2026-05-18", "2026-05-18")),
        ("o que fiz segunda feira?", ("2026-05-18", "2026-05-18")),
        ("o que fiz nesta quarta", ("2026-05-20", "2026-05-20")),
        ("o que comi na última quarta", ("2026-05-13", "2026-05-13")),
        ("onde fui no sábado", ("2026-05-16", "2026-05-16")),
        ("domingo passado fui à praia?", ("2026-05-17", "2026-05-17")),
        ("o que fiz na quinta de manhã", ("2026-05-14", "2026-05-14")),
        ("o que li desde segunda", ("2026-05-18", "2026-05-20")),
        ("na segunda da semana passada", ("2026-05-11", "2026-05-11")),
        ("sexta-feira da semana passada", ("2026-05-15", "2026-05-15")),
        # dates, with and without the year; a date to come goes to last year
        ("what did I do on May 9", ("2026-05-09", "2026-05-09")),
        ("May 9th", ("2026-05-09", "2026-05-09")),
        ("where was I on 9 May", ("2026-05-09", "2026-05-09")),
        ("9 May, where was I", ("2026-05-09", "2026-05-09")),
        ("what did I do 9 May", ("2026-05-09", "2026-05-09")),
        ("the 9th of May", ("2026-05-09", "2026-05-09")),
        ("o que fiz a 9 de maio", ("2026-05-09", "2026-05-09")),
        ("o que fiz em 9 de maio", ("2026-05-09", "2026-05-09")),
        ("o que aconteceu dia 9 de maio", ("2026-05-09", "2026-05-09")),
        ("o que fiz no 1º de maio", ("2026-05-01", "2026-05-01")),
        ("what happened on 2026-05-09", ("2026-05-09", "2026-05-09")),
        ("what did I do on May 9, 2025", ("2025-05-09", "2025-05-09")),
        ("no dia 9 de maio de 2025", ("2025-05-09", "2025-05-09")),
        ("what did I do on May 25", ("2025-05-25", "2025-05-25")),
        ("o que fiz a 24 de dezembro", ("2025-12-24", "2025-12-24")),
        ("on 29 February", ("2024-02-29", "2024-02-29")),
        ("since May 9", ("2026-05-09", "2026-05-20")),
        # a few days ago: two to seven days back
        ("what did we talk about a few days ago", ("2026-05-13", "2026-05-18")),
        ("the other day you said", ("2026-05-13", "2026-05-18")),
        ("há uns dias falámos disto", ("2026-05-13", "2026-05-18")),
        ("há alguns dias", ("2026-05-13", "2026-05-18")),
        ("há poucos dias", ("2026-05-13", "2026-05-18")),
        ("outro dia disseste", ("2026-05-13", "2026-05-18")),
        # this year: January 1 to the end of today
        ("what did I read this year", ("2026-01-01", "2026-05-20")),
        ("o que li este ano", ("2026-01-01", "2026-05-20")),
        ("neste ano", ("2026-01-01", "2026-05-20")),
        # the readings that were there before
        ("what did I do last week", ("2026-05-11", "2026-05-17")),
        ("and the week before?", ("2026-05-11", "2026-05-17")),
        ("what did I do the week before last?", ("2026-05-04", "2026-05-10")),
        ("what did I do on Monday the week before?", ("2026-05-11", "2026-05-11")),
        ("o que fiz em março", ("2026-03-01", "2026-03-31")),
        ("in December", ("2025-12-01", "2025-12-31")),
        ("last year", ("2025-01-01", "2025-12-31")),
    ],
)
def test_the_days_a_query_names(query: str, expected: tuple[str, str]) -> None:
    assert days(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        # ordinals, a farm, habits: no weekday
        "a segunda vez que fui a Lisboa",
        "na segunda vez que fui a Lisboa",
        "a terça parte do bolo",
        "fiquei em quinto, na quinta posição",
        "o que plantei na quinta do avô",
        "a minha filha anda na sexta série",
        "o que costumo fazer ao jantar de domingo?",
        "what do I usually make for Sunday dinner?",
        "de segunda a sexta trabalho em casa",
        # another day, not the other day
        "falamos num outro dia",
        # numeric day/month: which is which depends on the country
        "what did I do on 9/5",
        # no such day
        "I may go, Marco said",
        "will all 3 may come to dinner?",
        "what did I do on April 31",
        # the week before something else: not the week before this one
        "What did I change about my looks the week before we flew out?",
        "what did I cook on Monday the week before the wedding?",
        "what did I do on Monday the week after?",
        "what did I cook on Monday, the week before the wedding?",
        # nowadays, not today
        "hoje em dia onde é que trabalho?",
    ],
)
def test_what_names_no_time(query: str) -> None:
    assert days(query) is None


def test_last_night_is_the_evening_into_the_small_hours() -> None:
    for query in ("what did I eat last night", "o que jantei ontem à noite"):
        window = read_time(query, NOW).window
        assert window is not None, query
        start, end = (datetime.fromtimestamp(edge, UTC) for edge in window)
        assert start == datetime(2026, 5, 19, 18, tzinfo=UTC)
        assert end == datetime(2026, 5, 20, 6, tzinfo=UTC)


def test_next_weekday_is_ahead() -> None:
    assert days("o que tenho na terça que vem") == ("2026-05-26", "2026-05-26")
    assert days("what do I have next Friday") == ("2026-05-22", "2026-05-22")


def test_a_date_wins_over_its_month() -> None:
    assert days("em 9 de maio e não no resto de maio") == ("2026-05-09", "2026-05-09")
    assert days("where was I in May") == ("2026-05-01", "2026-05-31")


@pytest.mark.parametrize(
    ("query", "rest"),
    [
        ("o que fiz em 9 de maio", "o que fiz"),
        ("o que fiz a 9 de maio?", "o que fiz?"),
        ("o que aconteceu no dia 9 de maio de 2025 em Sintra", "o que aconteceu em sintra"),
        ("what did I do on May 9th, 2025?", "what did i do?"),
        ("what did I do on the 9th of May in Porto", "what did i do in porto"),
        ("what did I do on Friday?", "what did i do?"),
        ("o que comi na sexta à noite?", "o que comi?"),
        ("o que fiz na terça-feira passada, em casa", "o que fiz, em casa"),
        ("what did I eat last night?", "what did i eat?"),
        ("the day before yesterday, where was I", "where was i"),
        ("há uns dias falámos de Sintra", "falamos de sintra"),
        ("what did I read this year", "what did i read"),
    ],
)
def test_the_time_words_leave_nothing_behind(query: str, rest: str) -> None:
    assert read_time(query, NOW).text == rest


@pytest.mark.parametrize(
    ("query", "rest"),
    [
        ("o que plantámos na quinta?", "o que plantamos quinta?"),
        ("quem estava na segunda festa?", "quem estava segunda festa?"),
        ("o que fiz nesta terça", "o que fiz terca"),
    ],
)
def test_a_bare_portuguese_ordinal_keeps_its_word(query: str, rest: str) -> None:
    """Read as a weekday, it may still be a farm or an ordinal: the word stays to be matched."""
    hint = read_time(query, NOW)
    assert hint.window is not None
    assert hint.text == rest


def test_days_are_the_zone_of_now() -> None:
    """22:00 in São Paulo on the 20th is 01:00 UTC on the 21st: yesterday is still the 19th."""
    sao_paulo = ZoneInfo("America/Sao_Paulo")
    late = datetime(2026, 5, 20, 22, 0, tzinfo=sao_paulo)
    window = read_time("what did I do yesterday", late).window
    assert window is not None
    assert window == (
        datetime(2026, 5, 19, tzinfo=sao_paulo).timestamp(),
        datetime(2026, 5, 20, tzinfo=sao_paulo).timestamp(),
    )
    assert days("o que fiz anteontem", late) == ("2026-05-18", "2026-05-18")
    assert days("o que fiz ontem", late.astimezone(UTC)) == ("2026-05-20", "2026-05-20")


def test_days_across_a_change_of_clock_are_whole_days() -> None:
    """Lisbon moved its clocks forward on 29 March 2026: that Sunday had 23 hours."""
    lisbon = ZoneInfo("Europe/Lisbon")
    window = read_time("ontem", datetime(2026, 3, 30, 9, tzinfo=lisbon)).window
    assert window is not None
    assert window[1] - window[0] == 23 * 3600
    assert datetime.fromtimestamp(window[0], lisbon) == datetime(2026, 3, 29, tzinfo=lisbon)


@pytest.mark.parametrize(
    "query",
    [
        "when did I go to Sintra?",
        "what time did I call mum?",
        "which month did we move?",
        "what year did I start the cello?",
        "how long ago did I start?",
        "how long since I saw Ana?",
        "what was the date of the party?",
        "quando é que fui a Sintra?",
        "em que mês mudámos?",
        "em que ano comecei o violoncelo?",
        "a que horas liguei à mãe?",
        "há quanto tempo vi a Ana?",
        "desde quando corro?",
        "so when did I start?",
        "remind me when I got the job",
        "sabes quando é que a Rita chega?",
    ],
)
def test_a_question_about_when_is_read_as_one(query: str) -> None:
    assert read_time(query, NOW).asks_when


@pytest.mark.parametrize(
    "query",
    [
        "what did I eat?",
        "where does Ana live?",
        "o que comi ao jantar?",
        "who is Rui?",
        # "when" after another question word joins a clause to it
        "what do I eat when I'm ill?",
        "how did I feel when the results came?",
        "o que como quando estou doente?",
        # a date that is an evening out
        "how did the date with Ana go?",
    ],
)
def test_other_questions_do_not_ask_when(query: str) -> None:
    assert not read_time(query, NOW).asks_when
