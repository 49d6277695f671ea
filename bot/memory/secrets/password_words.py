"""The words that name a password and the words that may be one, shared by the password rules
(:mod:`bot.memory.secrets.passwords`, :mod:`bot.memory.secrets.ways_in`,
:mod:`bot.memory.secrets.sign_in_pairs`), the sentences that follow a value
(:mod:`bot.memory.secrets.speech`) and the key phrases (:mod:`bot.memory.secrets.key_phrases`,
:mod:`bot.memory.secrets.after_keys`).

A password word names one unless it names a thing of its own ("password manager"); a word of
letters and digits may be one unless it is a size, a model or an ordinal ("5G", "3kg", "2nd"),
a flight or a train ("TP1350"); a password everyone knows is not the speaker's ("password123
is the most common password").
"""

from __future__ import annotations

import re

from bot.memory.secrets.phrase_patterns import NOT_KEY_OF
from bot.memory.secrets.values import Span, value_span

__all__ = [
    "MIXED",
    "NOT_MIXED",
    "PASS_WORD",
    "TRAVEL_NUMBER",
    "everyones",
    "names_password",
    "one_value",
    "one_values",
]


#: the words for a password or a passphrase
PASS_WORD = re.compile(
    r"\b(?:pass ?phrase|password|passwd|pw|senha|snh|frase[ -]senha|frase secreta|palavra[ -]passe"
    r"|master password|wifi key|network key)\b"
)


#: after a password word, not a thing named after one ("a password manager called 1Password")
_NOT_A_THING = re.compile(NOT_KEY_OF)


def names_password(text: str) -> bool:
    """Whether ``text`` speaks of a password, not of a thing named after one ("password
    manager", "password hint")."""
    return any(_NOT_A_THING.match(text, word.end()) for word in PASS_WORD.finditer(text))


#: a word of letters and digits, as most passwords are
MIXED = re.compile(
    r"(?<![\w@/.:#-])(?=[^\s]{0,63}[a-z])(?=[^\s]{0,63}\d)[^\s,;()\"']{4,64}(?<![.!?])"
)


#: words of letters and digits that are not a password: ordinals, sizes, models of things,
#: names of things ("2FA", "1Password")
NOT_MIXED = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|h|hs|min|s|k|m|g|gb|mb|tb|kb|km|kg|cm|mm|ml|x|p|yo|mp|mph|kmh|fa)"
    r"|(?:mp|4g|5g|3g|usb|wpa|ipv|covid|win|windows|office|ios|android|iphone|ps|xbox|b|a|v)"
    r"\d+(?:\.\d+)*|\d+[ºª°]|\d{1,2}h\d{2}|\d+x\d+"
    r"|\d+-[a-z]+|v?\d+(?:\.\d+)+[a-z]*\d*|1password"
)


#: a flight's or a train's number, not a password: "changed my flight to TP1350"
TRAVEL_NUMBER = re.compile(r"[a-z]{2}\d{3,4}")


#: a password named as everyone's, not one of the speaker's: "password123 is the most common
#: password in the world", "123456 é a senha mais usada do mundo"; the words before the
#: password's word, and those straight after it
_EVERYONES_BEFORE = re.compile(
    r"\b(?:(?:most|least) (?:common|used|popular|frequent|guessed|hacked)|worst|commonest"
    r"|common|popular|famous|classic|typical|world'?s|pior|comum|famosa|classica|tipica)\b"
)
_EVERYONES_AFTER = re.compile(
    r"[ ]+(?:(?:mais|menos) (?:usad|comu|popular|conhecid|famos|frequent|fraca|hackead)\w*"
    r"|do mundo|in the world|of all time|de sempre|comum|popular|famosa|classica|tipica)\b"
)
_POSSESSIVE = re.compile(r"\b(?:my|our|his|her|minha|meu|nossa|nosso)\b")


def everyones(before: str, after: str) -> bool:
    """Whether a password's word, ``before`` and ``after`` it in its sentence (folded), names
    a password everyone knows ("the most common password", "a senha mais usada do mundo"),
    not one of the speaker's ("my most used password")."""
    if _POSSESSIVE.search(before):
        return False
    return bool(_EVERYONES_BEFORE.search(before) or _EVERYONES_AFTER.match(after))


def one_value(value: str) -> bool:
    """Whether "the new one is ..." gives a value: a digit, or a symbol other than a hyphen,
    and not a model, a version or a size ("TP-Link", "v2.3", "12+")."""
    marked = any(c.isdigit() or (not c.isalnum() and c != "-") for c in value)
    return marked and not NOT_MIXED.fullmatch(value) and not re.fullmatch(r"[\d.+%]+", value)


def one_values(start: int, pattern: re.Pattern[str], sentence: str) -> list[Span]:
    """The values ``pattern`` finds in ``sentence`` that read as one password
    (:func:`one_value`), their closing mark left out."""
    spans = []
    for m in pattern.finditer(sentence):
        value = m.group("value").rstrip(".!?")
        if one_value(value):  # not "the new one is longer", "... TP-Link AX55", "v2.3"
            spans.append(value_span(start, m, value=value))
    return spans
