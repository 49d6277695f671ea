"""User text to a safe FTS5 query, and the folded words it is made of.

Whatever a person or the model types (quotes, ``*``, ``NEAR(``, ``-``, ``:``, ``^``, brackets,
a megabyte of noise) becomes a plain disjunction of double-quoted tokens, so FTS5 never sees
its own syntax and never raises a syntax error. Stopwords (English and Portuguese) are dropped
from the query: measured on a long-conversation benchmark, that alone lifted recall@5 by about
.06. Tokens are compared without accents, the way ``unicode61 remove_diacritics 2`` indexes them.

On a large store a word found in thousands of memories makes FTS5 compute BM25 for every one
of them (about 1.5 µs each). :func:`plan_match` therefore asks first for the memories that hold
*all* the query's words when their document frequencies add up past :data:`EXACT_BUDGET`, and
widens only if that finds too little. Below the budget, and on every store of fewer memories
than the budget, the query is the exact disjunction. ``bench/recall.py`` prints how often the
planned top five equal the exact BM25 top five.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

__all__ = [
    "EXACT_BUDGET",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TOKENS",
    "NEWEST_WINDOW",
    "STOPWORDS",
    "MatchPlan",
    "build_match_query",
    "fold",
    "folded_words",
    "mirror_lines",
    "plan_match",
    "query_tokens",
    "telling",
]

MAX_QUERY_CHARS = 4000
"""Longer queries are cut here before tokenising: a 1 MB paste costs no more than a page."""

MAX_QUERY_TOKENS = 24
"""More distinct terms add FTS5 work without adding much recall."""

_MAX_TOKEN_CHARS = 48
_WORD = re.compile(r"[^\W_]+")

_STOPWORDS_EN = """
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can could did do does doing don't down during each few for
from further had has have having he her here hers herself him himself his how i i'm if in
into is it it's its itself just let's me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that that's
the their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your yours
yourself yourselves tell know remember anything something thing things do does did get got used
s t d ll m re ve
"""
_STOPWORDS_PT = """
a ao aos aquela aquelas aquele aqueles aquilo as ate com como da das de dela delas dele deles
depois do dos e ela elas ele eles em entre era eram essa essas esse esses esta estas este
estes eu foi fomos for foram ha isso isto ja la lhe lhes mais mas me mesmo meu meus minha
minhas muito na nao nas nem no nos nossa nossas nosso nossos num numa o os ou para pela pelas
pelo pelos por qual quando que quem se sem ser seu seus so sua suas tambem te tem tinha tu
tua tuas um uma umas uns voce voces vos qual quais onde sobre sabe lembra algo coisa coisas
estou esta estao sou somos sao tenho temos
"""
STOPWORDS: frozenset[str] = frozenset((_STOPWORDS_EN + _STOPWORDS_PT).split())
"""Accent-free, lower-case words dropped from the BM25 query (the unaccented PT forms cover
``é``, ``não``, ``também``, ``você`` and friends)."""

_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")


def fold(word: str) -> str:
    """Lower case, accents removed: ``École`` → ``ecole``."""
    lowered = word.lower()
    if lowered.isascii():  # most text: nothing to decompose (a tenth of the time)
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def telling(word: str) -> bool:
    """Whether a folded word can say what a message is about (a name, a place, a thing): three
    characters or more, not a stopword, not a number."""
    return len(word) >= 3 and word not in STOPWORDS and not word.isdigit()


def folded_words(text: str) -> list[str]:
    """The words of ``text``, folded, without a sign: one for each word the index stems."""
    return _WORD.findall(fold(text))


def query_tokens(text: str) -> list[str]:
    """Distinct folded search terms of ``text``, stopwords dropped, in first-seen order.

    If every word is a stopword ("who are you"), the stopwords are kept: a query made only of
    them still deserves its best lexical match rather than nothing.
    """
    words = _WORD.findall(fold(text[:MAX_QUERY_CHARS]))
    seen: dict[str, None] = {}
    for word in words:
        seen.setdefault(word[:_MAX_TOKEN_CHARS], None)
    tokens = list(seen)
    content = [token for token in tokens if token not in STOPWORDS]
    return (content or tokens)[:MAX_QUERY_TOKENS]


def build_match_query(text: str) -> str:
    """An FTS5 MATCH expression for ``text``: quoted tokens joined by ``OR``; ``""`` if none.

    Tokens hold letters and digits only, so the quotes never need escaping; quoting them still
    keeps words such as ``NEAR``, ``AND`` or ``NOT`` from being read as operators.
    """
    return " OR ".join(f'"{token}"' for token in query_tokens(text))


EXACT_BUDGET = 1500
"""Sum of the query words' document frequencies up to which the exact OR query is run."""

NEWEST_WINDOW = 1000
"""How many of its newest matches a plan that cannot be narrowed ranks (about 4 ms)."""


def _quoted(tokens: list[str]) -> list[str]:
    return [f'"{token}"' for token in tokens]


class MatchPlan(NamedTuple):
    """One MATCH expression, and how many of its newest matches to rank (None: all)."""

    expression: str
    newest: int | None = None


def plan_match(
    tokens: list[str], frequencies: dict[str, int], groups: list[list[str]] | None = None
) -> list[MatchPlan]:
    """MATCH plans to try in order; the caller stops at the first that finds enough.

    ``frequencies`` holds each token's document count in the index; a token missing from it
    matches nothing and is left out. An empty list means nothing can match. A plan that would
    still rank more than :data:`EXACT_BUDGET` memories (one very common word, or only common
    words that never meet) ranks the newest :data:`NEWEST_WINDOW` of them: BM25 can barely tell
    such matches apart anyway (one occurrence each, told apart by length alone). ``groups``
    are the tokens by query word (its English and Portuguese stems): the narrowed plan wants
    every word, in any of its forms, not every form.
    """
    present = [token for token in tokens if frequencies.get(token, 0) > 0]
    if not present:
        return []
    exact = " OR ".join(_quoted(present))
    total = sum(frequencies[token] for token in present)
    if total <= EXACT_BUDGET:
        return [MatchPlan(exact)]
    words = [
        forms
        for forms in (
            [token for token in group if frequencies.get(token, 0) > 0]
            for group in (groups or [[token] for token in present])
        )
        if forms
    ]
    if len(words) == 1:
        return [MatchPlan(exact, NEWEST_WINDOW)]
    selective = [token for token in present if frequencies[token] <= EXACT_BUDGET]
    widened = (
        MatchPlan(" OR ".join(_quoted(selective)))
        if selective and sum(frequencies[token] for token in selective) <= EXACT_BUDGET
        else MatchPlan(exact, NEWEST_WINDOW)
    )
    every_word = " AND ".join(
        f"({' OR '.join(_quoted(forms))})" if len(forms) > 1 else f'"{forms[0]}"' for forms in words
    )
    return [MatchPlan(every_word), widened]


def mirror_lines(text: str) -> list[str]:
    """The facts of a MEMORY.md / USER.md file: one per bullet or plain line.

    Headings, rules, code fences, tables and blank lines are not facts; bullet markers and
    task boxes are stripped. Order is kept, exact repeats dropped.
    """
    lines: dict[str, None] = {}
    in_fence = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            in_fence = not in_fence
            continue
        if in_fence or not line or line.startswith(("#", "|", ">", "<!--")):
            continue
        if set(line) <= set("-*_= "):
            continue
        line = _CHECKBOX.sub("", _BULLET.sub("", line)).strip()
        if folded_words(line):
            lines.setdefault(line, None)
    return list(lines)
