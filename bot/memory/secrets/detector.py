"""The secret detector: where a text carries a password, PIN, code, card, account, id, key or
seed phrase.

One detector for every path that writes what people said (the door of a turn,
:mod:`bot.memory.secrets.door`; memory writes, automatic extraction, mirrored files,
distillation, the identity changelog): :func:`find_secrets` gives the :class:`Span` of each
value with its kind, :func:`redact_secrets` replaces each by a marker that names the kind
(``[secret withheld: pin]``, :func:`marker`), and :func:`secret_kind` / :func:`looks_secret`
answer for a whole text. A marker is never taken for a secret, so redacting twice changes
nothing (:data:`MARKERS`).

Four parts find values; ``bench/policy_accuracy.py`` measures detect-secrets' alone and the
other three (the project's own rules) together:

- detect-secrets' plugins (:mod:`bot.memory.secrets.library`): vendor keys and tokens,
  private keys, high-entropy strings;
- the values that prove themselves (:mod:`bot.memory.secrets.values`): key formats
  (``sk-…``, ``ghp_…``), numbers that pass their check digits (cards by Luhn, CPF and CNPJ,
  IBAN by mod 97), long or mixed-class tokens;
- the conversational rules, English and Portuguese: phrases that name a credential and give
  its value ("pw for the router is …", "coloquei X como senha", "cvv 737", "agência 1234 conta
  98765-4", "acct no. 0098123456", "the wifi password, which nobody remembers, is …"), a value
  on the line after the words that ask for it ("my password is below.\\nhunter2!",
  :mod:`bot.memory.secrets.carry`), and secrets as they are said in chat, read a
  sentence at a time (:mod:`bot.memory.secrets.speech`, with the rules of each kind:
  :mod:`~bot.memory.secrets.codes`, :mod:`~bot.memory.secrets.cards`,
  :mod:`~bot.memory.secrets.passwords` (with :mod:`~bot.memory.secrets.ways_in`,
  :mod:`~bot.memory.secrets.sign_in_pairs` and :mod:`~bot.memory.secrets.password_words`),
  :mod:`~bot.memory.secrets.seeds`). The phrase tables are in
  :mod:`bot.memory.secrets.rules`;
- what is pasted from a machine: env and config lines (``DB_PASSWORD=...``, ``"api_token":
  "..."``) and the password a command line carries (``mysql -pX``,
  :mod:`bot.memory.secrets.config`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise

from bot.memory.prefilter import PatternSet
from bot.memory.secrets import rules
from bot.memory.secrets.carry import asked_kind, bare_value, key_kind
from bot.memory.secrets.codes import POSTAL
from bot.memory.secrets.config import config_secrets
from bot.memory.secrets.library import library_secrets
from bot.memory.secrets.password_words import NOT_MIXED, everyones
from bot.memory.secrets.public import public_spans
from bot.memory.secrets.speech import sentence_siblings, spoken_secrets
from bot.memory.secrets.values import Span, self_evident, text_before

__all__ = [
    "KINDS",
    "MARKERS",
    "WITHHELD",
    "Span",
    "announces_value",
    "find_secrets",
    "fold_in_place",
    "library_secrets",
    "looks_secret",
    "marker",
    "own_secrets",
    "redact_secrets",
    "secret_kind",
]

#: the kinds a value is found as, and named as in its marker
KINDS = rules.KINDS
#: what a secret is replaced by where its kind is not said (a whole sentence withheld)
WITHHELD = "[secret withheld]"
#: every marker, of a kind or not: what was withheld once is never found again
MARKERS = re.compile(r"\[secret withheld(?:: [a-z]+)?\]")


def marker(kind: str) -> str:
    """What a value of ``kind`` is replaced by: ``[secret withheld: pin]``."""
    return f"[secret withheld: {kind}]"


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


#: an emoji set around a value as decoration ("wifi pass 👉 coconut_palm 👈"), with its joiners
#: and variation selectors; not those that name a value themselves ("🔑 Lisboa#22", "🏧 5519")
_PICTOGRAPH = re.compile(
    r"[\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001f3e6\U0001f3e8-\U0001f50f"
    r"\U0001f514-\U0001faff]"
)


def _without_pictographs(folded: str) -> str:
    """``folded`` with each decorative emoji a space (offsets kept), so the rules read the
    words on either side of it as they would read them written plainly."""
    if folded.isascii():
        return folded
    return _PICTOGRAPH.sub(" ", folded)


# -- values a phrase announces ------------------------------------------------------------------

_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\n|\s(?:but|mas)\s")
_VALUE = re.compile(r"\S{1,128}")
#: how far a value's clause is read for its end: a value is withheld to there at most
_CLAUSE_MAX = 600
_UNIT = re.compile(r"\d+(?:[.,]\d+)?(?:mbps|ghz|mhz|gb|mb|kg|km|g|h|x|mega|reais|%)")


def _to_clause_end(folded: str, start: int) -> int:
    """Where the clause that starts at ``start`` ends; never inside its first word
    ("Admin4321!" keeps its "!"), and with that word when it ends the sentence ("4821.")."""
    first = _VALUE.match(folded, start)
    if first is None:
        return start
    if first.group(0)[-1] in ".!?;":
        return first.end()
    limit = min(len(folded), first.end() + _CLAUSE_MAX)
    found = _CLAUSE_END.search(folded, first.end(), limit)
    return found.start() if found else limit


#: a word with an apostrophe in it, which is no symbol: "he's", "don't", "d'água"
_CONTRACTION = re.compile(r"[^\W\d_]+['’][^\W\d_]+")


def _credential_like(value: str, *, strong: bool) -> bool:
    """A value that reads as a credential: digits or symbols in it (a weak key asks more:
    a code of digits, or letters and digits mixed, six or more)."""
    core = value.lstrip("\"'([{").rstrip(".,;:?!)]}\"'")
    digits = sum(c.isdigit() for c in core)
    symbols = any(not c.isalnum() for c in core) and not _CONTRACTION.fullmatch(core)
    if strong:
        return len(core) >= 3 and (digits > 0 or symbols) and not _UNIT.fullmatch(core)
    if core.replace(" ", "").isdigit():
        return 3 <= len(core) <= 12
    letters = any(c.isalpha() for c in core)
    return len(core) >= 6 and digits > 0 and (letters or symbols) and not _UNIT.fullmatch(core)


#: a copula that says the key has not changed: "the pw is still popcorn22", "a senha continua
#: a ser Girassol22"; what follows it is as often a remark ("is still wrong", "continua fraca")
_STILL = re.compile(r"(?i:still|continua)")


def _loose_copula(text: str, match: re.Match[str]) -> bool:
    """Whether the copula may not be one: a bare "e" ("and" in Portuguese, or "é" typed
    without its accent), "'s" (the key's own, as in "the password's length"), or one that
    says the key has not changed. Then only a value with a digit or symbol counts."""
    start, end = match.span("copula")
    copula = text[start:end].replace("’", "'")
    return copula in ("e", "E", "eh", "'s", "'S") or _STILL.search(copula) is not None


def _first_word(folded: str, start: int) -> str:
    found = _VALUE.match(folded, start)
    return found.group(0) if found else ""


#: a recovery phrase has twelve words or more; fewer is a phrase about one
_MIN_PHRASE_WORDS = 12
_PHRASE_LONG = re.compile(rf"\s*(?:\S+\s+){{{_MIN_PHRASE_WORDS - 1}}}\S")


def _not_a_number_key(key: str, value: str, folded: str, at: int) -> bool:
    """Whether a PIN's or a code's key at ``at`` gives no number here: a link ("Dropping a pin:
    https://maps..."), or a place's "PIN code" beside the words for a postal code."""
    if not rules.NUMERIC_KEYS.search(key):
        return False
    if value.startswith(("http", "www.")):
        return True
    return key == "pin code" and POSTAL.search(folded, max(0, at - 60), at + 100) is not None


#: a "senha" that says what it opens: "a senha do cadeado", "senha da porta"
_OF_A_THING = re.compile(r"[ ]+d[oa]s?[ ]")


def _queue_ticket(value: str, folded: str, match: re.Match[str]) -> bool:
    """Whether the "senha" of ``match`` is a ticket of a queue: a short ticket's number, the
    "senha" of nothing named, beside the words of a queue ("na farmácia chamaram a senha
    A47"; not "a senha do cadeado é 123")."""
    if match.group("key") != "senha" or _OF_A_THING.match(folded, match.end("key")):
        return False
    if not rules.QUEUE_TICKET.fullmatch(value.rstrip(",.;!?")):
        return False
    at = match.start()
    return rules.QUEUE_WORDS.search(folded, max(0, at - 60), at + 80) is not None


_ARROW = re.compile(r"-+>|=>|→")


def _menu_path(folded: str, match: re.Match[str]) -> bool:
    """Whether an arrow after a key is a step of a path through menus, with another arrow
    before or after it: "go to Settings -> Password -> Change"."""
    if not _ARROW.search(match.group(0)):
        return False
    near = (
        folded[max(0, match.start() - 60) : match.start()] + folded[match.end() : match.end() + 60]
    )
    return _ARROW.search(near) is not None


def _strong(text: str, folded: str, match: re.Match[str]) -> Span | None:
    value = _first_word(folded, match.end())
    if _menu_path(folded, match):
        return None
    if _not_a_number_key(match.group("key"), value, folded, match.start()):
        return None
    if _queue_ticket(value, folded, match):
        return None
    if _loose_copula(text, match) and not _credential_like(value, strong=True):
        return None
    key = match.group("key")
    if rules.NUMERIC_KEYS.search(key) and not any(c.isdigit() for c in value):
        return None
    end = _to_clause_end(folded, match.end())
    if rules.PHRASE_KEYS.search(key) and not _PHRASE_LONG.match(folded, match.end(), end):
        return None
    return Span(match.end(), end, key_kind(key))


#: a network's name, not its password: "o nome da rede wifi da casa da praia é CasaPraia5G"
_NAME_WORDS = r"\b(?:name|nome|ssid|called|chamad[ao])\b"
_NAMED = re.compile(rf"{_NAME_WORDS}[^.!?\n]{{0,20}}$")
_NAME_WORD = re.compile(_NAME_WORDS)


#: an aside that says who made the value up: ", which my brother picked,", ", que ela escolheu,"
_MADE_UP = re.compile(
    r"\b(?:picked|chose|chosen|came up with|made up|invented|created|set up|set|escolheu|escolhi"
    r"|escolhemos|escolhida|inventou|inventei|inventamos|criou|criei|definiu|defini|pos|botou"
    r"|colocou)\b"
)
#: one plain word that ends its clause: "..., is mangotango", "..., é abacaxi."
_LONE_WORD = re.compile(r"[a-z]{4,32}(?=[ ]*(?:[,.!?;)]|$))", re.MULTILINE)


def _aside(text: str, folded: str, match: re.Match[str]) -> Span | None:
    """A value after an aside ("the wifi password, which nobody remembers, is ..."): one that
    reads as a credential, a name written with its capital ("..., is Biscuit"), or a lone
    word after an aside that says who made it up ("..., which my brother picked, is
    mangotango"); a word about the key is the sentence's own ("the password, which expires
    monthly, is annoying")."""
    value = _first_word(folded, match.end())
    if not (
        _credential_like(value, strong=True)
        or text[match.end() : match.end() + 1].isupper()
        or _made_up(folded, match)
    ):
        return None
    return _strong(text, folded, match)


def _made_up(folded: str, match: re.Match[str]) -> bool:
    """Whether the aside of ``match`` says who made the value up, and one lone word follows."""
    aside = match.groupdict().get("aside")
    return (
        aside is not None
        and _MADE_UP.search(aside) is not None
        and _LONE_WORD.match(folded, match.end()) is not None
    )


def _apposed(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    """A value set between commas after its key ("a door code, 2291#, and the mailbox key
    ..."): one with a digit, that reads as a credential and is not a size or a model ("the
    pin, 4-digit, ..."); a word there is the sentence's own ("the password, though, is")."""
    value = match.group("value")
    if not _credential_like(value, strong=True) or NOT_MIXED.fullmatch(value):
        return None  # _credential_like leaves out a size too ("3kg")
    key = rules.KEY_BEFORE_COMMA.search(text_before(folded, match.start()))
    if key is None:
        return None
    return Span(*match.span("value"), key_kind(key.group("key")))


def _weak(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    if not _credential_like(_first_word(folded, match.end()), strong=False):
        return None
    if _NAMED.search(text_before(folded, match.start())) or _NAME_WORD.search(
        folded, match.start(), match.start("copula")
    ):
        return None  # "wifi name is SmithFamily_5G"
    return Span(match.end(), _to_clause_end(folded, match.end()), key_kind(match.group(0)))


def _right_after(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    value = _first_word(folded, match.end())
    key = match.group("key")
    if _not_a_number_key(key, value, folded, match.start()) or _menu_path(folded, match):
        return None
    if _queue_ticket(value, folded, match):
        return None
    strong = rules.WEAK_KEYS_ONLY.fullmatch(key) is None
    if not _credential_like(value, strong=strong):
        return None
    if rules.NUMERIC_KEYS.search(key) and not any(c.isdigit() for c in value):
        return None  # "pin: seven three" is for the spoken digits' rule, all of them
    return Span(match.end(), match.end() + len(value), key_kind(key))


def _value_group(kind: str | None, *, check: bool = False, min_digits: int = 0) -> _Handler:
    """A handler that takes the match's ``value`` group, when it reads as a credential
    (``check``) and holds at least ``min_digits`` digits; of ``kind``, or (None) of the kind
    its key words name."""

    def handle(_text: str, _folded: str, match: re.Match[str]) -> Span | None:
        value = match.group("value")
        if check and not _credential_like(value, strong=True):
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
        for pair in rules.PAIR.finditer(folded, start, _line_end(folded, start))
        if _credential_like(pair.group("value"), strong=True)
    ]


_Handler = Callable[[str, str, re.Match[str]], "Span | list[Span] | None"]
_CHECKED = _value_group(None, check=True)
#: each phrase pattern and what makes a span of its match; the first four are the key
#: phrases, and the value-first pattern (which has no word to look for) runs only with them
_PHRASE_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (rules.STRONG_PHRASE, _strong),
    (rules.WEAK_PHRASE, _weak),
    (rules.STRONG_RIGHT_AFTER, _right_after),
    (rules.VALUE_FIRST, _value_first),
    (rules.ID_NUMBER, _value_group(None, min_digits=6)),
    (rules.BARE_CODE, _value_group("code")),
    (rules.EXPIRY, _value_group("card")),
    (rules.LOGIN_PAIR, _value_group("password")),
    (rules.EMAIL_PAIR, _value_group("password", check=True)),
    (rules.ADMIN_PAIR, _value_group("password", check=True)),
    (rules.LOGINS_PAIRS, _pairs),
    (rules.WIFI_PAIR, _value_group("password", check=True)),
    (rules.KEY_COMMA_IS, _value_group(None, check=True)),
    (rules.COMMAND_USER, _value_group("password")),
    (rules.KEY_ASIDE_COLON, _strong),
    (rules.KEY_ASIDE_IS, _aside),
    (rules.KEY_IN_ASIDE, _aside),
    (rules.KEY_APPOSITION, _apposed),
    (rules.ID_VALUE_FIRST, _value_group(None, min_digits=6)),
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
            found = handler(text, folded, match)
            if isinstance(found, list):
                spans += found
            elif found is not None:
                spans.append(found)
    return spans


_LINE = re.compile(r"[^\n]*")


def _next_lines(folded: str, found: list[Span]) -> list[Span]:
    """A line that announces a value ("senha:", "my password is below.") makes the next
    non-empty line a secret; one that asks for a value ("the code for the gate", "new pin")
    makes it a secret when it is a bare value of that kind ("four four eight one"). A line
    that gave its value already asks for nothing."""
    spans: list[Span] = []
    lines = [(m.start(), m.group(0)) for m in _LINE.finditer(folded) if m.group(0).strip()]
    for (start, line), (next_start, next_line) in pairwise(lines):
        if any(start <= span.start < start + len(line) for span in found):
            continue
        lead = len(next_line) - len(next_line.lstrip())
        if announces_value(line):
            end = next_start + len(next_line.rstrip())
            spans.append(Span(next_start + lead, end, key_kind(line)))
            continue
        asked = asked_kind(line)
        value = bare_value(next_line, asked) if asked is not None else None
        if asked is not None and value is not None:
            spans.append(Span(next_start + value[0], next_start + value[1], asked))
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
    """``spans`` without those that start inside a marker (:data:`MARKERS`), so redacted
    text reads as clean and redacting twice changes nothing."""
    if "[secret withheld" not in text:
        return spans
    return _starting_outside(spans, [m.span() for m in MARKERS.finditer(text)])


def _starting_outside(spans: list[Span], regions: list[tuple[int, int]]) -> list[Span]:
    """``spans`` without those that start inside one of ``regions`` (in order, apart)."""
    kept = []
    for span in spans:
        # the last region that starts at or before the span: does the span start inside it?
        index = bisect_right(regions, span.start, key=lambda region: region[0]) - 1
        if index < 0 or span.start >= regions[index][1]:
            kept.append(span)
    return kept


#: the kinds of value a public one may be taken for: a card, PIN or account is never public
_PUBLIC_KINDS = frozenset({"key", "password"})


def _outside_public(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without those inside a public key, an address, a hash or a UUID
    (:mod:`bot.memory.secrets.public`): "backup drive UUID is 1d9acbce-4045-..."."""
    if not spans:
        return spans
    public: list[tuple[int, int]] = []
    for start, end in sorted(public_spans(text)):
        if public and start <= public[-1][1]:
            public[-1] = (public[-1][0], max(end, public[-1][1]))
        else:
            public.append((start, end))
    others = [span for span in spans if span.kind not in _PUBLIC_KINDS]
    eligible = [span for span in spans if span.kind in _PUBLIC_KINDS]
    return others + _starting_outside(eligible, public)


def _without_marker_words(text: str, folded: str) -> str:
    """``folded`` with the words of each marker blanked (its brackets kept, offsets too): a
    marker names a kind ("[secret withheld: password]"), and that word is no key for the
    rules that read the words around a value ("the answer to 'city you were born' is [...]"
    names no password), so redacting twice changes nothing."""
    if "[secret withheld" not in text:
        return folded
    parts: list[str] = []
    done = 0
    for found in MARKERS.finditer(text):
        start, end = found.span()
        parts += [folded[done:start], "[", " " * (end - start - 2), "]"]
        done = end
    return "".join([*parts, folded[done:]])


def own_secrets(text: str) -> list[Span]:
    """The values the project's own rules find (all but detect-secrets'), unordered."""
    spans = self_evident(text) + config_secrets(text)
    folded = _without_marker_words(text, _without_pictographs(fold_in_place(text)))
    spans += spoken_secrets(folded, text)
    if rules.KEY_ANYWHERE.search(folded) or "@" in folded:
        spans += _phrases(text, folded)
    if "\n" in folded:
        spans += _next_lines(folded, spans)
    spans = _outside_public(text, spans)
    if spans:
        spans += sentence_siblings(folded, spans)
    return spans


@lru_cache(maxsize=64)
def find_secrets(text: str) -> tuple[Span, ...]:
    """Every secret value in ``text``, in order, overlapping finds merged.

    A turn asks this of its message several times (the door, the write policy, its candidate
    facts, the episode it is kept as): the answer is kept for the last few texts."""
    spans = own_secrets(text) + _outside_public(text, library_secrets(text))
    return tuple(_merged(_outside_markers(text, spans)))


def redact_secrets(text: str, replacement: str | None = None) -> str:
    """``text`` with every secret value replaced by the marker of its kind (or by
    ``replacement``); the rest is left as it is."""
    spans = find_secrets(text)
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for span in spans:
        parts += [text[done : span.start], replacement or marker(span.kind)]
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
