"""The value a key word announces after it, for :mod:`bot.memory.secrets.key_phrases`.

Each rule takes a match of a phrase pattern of :mod:`bot.memory.secrets.phrase_patterns` on
folded text (lower case, no accents, offsets kept) and gives the
:class:`~bot.memory.secrets.values.Span` of its value, or None:

- after a strong key and its copula ("pw for the router is ...", "the pw its ...", "a senha
  do cadeado é 123"), to the end of its clause (:func:`after_strong_key`: a remark after the
  value, "BlueOcean$77 capital B and O", "7261, não digas a ninguém", goes with it, since it
  may say something of the value); after a weak one ("wifi is ..."), a value that reads as a
  credential (:func:`after_weak_key`); straight after its key ("cvv 4412", "wifi:
  Girassol2020", :func:`right_after_key`), with every code of a list ("backup codes 8472-1193
  5530-2281 7719-4402");
- after an aside ("the wifi password, which nobody remembers, is ...", :func:`after_aside`),
  and set between commas after its key ("a door code, 2291#, and ...", :func:`apposed_value`).

What is not a value is left: a step of a path through menus ("Settings -> Password ->
Change"), a link or a postal code after a PIN's key, a queue's ticket ("chamaram a senha
A47"), a network's name ("wifi name is SmithFamily_5G"), a remark after a copula that may not
be one ("the pw is still wrong"), a size ("3kg").
"""

from __future__ import annotations

import re

from bot.memory.secrets import key_words, phrase_patterns
from bot.memory.secrets.carry import key_kind
from bot.memory.secrets.code_words import POSTAL
from bot.memory.secrets.password_words import NOT_MIXED
from bot.memory.secrets.values import Span, text_before

__all__ = [
    "after_aside",
    "after_strong_key",
    "after_weak_key",
    "apposed_value",
    "credential_like",
    "right_after_key",
]

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


def credential_like(value: str, *, strong: bool) -> bool:
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
#: the copulas that may be the key's own word, or a conjunction
_LOOSE = frozenset({"e", "eh", "'s", "its"})


def _loose_copula(text: str, match: re.Match[str]) -> bool:
    """Whether the copula may not be one: a bare "e" ("and" in Portuguese, or "é" typed
    without its accent), "'s" (the key's own, as in "the password's length"), "its" (the
    key's own too: "the pin its own thing"), or one that says the key has not changed. Then
    only a value with a digit or symbol counts."""
    start, end = match.span("copula")
    copula = text[start:end].replace("’", "'").lower()
    return copula in _LOOSE or _STILL.search(copula) is not None


def _first_word(folded: str, start: int) -> str:
    found = _VALUE.match(folded, start)
    return found.group(0) if found else ""


#: a recovery phrase has twelve words or more; fewer is a phrase about one
_MIN_PHRASE_WORDS = 12
_PHRASE_LONG = re.compile(rf"\s*(?:\S+\s+){{{_MIN_PHRASE_WORDS - 1}}}\S")


def _not_a_number_key(key: str, value: str, folded: str, at: int) -> bool:
    """Whether a PIN's or a code's key at ``at`` gives no number here: a link ("Dropping a pin:
    https://maps..."), or a place's "PIN code" beside the words for a postal code."""
    if not key_words.NUMERIC_KEYS.search(key):
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
    if not key_words.QUEUE_TICKET.fullmatch(value.rstrip(",.;!?")):
        return False
    at = match.start()
    return key_words.QUEUE_WORDS.search(folded, max(0, at - 60), at + 80) is not None


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


def after_strong_key(text: str, folded: str, match: re.Match[str]) -> Span | None:
    """The value after a strong key and its copula, to the end of its clause."""
    value = _first_word(folded, match.end())
    if _menu_path(folded, match):
        return None
    if _not_a_number_key(match.group("key"), value, folded, match.start()):
        return None
    if _queue_ticket(value, folded, match):
        return None
    if _loose_copula(text, match) and not credential_like(value, strong=True):
        return None
    key = match.group("key")
    if key_words.NUMERIC_KEYS.search(key) and not any(c.isdigit() for c in value):
        return None
    end = _to_clause_end(folded, match.end())
    if key_words.PHRASE_KEYS.search(key) and not _PHRASE_LONG.match(folded, match.end(), end):
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


