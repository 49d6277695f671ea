"""A value that comes after the words that ask for it: on the next line, or in the next message.

"What's the wifi password?" and then "lemonade2019"; "my new pin:" and then "4471"; "new
password for the NAS" over a line "harborlights". :func:`asked_kind` says which kind of secret
a line names while leaving its value out, and :func:`bare_value` where, in the text that
follows, a bare value of that kind is: a word or three, a number, digits said as words, a
quoted phrase, or twelve words and more of a seed phrase; or the value that opens it before a
remark ("sunflower88! same as always", "4821, igual ao antigo"). Both run on folded text (see
:func:`bot.memory.secrets.detector.fold_in_place`); the detector uses them line by line, and
:mod:`bot.memory.secrets.door` across two messages.
"""

from __future__ import annotations

import re

from bot.memory.secrets import key_words
from bot.memory.secrets.spoken_digits import DIGIT_RUN, SAID_NUMBERS, SLOW_DIGITS

__all__ = ["NUMERIC_KINDS", "asked_kind", "bare_value", "key_kind"]

#: kinds whose value has digits (or digits said as words)
NUMERIC_KINDS = frozenset({"pin", "code", "card", "account", "id"})

_KEY = re.compile(
    rf"\b(?:{key_words.STRONG_KEYS}|{key_words.WEAK_KEYS}|{key_words.ID_KEYS}|codes?|codigos?|combo"
    r"|passphrase|seed)(?!\w)"
)
#: after its key, a line that says something about the secret instead of asking for it
_STATEMENT = re.compile(
    r"\b(?:is|are|e|eh|esta|sao|was|were|got|gets|has|had|have|changed|expired|broke|works?|worked|stopped|sucks"
    r"|fica|ficou|estava|mudou|expirou|tem|foi|bloque\w*|venc\w*|esqueci|forgot|lost|perdi)\b"
)
#: the end of a line that announces what comes next: "...:", "... is", "it's", "é", "below"
_ANNOUNCING_END = re.compile(
    r"(?::|\?|\bis|\bit'?s|\bare|\be|\beh|\bsao|\bbelow|\bfollows|\babaixo|\bsegue|\bhere|\baqui)"
    r"\W*$"
)
#: short replies and words that are never a value
_NOT_A_VALUE = frozenset(
    "ok okay k yes yeah yep yup no nope nah sure thanks thank thx ty obrigado obrigada valeu vlw"
    " sim nao later depois idk dunno hmm hm lol haha hehe kkk kkkk rs rsrs ah oh uh nada nothing"
    " none nenhuma nenhum same again hello hi hey oi ola done fine great cool perfect beleza blz"
    " certo isso exato changed mudei esqueci forgot why what who how where when quando onde"
    " porque ainda soon breve talvez maybe pronto feito yet it the a".split()
)
#: how a value may be led into: "it's", "yes, now it's", "é", "agora é", and a reminder
#: before it ("remember that it is", "don't forget, it's", "lembra-te que é")
_LEAD = re.compile(
    r"^(?:(?:yes|yeah|yep|sim|ok|okay|sure|claro|so|entao)\W+)?"
    r"(?:(?:please[ ]+)?(?:remember|don'?t forget|note|lembra(?:-te)?|nao te esquecas|nao esquecas)"
    r"(?:[ ]+(?:that|que|de que))?\W+)?(?:(?:now|agora)[ ]+)?"
    r"(?:(?:it'?s|it is|its|that'?s|is|e|eh|era|ficou|sera|the (?:new )?one is)(?!\w))?[ ]*:?[ ]*"
)
_QUOTE = re.compile(r"[\"“'«][^\"“”'«»\n]{2,80}[\"”'»]$")
_NUMBER = re.compile(r"[\d#*][\d .#*/-]*$")
_SEED = re.compile(r"[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23}$")


def key_kind(key: str) -> str:
    """The kind of secret that the folded key words ``key`` name ("password" if unsure)."""
    for kind, pattern in key_words.KEY_KINDS:
        if pattern.search(key):
            return kind
    return "password"


def asked_kind(line: str) -> str | None:
    """The kind of secret the folded ``line`` names while leaving its value out: a question
    ("what's the wifi password?"), a line that announces it ("my new pin:", "the code is"), or
    a short label ("new password for the NAS", "here is my seed phrase"). A statement about a
    secret ("my PIN got blocked") asks for nothing. The caller makes sure that the line holds
    no value itself."""
    stripped = line.strip()
    key = _KEY.search(stripped)
    if key is None:
        return None
    kind = key_kind(key.group(0))
    if _ANNOUNCING_END.search(stripped):
        return kind
    if len(stripped.split()) <= 8 and not _STATEMENT.search(stripped, key.end()):
        return kind
    return None


def _three_digits(value: str) -> bool:
    return sum(c.isdigit() for c in value) >= 3


def _numeric(value: str) -> bool:
    """Whether ``value`` is a number of three digits or more, in figures or said as words:
    one at a time ("four four one two"), with a pause between each ("four. eight. two. one"),
    or in twos, as a dial's numbers are ("twelve thirty four")."""
    if _NUMBER.match(value):
        return _three_digits(value)
    return any(p.fullmatch(value) for p in (DIGIT_RUN, SLOW_DIGITS, SAID_NUMBERS))


#: a value that opens a reply, with a remark after it: "sunflower88! same as always", "4821,
#: same as before"
_OPENING_VALUE = re.compile(r"(?P<value>[^\s,;!?]+)[,;:!?.]+[ ]+(?=\S)")


def _opening_value(body: str, start: int, kind: str) -> tuple[int, int] | None:
    """Where the value is when a reply opens with it and goes on to say something else: a
    number of the kind's (three digits or more), or a word of letters and digits."""
    found = _OPENING_VALUE.match(body, start)
    if found is None:
        return None
    word = found.group("value")
    if kind in NUMERIC_KINDS:
        given = bool(_NUMBER.match(word)) and _three_digits(word)
    else:
        given = len(word) >= 4 and any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    return found.span("value") if given else None


def bare_value(text: str, kind: str) -> tuple[int, int] | None:
    """Where the folded ``text`` (the rest of a message, or one line) is nothing but a value of
    ``kind``, or opens with one before a remark: its start and end, or None when it says
    something else."""
    body = text.rstrip()
    if not body.strip() or body.count("\n") > 1 or body.endswith(("?", ":")):
        return None
    start = len(body) - len(body.lstrip())
    lead = _LEAD.match(body, start)
    if lead is not None:
        start = lead.end()
    end = len(body.rstrip(".!,;"))
    value = body[start:end].replace("\n", " ").strip()
    if not value:
        return None
    if (opening := _opening_value(body, start, kind)) is not None:
        return opening
    if kind == "seed":
        return (start, end) if _SEED.match(value) else None
    if kind in NUMERIC_KINDS:
        return (start, end) if _numeric(value) else None
    if _QUOTE.match(value) or _numeric(value):
        return start, end
    words = value.split()
    if len(words) == 1:
        return None if words[0] in _NOT_A_VALUE or len(words[0]) < 3 else (start, end)
    marked = any(not c.isalpha() and not c.isspace() for c in value)
    if len(words) <= 4 and marked and not any(w.strip(",;:.!?") in _NOT_A_VALUE for w in words):
        return start, end
    return None
