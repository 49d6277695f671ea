"""When a question is about: "last week", "em março", "3 days ago", "ontem" become a window of
time that recall matches episode dates against; "when did I..." / "quando é que..." asks for a
date, which only episodes carry.

:func:`read_time` returns the window (``start``, ``end`` as epoch seconds, end exclusive), the
query with the time words taken out (they name the date, not the content: "march" is seldom in
the message that answers "what did I do in March"), and whether the query asks *when*. Months
without a year mean the latest one not in the future; weeks start on Monday.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.memory.sqlite.query import fold

__all__ = ["TimeHint", "read_time"]

_MONTHS = {
    **{
        name: number
        for number, name in enumerate(
            "january february march april may june july august september october november"
            " december".split(),
            1,
        )
    },
    **{
        name: number
        for number, name in enumerate(
            "janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro"
            " dezembro".split(),
            1,
        )
    },
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_UNITS = {
    "day": 1, "days": 1, "dia": 1, "dias": 1,
    "week": 7, "weeks": 7, "semana": 7, "semanas": 7,
    "month": 30, "months": 30, "mes": 30, "meses": 30,
    "year": 365, "years": 365, "ano": 365, "anos": 365,
}  # fmt: skip
_NUMBER = {"a": 1, "one": 1, "two": 2, "three": 3, "um": 1, "uma": 1, "dois": 2, "duas": 2,
           "tres": 3, "couple": 2}  # fmt: skip

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "month",
        re.compile(
            rf"\b(?:in|during|last|since|em|durante|de|desde)\s+({_MONTH})"
            r"(?:\s+(?:de\s+)?(\d{4}))?\b"
        ),
    ),
    ("month", re.compile(rf"\b({_MONTH})\s+(?:de\s+)?(\d{{4}})\b")),
    (
        "ago",
        re.compile(
            r"\b(\d+|a|one|two|three|couple|um|uma|dois|duas|tres)\s+(?:of\s+)?"
            r"(days?|weeks?|months?|years?|dias?|semanas?|mes|meses|anos?)\s+ago\b"
        ),
    ),
    ("ha", re.compile(r"\bha\s+(\d+|um|uma|dois|duas|tres)\s+(dias?|semanas?|mes|meses|anos?)\b")),
    ("yesterday", re.compile(r"\b(?:yesterday|ontem)\b")),
    ("today", re.compile(r"\b(?:today|hoje|this morning|esta manha)\b")),
    (
        "last_week",
        re.compile(
            r"\b(?:last week(?:end)?|(?:na |no )?(?:semana|fim de semana)"
            r" passad[ao]|the week before)\b"
        ),
    ),
    ("this_week", re.compile(r"\b(?:this week|esta semana|nesta semana)\b")),
    ("last_month", re.compile(r"\b(?:last month|(?:no )?mes passado)\b")),
    ("this_month", re.compile(r"\b(?:this month|este mes|neste mes)\b")),
    ("last_year", re.compile(r"\b(?:last year|(?:no )?ano passado)\b")),
]
_WHEN = re.compile(
    r"\b(?:when|what date|what day|which day|how long ago|quando|que dia|em que dia|"
    r"em que data|ha quanto tempo)\b"
)


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


def _month_window(month: int, year: int | None, now: datetime) -> tuple[datetime, datetime]:
    if year is None:
        year = now.year if month <= now.month else now.year - 1
    start = datetime(year, month, 1, tzinfo=now.tzinfo)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=now.tzinfo)
    return start, end


def _window(kind: str, match: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    today = _day(now)
    if kind == "month":
        year = int(match.group(2)) if match.group(2) else None
        return _month_window(_MONTHS[match.group(1)], year, now)
    if kind in ("ago", "ha"):
        raw = match.group(1)
        count = int(raw) if raw.isdigit() else _NUMBER.get(raw, 1)
        days = _UNITS.get(match.group(2), 1) * count
        centre = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))  # "a month ago" is never to the day
        return centre - slack, centre + slack + timedelta(days=1)
    if kind == "yesterday":
        return today - timedelta(days=1), today
    if kind == "today":
        return today, today + timedelta(days=1)
    monday = today - timedelta(days=today.weekday())
    if kind == "last_week":
        return monday - timedelta(days=7), monday
    if kind == "this_week":
        return monday, today + timedelta(days=1)
    first = today.replace(day=1)
    if kind == "last_month":
        return _month_window(
            (first - timedelta(days=1)).month, (first - timedelta(days=1)).year, now
        )
    if kind == "this_month":
        return first, today + timedelta(days=1)
    return datetime(now.year - 1, 1, 1, tzinfo=now.tzinfo), datetime(
        now.year, 1, 1, tzinfo=now.tzinfo
    )


def read_time(query: str, now: datetime) -> TimeHint:
    """The time window ``query`` names (relative to ``now``), its remaining words, and whether
    it asks when."""
    folded = fold(query)
    asks_when = _WHEN.search(folded) is not None
    for kind, pattern in _PATTERNS:
        match = pattern.search(folded)
        if match is None:
            continue
        start, end = _window(kind, match, now)
        rest = (folded[: match.start()] + " " + folded[match.end() :]).strip()
        return TimeHint((start.timestamp(), end.timestamp()), rest or folded, asks_when)
    return TimeHint(None, query, asks_when)
