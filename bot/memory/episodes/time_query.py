"""When a question is about: "last week", "em março", "on May 9", "na terça passada", "last
night", "3 days ago", "ontem" become a window of time that recall matches episode dates
against; "when did I..." / "quando é que..." asks for a date, which only episodes carry.

:func:`read_time` returns the window (``start``, ``end`` as epoch seconds, end exclusive), the
query with the time words taken out (they name the date, not the content: "march" is seldom in
the message that answers "what did I do in March"), and whether the query asks *when*.
:func:`says_a_time` tells whether a message names a time, by the same words (and the
readings that reject some: "all 3 may come" is no date) and by :data:`NAMED_TIME`: the
message that answers a *when* question usually does. The words are those of
:mod:`bot.memory.episodes.time_words`.

Days are the days of ``now``'s zone: the backends pass the user's local time, so "yesterday"
asked at 22:00 in São Paulo is São Paulo's yesterday, not UTC's. A month or date without a year
is the latest one not in the future; a weekday is the latest such day, today included ("on
Wednesday" asked on a Wednesday) unless it is "last" or "passada" (then a week ago); "since"
or "desde" a day runs to the end of today; weeks start on Monday. "Last night" is yesterday
evening into the small hours of today, "a few days ago" / "outro dia" two to seven days back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.memory.episodes.time_words import (
    MONTHS,
    NAMED_TIME,
    NUMBERS,
    PATTERNS,
    UNITS,
    WEEKDAYS,
    WHEN,
)
from bot.memory.prefilter import PatternSet
from bot.memory.sqlite.query import fold

__all__ = ["TimeHint", "read_time", "says_a_time"]

_LAST = re.compile(r"\b(?:last|past|passad[ao]|ultim[ao])\b")
_SPACE_BEFORE_MARK = re.compile(r"\s+([?!.,;:])")
#: "all 3 may come": a bare number before "may" and a word after is the verb, not a date
_MAY_THE_VERB = re.compile(r"\d+ may")
_WORD_AFTER = re.compile(r"\s+[a-z]")
#: the patterns behind one substring test: most messages name no time, and skip them all
_TIME = PatternSet([pattern for _kind, pattern in PATTERNS])
_KINDS = tuple(kind for kind, _pattern in PATTERNS)
_DAY = timedelta(days=1)
_EVENING, _SMALL_HOURS = 18, 6

Span = tuple[datetime, datetime]


@dataclass(frozen=True, slots=True)
class TimeHint:
    """What a query says about time."""

    #: (start, end) epoch seconds, end exclusive; None when the query names no time
    window: tuple[float, float] | None
    #: the query without its time words (the whole query when it has none)
    text: str
    #: the query asks when something happened
    asks_when: bool


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_window(month: int, year: int | None, now: datetime) -> Span:
    if year is None:
        year = now.year if month <= now.month else now.year - 1
    start = datetime(year, month, 1, tzinfo=now.tzinfo)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=now.tzinfo)
    return start, end


def _date(match: re.Match[str], today: datetime) -> datetime | None:
    """The day a date names; without a year the latest one not after today (a 29 February
    goes back to the last leap year); None when there is no such day (31 April)."""
    raw_month = match.group("month")
    if _MAY_THE_VERB.fullmatch(match.group(0)) and _WORD_AFTER.match(match.string, match.end()):
        return None
    month = MONTHS.get(raw_month) or int(raw_month)
    day = int(match.group("day"))
    if match.group("year"):
        years = [int(match.group("year"))]
    else:
        years = list(range(today.year, today.year - 8, -1))
    for year in years:
        try:
            found = today.replace(year=year, month=month, day=day)
        except ValueError:
            continue
        if match.group("year") or found <= today:
            return found
    return None


def _weekday(match: re.Match[str], today: datetime) -> datetime:
    """The latest such weekday (today included, unless the words say "last"), the one of last
    week with "da semana passada", the next one after today with "next" / "que vem"."""
    weekday = WEEKDAYS[match.group("weekday")]
    if _group(match, "week_before"):  # "na segunda da semana passada": that week's Monday
        return today - _DAY * (today.weekday() + 7 - weekday)
    if _group(match, "next"):
        return today + _DAY * ((weekday - today.weekday()) % 7 or 7)
    back = (today.weekday() - weekday) % 7
    if back == 0 and _LAST.search(match.group(0)):
        back = 7
    return today - _DAY * back


def _group(match: re.Match[str], name: str) -> str | None:
    """A named group's text; None when the pattern has no such group or it did not take part."""
    return match.group(name) if name in match.re.groupindex else None


