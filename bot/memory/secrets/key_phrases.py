"""The key phrases: a phrase that names a credential and gives its value, for
:mod:`bot.memory.secrets.detector`.

Each phrase pattern of :mod:`bot.memory.secrets.phrase_patterns` runs on folded text (lower case, no
accents, offsets kept) with the rule that makes a span of its match: the value after its key
word (:mod:`bot.memory.secrets.after_keys`: "pw for the router is …", "cvv 737", "the wifi
password, which nobody remembers, is …"), the value before it ("Sunflower88 is my instagram
password", "coloquei X como senha"; not words joined by hyphens, a time, or a password
everyone knows), or the value a pattern takes in a group of its own ("agência 1234 conta
98765-4", "login: maria / Cafe#7", "exp 11/27"), with every "name / password" pair of a line
of logins. :func:`phrase_spans` runs the patterns a text may match (the value-first one,
which has no word to look for, only where a strong key phrase may match too).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.memory.prefilter import PatternSet
from bot.memory.secrets import phrase_patterns
from bot.memory.secrets.after_keys import (
    after_aside,
    after_strong_key,
    after_weak_key,
    apposed_value,
    credential_like,
    right_after_key,
)
from bot.memory.secrets.carry import key_kind
from bot.memory.secrets.password_words import everyones
from bot.memory.secrets.values import Span

__all__ = ["phrase_spans"]

_Handler = Callable[[str, str, re.Match[str]], "Span | list[Span] | None"]


def _value_group(kind: str | None, *, check: bool = False, min_digits: int = 0) -> _Handler:
    """A handler that takes the match's ``value`` group, when it reads as a credential
    (``check``) and holds at least ``min_digits`` digits; of ``kind``, or (None) of the kind
    its key words name."""

    def handle(_text: str, _folded: str, match: re.Match[str]) -> Span | None:
        value = match.group("value")
        if check and not credential_like(value, strong=True):
            return None
        if sum(c.isdigit() for c in value) < min_digits:
            return None
        start, end = match.span("value")
        words = match.string[match.start() : start] + match.string[end : match.end()]
        return Span(start, end, kind or key_kind(words))

    return handle


#: words joined by hyphens, no digit: "Lembra-me de trocar a senha", "o e-mail de senha"
_HYPHENED_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
#: between a value and its key, a word that makes the value a time: "2019 is the year the pin
#: changed", "2019, esse é o ano em que a senha mudou"
_WHEN = re.compile(r"(?<![\w-])(?:year|month|week|day|date|time|ano|mes|semana|dia|data|vez)\b")


def _value_first(text: str, folded: str, match: re.Match[str]) -> Span | list[Span] | None:
    """A value before its key ("Sunflower88 is my instagram password"), unless it is words
    joined by hyphens, a time ("2019 is the year ..."), or a password everyone knows."""
    if _HYPHENED_WORDS.fullmatch(match.group("value").rstrip(",.")):
        return None
    if _WHEN.search(folded, match.end("value"), match.end()):
        return None
    if everyones(folded[match.end("value") : match.end()], folded[match.end() :]):
        return None
    return _CHECKED(text, folded, match)


def _line_end(folded: str, at: int) -> int:
    end = folded.find("\n", at)
    return len(folded) if end < 0 else end


def _pairs(_text: str, folded: str, match: re.Match[str]) -> list[Span]:
    """Every "name / password" pair from a logins phrase to the end of its line (the phrase
    matches once a line: its first)."""
    start = match.start("key")
    return [
        Span(*pair.span("value"), "password")
        for pair in phrase_patterns.PAIR.finditer(folded, start, _line_end(folded, start))
        if credential_like(pair.group("value"), strong=True)
    ]


_CHECKED = _value_group(None, check=True)
#: each phrase pattern and what makes a span of its match; the first four are the key
#: phrases, and the value-first pattern (which has no word to look for) runs only with them
_PHRASE_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (phrase_patterns.STRONG_PHRASE, after_strong_key),
    (phrase_patterns.WEAK_PHRASE, after_weak_key),
    (phrase_patterns.STRONG_RIGHT_AFTER, right_after_key),
    (phrase_patterns.VALUE_FIRST, _value_first),
    (phrase_patterns.ID_NUMBER, _value_group(None, min_digits=6)),
    (phrase_patterns.BARE_CODE, _value_group("code")),
    (phrase_patterns.EXPIRY, _value_group("card")),
    (phrase_patterns.LOGIN_PAIR, _value_group("password")),
    (phrase_patterns.EMAIL_PAIR, _value_group("password", check=True)),
    (phrase_patterns.ADMIN_PAIR, _value_group("password", check=True)),
    (phrase_patterns.LOGINS_PAIRS, _pairs),
    (phrase_patterns.WIFI_PAIR, _value_group("password", check=True)),
    (phrase_patterns.KEY_COMMA_IS, _value_group(None, check=True)),
    (phrase_patterns.COMMAND_USER, _value_group("password")),
    (phrase_patterns.KEY_ASIDE_COLON, after_strong_key),
    (phrase_patterns.KEY_ASIDE_IS, after_aside),
    (phrase_patterns.KEY_IN_ASIDE, after_aside),
    (phrase_patterns.KEY_APPOSITION, apposed_value),
    (phrase_patterns.ID_VALUE_FIRST, _value_group(None, min_digits=6)),
]
_PHRASES = PatternSet([pattern.pattern for pattern, _handler in _PHRASE_RULES])
_VALUE_FIRST = 3


def phrase_spans(text: str, folded: str) -> list[Span]:
    """The values the key phrases give in ``folded`` (``text`` as written), unordered."""
    spans: list[Span] = []
    chosen = _PHRASES.candidates(folded)
    for index in chosen:
        if index == _VALUE_FIRST and 0 not in chosen:
            continue
        pattern, handler = _PHRASE_RULES[index]
        for match in pattern.finditer(folded):
            found = handler(text, folded, match)
            if isinstance(found, list):
                spans += found
            elif found is not None:
                spans.append(found)
    return spans
