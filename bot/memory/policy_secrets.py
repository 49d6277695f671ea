"""The secret detector: where a text carries a password, key, token, card, account or id number.

One detector for every path that writes what people said (memory writes, automatic
extraction, mirrored files, distillation, the identity changelog): :func:`find_secrets` gives
the :class:`Span` of each value, :func:`redact_secrets` replaces each by :data:`WITHHELD`, and
:func:`secret_kind` / :func:`looks_secret` answer for a whole text. It tries, in turn: known
key formats (``sk-…``, ``ghp_…``, private key blocks), numbers that pass their check digits
(cards by Luhn, CPF and CNPJ, IBAN by mod 97), long or mixed-class tokens, and phrases in
English and Portuguese that name a credential and give its value ("pw for the router is …",
"coloquei X como senha", "cvv 737", "agência 1234 conta 98765-4"), including a value on the
line after a line that announces it ("my password is below.\\nhunter2!"). The tables are in
:mod:`bot.memory.policy_secret_rules`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from bot.memory import policy_secret_rules as rules
from bot.prefilter import PatternSet

__all__ = [
    "WITHHELD",
    "Span",
    "announces_value",
    "find_secrets",
    "fold_in_place",
    "looks_secret",
    "redact_secrets",
    "secret_kind",
]

#: what a secret value is replaced by
WITHHELD = "[secret withheld]"


@dataclass(frozen=True, slots=True)
class Span:
    """Where one secret value sits in a text: ``text[start:end]``, and what kind it is."""

    start: int
    end: int
    kind: str


_WHITESPACE = str.maketrans("\t\r\f\v\xa0", "     ")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    if char.isspace():
        return "\n" if char == "\n" else " "
    if char in "’‘":
        return "'"
    lower = char.lower()
    if len(lower) != 1:
        lower = char
    base = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
    return base if len(base) == 1 else lower


def fold_in_place(text: str) -> str:
    """Lower case, no accents, one character for one, so offsets stay the original's."""
    if text.isascii():
        return text.lower().translate(_WHITESPACE)
    return "".join(map(_fold_char, text))


# -- values that carry their own proof ----------------------------------------------------------

_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
_ELEVEN = re.compile(r"\b\d{11}\b")
_FOURTEEN = re.compile(r"\b\d{14}\b")
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){11,30}")
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{24,}")
_TOKEN = re.compile(r"\S{8,}")
_SYMBOLS = frozenset("!#$%&*+=?@^~|\\<>")


def _luhn(digits: str) -> bool:
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _check_digit(digits: str, weights: range | list[int]) -> int:
    rest = sum(int(d) * w for d, w in zip(digits, weights, strict=False)) % 11
    return 0 if rest < 2 else 11 - rest


def _cpf(digits: str) -> bool:
    if len(set(digits)) == 1:
        return False
    first = _check_digit(digits[:9], range(10, 1, -1))
    return first == int(digits[9]) and _check_digit(digits[:10], range(11, 1, -1)) == int(
        digits[10]
    )


def _cnpj(digits: str) -> bool:
    weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    first = _check_digit(digits[:12], weights[1:])
    return first == int(digits[12]) and _check_digit(digits[:13], weights) == int(digits[13])


def _iban_end(match: re.Match[str]) -> int | None:
    """End of the longest prefix of ``match`` that is a valid IBAN, or None."""
    positions = [match.start() + i for i, ch in enumerate(match.group(0)) if ch != " "]
    compact = match.group(0).replace(" ", "").upper()
    for length in range(min(len(compact), 34), 14, -1):
        candidate = compact[4:length] + compact[:4]
        if candidate.isalnum() and int("".join(str(int(c, 36)) for c in candidate)) % 97 == 1:
            return positions[length - 1] + 1
    return None


def _entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for ch in token:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _random_looking(token: str) -> bool:
    """A long token mixing letters and digits with high entropy: a key, not a word."""
    stripped = token.strip("=-_")
    if len(stripped) < 24 or not any(c.isdigit() for c in stripped):
        return False
    return any(c.isalpha() for c in stripped) and _entropy(stripped) >= 3.5


def _password_shaped(token: str) -> bool:
    """Lower and upper case, a digit and a symbol in one word of 8 or more: "Xk9#mP2qLw"."""
    core = token.strip("\"'()[]{}").rstrip(".,;:?!")
    if len(core) < 8 or core[0] in "#@" or "@" in core or "://" in core:
        return False
    return (
        any(c.islower() for c in core)
        and any(c.isupper() for c in core)
        and any(c.isdigit() for c in core)
        and any(c in _SYMBOLS for c in core)
    )


