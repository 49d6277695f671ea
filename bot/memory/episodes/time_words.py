"""The words that name a time in a recall question, English and Portuguese, as patterns over the
folded query (lower case, accents removed): each pattern is tagged with the kind of window it
names, and :mod:`bot.memory.episodes.time_query` (which compiles them once, behind one
substring test) turns a match into that window; :data:`WHEN` finds a question about when
something happened, and :data:`NAMED_TIME` the other ways a message names a time (what lifts
a message that may say when, for such a question).

The table is read in order and the first kind that matches wins, so the narrower readings come
first: a date before its month ("em 9 de maio" is a day, not May), "the day before yesterday"
and "last night" before "yesterday". Each pattern takes the words around the time with it
("on", "na", "no dia", "passada") so that nothing of it is left in the searched text.

Portuguese segunda/terça/quarta/quinta/sexta are also the ordinals second to sixth, and a
"quinta" is a farm: they are weekdays only with "-feira", after na/nesta/desde/"na última", or
before passada/"que vem", and not before a noun that the ordinal would qualify ("na segunda
vez", "na quinta do avô"). Sábado and domingo need a word of time too: "o jantar de domingo" is
a habit, not last Sunday. Numeric dates (9/5) are left alone: day and month come in either
order depending on the country.
"""

from __future__ import annotations

import re

__all__ = ["MONTHS", "NAMED_TIME", "NUMBERS", "PATTERNS", "UNITS", "WEEKDAYS", "WHEN"]

MONTHS = {
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
#: weekday name -> ``datetime.weekday()`` (Monday 0)
WEEKDAYS = {
    **{name: number for number, name in enumerate(
        "monday tuesday wednesday thursday friday saturday sunday".split())},
    **{name: number for number, name in enumerate(
        "segunda terca quarta quinta sexta sabado domingo".split())},
}  # fmt: skip
UNITS = {
    "day": 1, "days": 1, "dia": 1, "dias": 1,
    "week": 7, "weeks": 7, "semana": 7, "semanas": 7,
    "month": 30, "months": 30, "mes": 30, "meses": 30,
    "year": 365, "years": 365, "ano": 365, "anos": 365,
}  # fmt: skip
NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "um": 1, "uma": 1, "dois": 2, "duas": 2,
           "tres": 3, "couple": 2}  # fmt: skip

_MONTH = "(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_DAY_NUMBER = r"(?:[12]\d|3[01]|0?[1-9])"
_DAY = rf"(?P<day>{_DAY_NUMBER})(?:st|nd|rd|th|o)?\b"
_YEAR = r"(?P<year>\d{4})\b"

_EN_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EN_WEEKDAY = f"(?P<weekday>{_EN_DAYS})"
_PT_WEEKDAY = r"(?P<weekday>segunda|terca|quarta|quinta|sexta|sabado|domingo)(?P<feira>[-\s]feira)?"
#: what follows an ordinal or "quinta" (farm) rather than a weekday
_NOT_WEEKDAY = (
    r"(?(feira)|(?!\s+(?:vez|vezes|parte|partes|posicao|lugar|classe|serie|ano|fila|geracao|"
    r"edicao|temporada|opcao|pessoa|mao|metade|em)\b|\s+d[oa]s?\b(?!\s+semana)))"
)
_PT_BEFORE = (
    r"(?:(?P<since>desde)\s+(?:[ao]\s+)?(?:ultim[ao]\s+)?|n(?:est|ess)?[ao]\s+(?:ultim[ao]\s+)?"
    r"|(?:[ao]\s+)?ultim[ao]\s+)"
)
_PT_AFTER = r"\s+(?:passad[ao]|(?P<next>que vem))\b"
#: what ends a clause: "the week before" is this week's before only when nothing follows it
_ENDS = r"(?=\s*(?:[?.!,;]|$))"
#: a part of the day after a weekday goes with it ("na quinta de manhã", "on Friday night"), and
#: the week it is of: the last ("on Monday the week before?"), or one before or after
#: something else ("on Monday the week before the wedding": no day this reads)
_PART = (
    r"(?:\s+(?:de manha|a tarde|de tarde|a noite|de noite|morning|afternoon|evening|night))?\b"
    rf"(?P<week_before>\s+(?:[dn]a semana passada|(?:of |in )?last week|the week before{_ENDS}))?"
    r"(?P<week_of_another>,?\s+(?:the week|[dn]a semana) (?:after|depois\b|(?:before|antes)\s+\w))?"
)

