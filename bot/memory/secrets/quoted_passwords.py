"""A quoted passphrase beside its word, for :mod:`bot.memory.secrets.passwords`: '"otter
pancake" is my passphrase', "a senha do tablet é 'rosegarden'", '"is what I type to unlock my
diary"'. The rule reads one sentence of folded text (lower case, no accents, offsets kept).

What is not one is left: a quote that names where a password is kept ("the password is in
bitwarden under 'restic'"), a password everyone knows ("'qwerty' is the most famous password
ever"), and a password's word quoted as a word, talked about ('he spelt "senha" wrong, it came
out "cenha"').
"""

from __future__ import annotations

import re

from bot.memory.secrets.password_words import PASS_WORD, everyones, names_password
from bot.memory.secrets.values import Span, text_before

__all__ = ["quoted_passphrases"]


#: a first-person way in that names no password word: "... is what I type to unlock my diary"
_UNLOCK = re.compile(
    r"\b(?:what i (?:type|enter|use|put in) to (?:unlock|open|log ?in|sign in|get into)"
    r"|(?:escrevo|digito|uso|ponho|meto) para (?:desbloquear|abrir|entrar))\b"
)


_QUOTED = re.compile(
    r"[\"“”«](?P<q>[^\"“”«»\n]{2,80})[\"“”»]|(?<!\w)'(?P<s>[^'\n]{2,80})'(?!\w)"
    r"|\[(?P<b>[^\]\s]{3,64})\]"
)


#: a quote that names where a password is kept, not the password
_PLACE_NAMED = re.compile(
    r"\b(?:under|called|named|entry|item|folder|label(?:l)?ed|titled|chamad[ao]|sob|pasta"
    r"|com o nome)[ ]*$"
)


#: a password's word quoted as a word, talked about, not naming one: 'he spelt "senha" wrong,
#: it came out "cenha"'
_QUOTED_WORD = re.compile(r"[\"“”«'](?:password|senha|palavra[ -]passe|pass ?phrase|pw)[\"“”»']")


def quoted_passphrases(start: int, sentence: str) -> list[Span]:
    """A quoted string beside a password word (or a first-person way in) outside it: the
    quote is the passphrase."""
    if not (PASS_WORD.search(sentence) or _UNLOCK.search(sentence)):
        return []
    spans = []
    for match in _QUOTED.finditer(sentence):
        if _PLACE_NAMED.search(text_before(sentence, match.start())):
            continue  # "the password is in bitwarden under 'restic'"
        inside = match.group("q") or match.group("s") or match.group("b") or ""
        outside = _QUOTED_WORD.sub(" ", sentence[: match.start()] + " " + sentence[match.end() :])
        named = names_password(outside) or _UNLOCK.search(outside)
        word = PASS_WORD.search(outside)
        if word and everyones(outside[: word.start()], outside[word.end() :]):
            continue  # "'qwerty' is the most famous password ever"
        if named and not PASS_WORD.search(inside):
            spans.append(Span(start + match.start(), start + match.end(), "password"))
    return spans