_FORMATS = PatternSet([pattern.pattern for _kind, pattern in rules.FORMATS])
_DIGIT = re.compile(r"\d")


def _self_evident(text: str) -> list[Span]:
    spans = [
        Span(m.start(), m.end(), rules.FORMATS[index][0]) for index, m in _FORMATS.matches(text)
    ]
    digits = len(_DIGIT.findall(text))
    if digits == 0:  # every check below needs a digit
        return spans
    if digits >= 11:
        for match in _CARD.finditer(text):
            found = re.sub(r"\D", "", match.group(0))
            if 13 <= len(found) <= 19 and _luhn(found):
                spans.append(Span(match.start(), match.end(), "card number"))
        spans += [Span(*m.span(), "id number") for m in _ELEVEN.finditer(text) if _cpf(m[0])]
        spans += [Span(*m.span(), "id number") for m in _FOURTEEN.finditer(text) if _cnpj(m[0])]
    for match in _IBAN.finditer(text):
        if (end := _iban_end(match)) is not None:
            spans.append(Span(match.start(), end, "bank account"))
    for match in _LONG_TOKEN.finditer(text):
        if _random_looking(match.group(0)):
            spans.append(Span(match.start(), match.end(), "high-entropy string"))
    for match in _TOKEN.finditer(text):
        if _password_shaped(match.group(0)):
            spans.append(Span(match.start(), match.end(), "password-shaped string"))
    return spans


# -- values a phrase announces ------------------------------------------------------------------

_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\n|\s(?:but|mas)\s")
_VALUE = re.compile(r"\S+")
_UNIT = re.compile(r"\d+(?:[.,]\d+)?(?:mbps|ghz|mhz|gb|mb|kg|km|g|h|x|mega|reais|%)")


def _to_clause_end(folded: str, start: int) -> int:
    """Where the clause that starts at ``start`` ends; never inside its first word
    ("Admin4321!" keeps its "!")."""
    first = _VALUE.match(folded, start)
    found = _CLAUSE_END.search(folded, first.end() if first else start)
    end = found.start() if found else len(folded)
    return max(end, first.end()) if first else end


def _credential_like(value: str, *, strong: bool) -> bool:
    """A value that reads as a credential: digits or symbols in it (a weak key asks more:
    a code of digits, or letters and digits mixed, six or more)."""
    core = value.lstrip("\"'([{").rstrip(".,;:?!)]}\"'")
    digits = sum(c.isdigit() for c in core)
    symbols = any(not c.isalnum() for c in core)
    if strong:
        return len(core) >= 3 and (digits > 0 or symbols) and not _UNIT.fullmatch(core)
    if core.replace(" ", "").isdigit():
        return 3 <= len(core) <= 12
    letters = any(c.isalpha() for c in core)
    return len(core) >= 6 and digits > 0 and (letters or symbols) and not _UNIT.fullmatch(core)


def _plain_e(text: str, match: re.Match[str]) -> bool:
    """Whether the copula is a bare "e" ("and" in Portuguese, or "é" typed without its
    accent): then only a value with a digit or symbol counts."""
    start, end = match.span("copula")
    return text[start:end] in ("e", "E", "eh")


def _first_word(folded: str, start: int) -> str:
    found = _VALUE.match(folded, start)
    return found.group(0) if found else ""


#: a recovery phrase has twelve words or more; fewer is a phrase about one
_MIN_PHRASE_WORDS = 8


def _strong(text: str, folded: str, match: re.Match[str]) -> Span | None:
    value = _first_word(folded, match.end())
    if _plain_e(text, match) and not _credential_like(value, strong=True):
        return None
    key = match.group("key")
    if rules.NUMERIC_KEYS.search(key) and not any(c.isdigit() for c in value):
        return None
    end = _to_clause_end(folded, match.end())
    if rules.PHRASE_KEYS.search(key) and len(folded[match.end() : end].split()) < _MIN_PHRASE_WORDS:
        return None
    return Span(match.end(), end, "credential")


