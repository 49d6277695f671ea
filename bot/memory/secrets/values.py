"""Secrets that prove themselves, whatever is said around them.

Known key formats (``sk-…``, ``ghp_…``, private key blocks; :data:`FORMATS` in
:mod:`bot.memory.secrets.credential_formats`), numbers that pass their check digits (cards by Luhn,
even broken over two lines; CPF and CNPJ; IBAN by mod 97), long high-entropy tokens, and
words of eight or more that mix lower and upper case, digits and symbols ("Xk9#mP2qLw").
:func:`self_evident` finds them on the original text, where case matters;
:mod:`bot.memory.secrets.detector` adds the phrases (:mod:`bot.memory.secrets.key_phrases`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from bot.memory.prefilter import PatternSet
from bot.memory.secrets.credential_formats import FORMATS

__all__ = ["BEFORE", "Span", "self_evident", "text_before", "value_span"]


@dataclass(frozen=True, slots=True)
class Span:
    """Where one secret value sits in a text: ``text[start:end]``, and what kind it is."""

    start: int
    end: int
    kind: str


#: a card's number, its groups apart by a space or a hyphen, or broken once over two lines as
#: it is pasted ("card: 4532 0151\n1283 0366")
_CARD = re.compile(r"\b(?:\d(?:[ -]|[ ]?\n[ ]?)?){12,18}\d\b")
_ELEVEN = re.compile(r"\b\d{11}\b")
_FOURTEEN = re.compile(r"\b\d{14}\b")
#: the countries whose banks give IBANs: "#FF5733 orange" is a colour
_IBAN_COUNTRIES = (
    "AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI"
    " GL GR GT HN HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI"
    " NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE"
)
_IBAN = re.compile(
    rf"(?<![#\w])(?i:{'|'.join(_IBAN_COUNTRIES.split())})\d{{2}}(?:[ ]?[A-Za-z0-9]){{11,30}}"
)
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{24,}")
_TOKEN = re.compile(r"\S{8,}")
_SYMBOLS = frozenset("!#$%&*+=?@^~|\\<>")


#: how much of a text before a value the rules that read "the words before it" look at
BEFORE = 64


def text_before(text: str, at: int) -> str:
    """The few words of ``text`` before ``at``, that the rules which read "the words before a
    value" look at: a window, so that a long text costs no more for each value."""
    return text[max(0, at - BEFORE) : at]


def value_span(
    start: int, match: re.Match[str], kind: str = "password", value: str | None = None
) -> Span:
    """The ``kind`` of value of a rule's ``value`` group (or of ``value``, the group's start
    trimmed), in a sentence at ``start`` of its text."""
    at = start + match.start("value")
    return Span(at, at + len(value) if value is not None else start + match.end("value"), kind)


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


#: a group of an IBAN written in groups that is a word of the sentence, not the account's:
#: "my flight is BA2490 to Lisbon" (letters only, not all capitals)
_WORD_GROUP = re.compile(r"[ ](?=[A-Za-z]*[a-z])[A-Za-z]+(?![A-Za-z0-9])")


def _iban_end(match: re.Match[str]) -> int | None:
    """End of the longest prefix of ``match`` that is a valid IBAN, or None; the prefix stops
    before a group that is a word, so the words after a flight's number are no IBAN that
    happens to pass mod 97."""
    word = _WORD_GROUP.search(match.group(0))
    written = match.group(0) if word is None else match.group(0)[: word.start()]
    positions = [match.start() + i for i, ch in enumerate(written) if ch != " "]
    compact = written.replace(" ", "").upper()
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


def _card_grouped(number: str) -> bool:
    """Whether a number's groups are a card's: none, fours (the last may be shorter), or
    4-6-5 and 4-6-4 (American Express, Diners); an order's 702-4481937-5520113 is not. A
    line break is only ever between groups, and only one: a list of years a line each is
    no card."""
    if number.count("\n") > 1:
        return False
    groups = [len(group) for group in re.split(r"[ \n-]", number) if group]
    if len(groups) == 1 or groups in ([4, 6, 5], [4, 6, 4]):
        return True
    return all(size == 4 for size in groups[:-1]) and 1 <= groups[-1] <= 4


#: a player's or a user's name, not a password: "meu nick no Valorant é Luquinhas#BR1"
_HANDLE = re.compile(
    r"\b(?:nick(?:name)?|gamer ?tag|battle ?tag|riot id|user ?name|handle|username|usuario"
    r"|utilizador|add me|me adiciona|friend code)\b(?![^\n]*\b(?:password|senha|pass|pw|pin)\b)"
    r"[^\n]{0,40}$",
    re.IGNORECASE,
)


#: a setting's name before its value in one word: "SSH_KEY_PATH=~/.ssh/id_ed25519"
_SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*[=:](?!//)")


def _password_shaped(token: str) -> bool:
    """Lower and upper case, a digit and a symbol in one word of 8 or more: "Xk9#mP2qLw"; of
    a setting ("NAME=value"), its value alone, since the name's capitals and underscore are
    no password's."""
    core = token.strip("\"'()[]{}").rstrip(".,;:?!")
    setting = _SETTING.match(core) if "=" in core or ":" in core else None
    if setting is not None:
        core = core[setting.end() :]
    if len(core) < 8 or core[0] in "#@" or "@" in core or "://" in core:
        return False
    return (
        any(c.islower() for c in core)
        and any(c.isupper() for c in core)
        and any(c.isdigit() for c in core)
        and any(c in _SYMBOLS for c in core)
    )


_FORMATS = PatternSet([pattern.pattern for _kind, pattern in FORMATS])
_DIGIT = re.compile(r"\d")


def self_evident(text: str) -> list[Span]:
    """Every value in ``text`` that is a secret by its shape alone, unordered."""
    spans = [Span(m.start(), m.end(), FORMATS[index][0]) for index, m in _FORMATS.matches(text)]
    digits = len(_DIGIT.findall(text))
    if digits == 0:  # every check below needs a digit
        return spans
    if digits >= 11:
        for match in _CARD.finditer(text):
            found = re.sub(r"\D", "", match.group(0))
            if 13 <= len(found) <= 19 and _luhn(found) and _card_grouped(match.group(0)):
                spans.append(Span(match.start(), match.end(), "card"))
        spans += [Span(*m.span(), "id") for m in _ELEVEN.finditer(text) if _cpf(m[0])]
        spans += [Span(*m.span(), "id") for m in _FOURTEEN.finditer(text) if _cnpj(m[0])]
    for match in _IBAN.finditer(text):
        if (end := _iban_end(match)) is not None:
            spans.append(Span(match.start(), end, "account"))
    for match in _LONG_TOKEN.finditer(text):
        if _random_looking(match.group(0)):
            spans.append(Span(match.start(), match.end(), "key"))
    for match in _TOKEN.finditer(text):
        if _password_shaped(match.group(0)) and not _HANDLE.search(
            text_before(text, match.start())
        ):
            spans.append(Span(match.start(), match.end(), "password"))
    return spans