PATTERNS: list[tuple[str, str]] = [
    # a date: the day of a month, with or without its year, or ISO
    (
        "date",
        (
            r"\b(?:(?P<since>since|desde)\s+|(?:on|em|a|no dia|dia)\s+)?"
            r"(?P<year>\d{4})-(?P<month>0[1-9]|1[0-2])-(?P<day>[0-2]\d|3[01])\b"
        ),
    ),
    (
        "date",
        (
            rf"\b(?:(?P<since>desde)\s+(?:o\s+)?(?:dia\s+)?|(?:(?:n?o\s+)?dia|em|a|no)\s+)?"
            rf"{_DAY}\s+de\s+{_MONTH}\b(?:\s+(?:de\s+)?{_YEAR})?"
        ),
    ),
    (
        "date",
        rf"\b(?:(?P<since>since)\s+|on\s+)?{_MONTH}\s+(?:the\s+)?{_DAY}(?:,?\s+{_YEAR})?",
    ),
    (
        "date",
        (
            rf"\b(?:(?P<since>since)\s+|on\s+)?(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}\b"
            rf"(?:,?\s+{_YEAR})?"
        ),
    ),
    ("day_before", r"\b(?:the\s+)?(?:day before yesterday|anteontem|antes de ontem)\b"),
    ("last_night", r"\b(?:last night|ontem (?:a|de) noite)\b"),
    # a weekday: the latest one (today included unless "last"), or since then
    (
        "weekday",
        rf"\b{_PT_BEFORE}{_PT_WEEKDAY}{_NOT_WEEKDAY}(?:{_PT_AFTER})?{_PART}",
    ),
    ("weekday", rf"\b(?:[ao]\s+)?{_PT_WEEKDAY}{_PT_AFTER}{_PART}"),
    (
        "weekday",
        rf"\b(?P<weekday>segunda|terca|quarta|quinta|sexta)[-\s]feira\b{_PART}",
    ),
    (
        "weekday",
        (
            rf"\b(?:(?P<since>since)\s+|(?P<next>next)\s+|(?:on\s+)?(?:last|this past|past)\s+|"
            rf"on\s+){_EN_WEEKDAY}\b{_PART}"
        ),
    ),
    (
        "few_days",
        (
            r"\b(?:(?:a\s+)?few days ago|some days ago|the other day|"
            r"(?:ha\s+)?(?:uns|alguns|poucos)\s+dias\s+atras|ha\s+(?:uns|alguns|poucos)\s+dias|"
            r"(?<!um )(?<!num )(?<!qualquer )(?:n?o\s+)?outro\s+dia(?!\s+qualquer)|noutro dia)\b"
        ),
    ),
    (
        "month",
        (
            rf"\b(?:in|during|last|since|em|durante|de|desde)\s+{_MONTH}"
            rf"(?:\s+(?:de\s+)?{_YEAR})?\b"
        ),
    ),
    ("month", rf"\b{_MONTH}\s+(?:de\s+)?{_YEAR}"),
    (
        "ago",
        (
            r"\b(?P<count>\d+|a|one|two|three|couple|um|uma|dois|duas|tres)\s+(?:of\s+)?"
            r"(?P<unit>days?|weeks?|months?|years?|dias?|semanas?|mes|meses|anos?)\s+ago\b"
        ),
    ),
    (
        "ago",
        (
            r"\bha\s+(?P<count>\d+|um|uma|dois|duas|tres)\s+(?P<unit>dias?|semanas?|mes|meses|anos?)\b"
        ),
    ),
    ("yesterday", r"\b(?:yesterday|ontem)\b"),
    # "hoje em dia" is nowadays, no day
    ("today", r"\b(?:today|hoje(?! em dia)|this morning|esta manha)\b"),
    ("week_before_last", r"\bthe week before last\b"),
    (
        "last_week",
        (
            r"\b(?:last week(?:end)?|(?:na |no )?(?:semana|fim de semana)"
            rf" passad[ao]|the week before{_ENDS})\b"
        ),
    ),
    ("this_week", r"\b(?:this week|esta semana|nesta semana)\b"),
    ("last_month", r"\b(?:last month|(?:no )?mes passado)\b"),
    ("this_month", r"\b(?:this month|este mes|neste mes)\b"),
    ("last_year", r"\b(?:last year|(?:no )?ano passado)\b"),
    ("this_year", r"\b(?:this year|n?este ano)\b"),
]

#: a question about when something happened ("when did I", "em que mês", "a que horas"):
#: only an episode carries the date that answers it
WHEN = re.compile(
    r"\b(?:when|what date|the date of|what day|which day|(?:what|which) (?:month|year)"
    r"|what time did|how long ago|how long since|how long has it been"
    r"|quando|que dia|em que (?:dia|data|mes|ano|altura)|que ano|a que horas|ha quanto tempo)\b"
)

#: a time a message names beyond :data:`PATTERNS`, which read a question's past: a month by its
#: name where the name is nothing else ("may", "march", "april", "june", "august" and "marco"
#: are left to the patterns, which read them beside a day or after "in"), a day of the month
#: ("on the 14th", "dia 15"), a year after "in", a weekday after "on the" ("on the Thursday
#: before last"), an hour ("at 3pm", "às 15h"), and the days ahead
#: ("tomorrow", "next week", "daqui a duas semanas"). A weekday needs the patterns' "on",
#: "last" or "-feira": a bare one is as often a habit ("Sunday roast")
NAMED_TIME = re.compile(
    r"\b(?:"
    + "|".join(
        sorted(
            set(MONTHS) - {"may", "march", "april", "june", "august", "marco"},
            key=len,
            reverse=True,
        )
    )
    + rf"|on the {_DAY_NUMBER}(?:st|nd|rd|th)|(?:in|em|since|desde) (?:19|20)\d\d"
    rf"|dia {_DAY_NUMBER}\b(?! (?:de )?(?:dias?|semanas?|meses|anos?|horas?|vezes))"
    rf"|on the (?:{_EN_DAYS})"
    r"|at \d{1,2}(?::\d\d)? ?(?:am|pm)|as \d{1,2}(?:h|:\d\d)"
    r"|tomorrow|tonight|this (?:weekend|afternoon|evening)|next (?:week(?:end)?|month|year)"
    r"|the (?:next|following) day|(?:a|one|two|three) (?:days?|weeks?|months?) later"
    r"|amanha|(?:semana|mes|ano) que vem|proxim[ao] (?:semana|mes|ano)|no dia seguinte"
    r"|daqui a (?:\d+|uma?|dois|duas|tres|poucos|uns) (?:dias?|semanas?|mes|meses|anos?))\b"
)