def _weak(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    if not _credential_like(_first_word(folded, match.end()), strong=False):
        return None
    return Span(match.end(), _to_clause_end(folded, match.end()), "credential")


def _right_after(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    value = _first_word(folded, match.end())
    strong = rules.WEAK_KEYS_ONLY.fullmatch(match.group("key")) is None
    if not _credential_like(value, strong=strong):
        return None
    return Span(match.end(), match.end() + len(value), "credential")


def _value_group(kind: str, *, check: bool = False, min_digits: int = 0) -> _Handler:
    """A handler that takes the match's ``value`` group, when it reads as a credential
    (``check``) and holds at least ``min_digits`` digits."""

    def handle(_text: str, _folded: str, match: re.Match[str]) -> Span | None:
        value = match.group("value")
        if check and not _credential_like(value, strong=True):
            return None
        if sum(c.isdigit() for c in value) < min_digits:
            return None
        return Span(*match.span("value"), kind)

    return handle


_Handler = Callable[[str, str, re.Match[str]], "Span | None"]
#: each phrase pattern and what makes a span of its match; the first four are the key
#: phrases, and the value-first pattern (which has no word to look for) runs only with them
_PHRASE_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (rules.STRONG_PHRASE, _strong),
    (rules.WEAK_PHRASE, _weak),
    (rules.STRONG_RIGHT_AFTER, _right_after),
    (rules.VALUE_FIRST, _value_group("credential", check=True)),
    (rules.ID_NUMBER, _value_group("id or account number", min_digits=6)),
    (rules.BARE_CODE, _value_group("code")),
    (rules.EXPIRY, _value_group("card expiry")),
    (rules.LOGIN_PAIR, _value_group("credential")),
    (rules.EMAIL_PAIR, _value_group("credential", check=True)),
]
_PHRASES = PatternSet([pattern.pattern for pattern, _handler in _PHRASE_RULES])
_VALUE_FIRST = 3


def _phrases(text: str, folded: str) -> list[Span]:
    spans: list[Span] = []
    chosen = _PHRASES.candidates(folded)
    for index in chosen:
        if index == _VALUE_FIRST and 0 not in chosen:
            continue
        pattern, handler = _PHRASE_RULES[index]
        for match in pattern.finditer(folded):
            if (span := handler(text, folded, match)) is not None:
                spans.append(span)
    return spans + _next_lines(folded) if "\n" in folded else spans


def _next_lines(folded: str) -> list[Span]:
    """A line that announces a value ("senha:", "my password is below.") makes the next
    non-empty line a secret."""
    spans: list[Span] = []
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]*", folded) if m.group(0).strip()]
    for (_start, line), (next_start, next_line) in pairwise(lines):
        if announces_value(line):
            lead = len(next_line) - len(next_line.lstrip())
            spans.append(
                Span(next_start + lead, next_start + len(next_line.rstrip()), "credential")
            )
    return spans


def announces_value(line: str) -> bool:
    """Whether ``line`` only announces a value to come ("my password is below.", "senha do
    email:"): a line that says nothing itself, and warns that the next one is a secret."""
    folded = fold_in_place(line.strip())
    return bool(rules.ANNOUNCE_LINE.search(folded) or rules.LABEL_LINE.match(folded))


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.end <= span.start:
            continue
        if merged and span.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.kind)
        else:
            merged.append(span)
    return merged


def _outside_markers(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without those that start inside a :data:`WITHHELD` marker, so redacted text
    reads as clean and redacting twice changes nothing."""
    if WITHHELD not in text:
        return spans
    markers = [m.span() for m in re.finditer(re.escape(WITHHELD), text)]
    kept = []
    for span in spans:
        # the last marker that starts at or before the span: does the span start inside it?
        index = bisect_right(markers, span.start, key=lambda marker: marker[0]) - 1
        if index < 0 or span.start >= markers[index][1]:
            kept.append(span)
    return kept


def find_secrets(text: str) -> list[Span]:
    """Every secret value in ``text``, in order, overlapping finds merged."""
    spans = _self_evident(text)
    folded = fold_in_place(text)
    if rules.KEY_ANYWHERE.search(folded) or "@" in folded:
        spans += _phrases(text, folded)
    return _merged(_outside_markers(text, spans))


def redact_secrets(text: str, marker: str = WITHHELD) -> str:
    """``text`` with every secret value replaced by ``marker``; the rest is left as it is."""
    spans = find_secrets(text)
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for span in spans:
        parts += [text[done : span.start], marker]
        done = span.end
    parts.append(text[done:])
    return "".join(parts)


def secret_kind(text: str) -> str | None:
    """What kind of secret ``text`` carries first, or None."""
    spans = find_secrets(text)
    return spans[0].kind if spans else None


def looks_secret(text: str) -> bool:
    """True when ``text`` carries a password, key, token, card, account or id number."""
    return bool(find_secrets(text))