def after_aside(text: str, folded: str, match: re.Match[str]) -> Span | None:
    """A value after an aside ("the wifi password, which nobody remembers, is ..."): one that
    reads as a credential, a name written with its capital ("..., is Biscuit"), or a lone
    word after an aside that says who made it up ("..., which my brother picked, is
    mangotango"); a word about the key is the sentence's own ("the password, which expires
    monthly, is annoying")."""
    value = _first_word(folded, match.end())
    if not (
        credential_like(value, strong=True)
        or text[match.end() : match.end() + 1].isupper()
        or _made_up(folded, match)
    ):
        return None
    return after_strong_key(text, folded, match)


def _made_up(folded: str, match: re.Match[str]) -> bool:
    """Whether the aside of ``match`` says who made the value up, and one lone word follows."""
    aside = match.groupdict().get("aside")
    return (
        aside is not None
        and _MADE_UP.search(aside) is not None
        and _LONE_WORD.match(folded, match.end()) is not None
    )


def apposed_value(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    """A value set between commas after its key ("a door code, 2291#, and the mailbox key
    ..."): one with a digit, that reads as a credential and is not a size or a model ("the
    pin, 4-digit, ..."); a word there is the sentence's own ("the password, though, is")."""
    value = match.group("value")
    if not credential_like(value, strong=True) or NOT_MIXED.fullmatch(value):
        return None  # credential_like leaves out a size too ("3kg")
    key = phrase_patterns.KEY_BEFORE_COMMA.search(text_before(folded, match.start()))
    if key is None:
        return None
    return Span(*match.span("value"), key_kind(key.group("key")))


def after_weak_key(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    """The value after a weak key and its copula, to the end of its clause, when it reads as a
    credential and the key is no network's name."""
    if not credential_like(_first_word(folded, match.end()), strong=False):
        return None
    if _NAMED.search(text_before(folded, match.start())) or _NAME_WORD.search(
        folded, match.start(), match.start("copula")
    ):
        return None  # "wifi name is SmithFamily_5G"
    return Span(match.end(), _to_clause_end(folded, match.end()), key_kind(match.group(0)))


#: a key that names a list of codes: "backup codes", "recovery codes", "códigos de recuperação"
_LIST_KEY = re.compile(r"\bcod(?:e|igo)s\b")
#: the next code of such a list, after a space, a comma or an "and": "8472-1193 5530-2281"
_NEXT_CODE = re.compile(r"(?:[ ]*[,;][ ]*|(?:[ ]+(?:and|e))?[ ]+)(?=[\w-]*\d)[\w-]{4,32}\b")


def _list_end(folded: str, end: int) -> int:
    """Where a list of codes that starts with the one ending at ``end`` ends: each further
    word with a digit after a space, a comma or an "and" is one of its codes."""
    while (found := _NEXT_CODE.match(folded, end)) is not None:
        end = found.end()
    return end


def right_after_key(_text: str, folded: str, match: re.Match[str]) -> Span | None:
    """The one word straight after its key, when it reads as a credential; after a key that
    names a list of codes ("2fa backup codes 8472-1193 5530-2281 7719-4402"), every code of
    the list."""
    value = _first_word(folded, match.end())
    key = match.group("key")
    if _not_a_number_key(key, value, folded, match.start()) or _menu_path(folded, match):
        return None
    if _queue_ticket(value, folded, match):
        return None
    strong = key_words.WEAK_KEYS_ONLY.fullmatch(key) is None
    if not credential_like(value, strong=strong):
        return None
    if key_words.NUMERIC_KEYS.search(key) and not any(c.isdigit() for c in value):
        return None  # "pin: seven three" is for the spoken digits' rule, all of them
    end = match.end() + len(value)
    if _LIST_KEY.search(key):
        end = _list_end(folded, end)
    return Span(match.end(), end, key_kind(key))