def _window(kind: str, match: re.Match[str], now: datetime) -> Span | None:
    today = _day(now)
    if kind in ("date", "weekday"):
        if _group(match, "week_of_another"):  # a day of a week this question does not date
            return None
        day = _date(match, today) if kind == "date" else _weekday(match, today)
        if day is None:
            return None
        return (day, today + _DAY) if _group(match, "since") else (day, day + _DAY)
    if kind == "month":
        year = int(match.group("year")) if match.group("year") else None
        return _month_window(MONTHS[match.group("month")], year, now)
    if kind == "ago":
        raw = match.group("count")
        count = int(raw) if raw.isdigit() else NUMBERS.get(raw, 1)
        days = UNITS.get(match.group("unit"), 1) * count
        centre = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))  # "a month ago" is never to the day
        return centre - slack, centre + slack + _DAY
    if kind == "day_before":
        return today - 2 * _DAY, today - _DAY
    if kind == "last_night":
        return (today - _DAY).replace(hour=_EVENING), today.replace(hour=_SMALL_HOURS)
    if kind == "few_days":
        return today - 7 * _DAY, today - _DAY
    if kind == "yesterday":
        return today - _DAY, today
    if kind == "today":
        return today, today + _DAY
    monday = today - timedelta(days=today.weekday())
    if kind == "last_week":
        return monday - 7 * _DAY, monday
    if kind == "week_before_last":
        return monday - 14 * _DAY, monday - 7 * _DAY
    if kind == "this_week":
        return monday, today + _DAY
    first = today.replace(day=1)
    if kind == "last_month":
        last = first - _DAY
        return _month_window(last.month, last.year, now)
    if kind == "this_month":
        return first, today + _DAY
    january = today.replace(month=1, day=1)
    if kind == "this_year":
        return january, today + _DAY
    return january.replace(year=today.year - 1), january


#: Portuguese weekdays that are also ordinals (and "quinta" a farm)
_ORDINALS = frozenset({"segunda", "terca", "quarta", "quinta", "sexta"})
#: words beside one that make it plainly a day: "-feira", "passada", "que vem", "última", a
#: part of the day ("na sexta à noite"), "desde"
_PLAINLY_A_DAY = re.compile(r"feira|passad|que vem|ultim|desde|manha|tarde|noite|semana")


def _without(folded: str, match: re.Match[str]) -> str:
    """``folded`` with the matched words taken out, and no gap or comma left where they were.

    A bare Portuguese ordinal read as a weekday stays among the words ("o que plantámos na
    quinta?" may be the farm, "quem estava na segunda festa?" the second party): the day only
    ranks the episodes said on it higher, and the word still finds those that name it."""
    weekday = _group(match, "weekday")
    bare = weekday in _ORDINALS and not _PLAINLY_A_DAY.search(match.group(0))
    kept = weekday if bare else ""
    rest = " ".join((folded[: match.start()] + f" {kept} " + folded[match.end() :]).split())
    return _SPACE_BEFORE_MARK.sub(r"\1", rest).strip(" ,;:")


#: a question word that opens a question about something else: a "when" after it is a
#: conjunction ("what do I eat when I'm ill?", "o que como quando estou doente?")
_OTHER_QUESTION = re.compile(
    r"^\W*(?:what|which|who|whom|whose|where|why|how|o que|que|qual|quais|quem|onde|como"
    r"|porque|por que|quanto|quantos|quantas)\b"
)


def _asks_when(folded: str) -> bool:
    match = WHEN.search(folded)
    if match is None:
        return False
    bare = match.group(0) in ("when", "quando")
    return not (bare and _OTHER_QUESTION.match(folded[: match.start()]) is not None)


def read_time(query: str, now: datetime) -> TimeHint:
    """The time window ``query`` names (days as ``now``'s zone counts them), its remaining
    words, and whether it asks when."""
    folded = fold(query)
    asks_when = _asks_when(folded)
    for index, match in _TIME.matches(folded):
        span = _window(_KINDS[index], match, now)
        if span is None:
            continue
        start, end = span
        rest = _without(folded, match)
        return TimeHint((start.timestamp(), end.timestamp()), rest or folded, asks_when)
    return TimeHint(None, query, asks_when)


def says_a_time(text: str) -> bool:
    """Whether ``text`` names a time: a date, a day, a month, "yesterday", "three weeks ago",
    "na terça passada", "next Friday", "amanhã"."""
    folded = fold(text)
    if NAMED_TIME.search(folded) is not None:
        return True
    now = datetime.now(UTC)  # any day: only whether the words name a time is asked
    return any(_window(_KINDS[i], match, now) is not None for i, match in _TIME.matches(folded))
