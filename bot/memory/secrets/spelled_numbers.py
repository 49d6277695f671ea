"""A PIN or a code said as one number in full words, as a careful writer spells it out: "four
thousand three hundred and twelve", "quatro mil trezentos e doze", "mil novecentos e
oitenta e sete", for :mod:`bot.memory.secrets.speech`.

The rule reads one sentence of folded text (lower case, no accents, offsets kept) that is
about a code, a PIN or a lock; a number of thousands or hundreds said there is its value,
unless the words before it make it a time, a price or a count (:data:`NOT_SAID_CODE`).
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import NOT_A_CODE, code_kind
from bot.memory.secrets.values import Span, text_before

__all__ = ["NOT_SAID_CODE", "full_number_spans"]

_UNIT = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|um|uma|dois|duas|tres|quatro|cinco|seis"
    r"|sete|oito|nove)"
)
_TEEN_OR_TENS = (
    r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -]" + _UNIT + r")?"
    r"|dez|onze|doze|treze|catorze|quatorze|quinze|dezesseis|dezasseis|dezessete|dezassete"
    r"|dezoito|dezenove|dezanove|(?:vinte|trinta|quarenta|cinquenta|sessenta|setenta|oitenta"
    r"|noventa)(?: e " + _UNIT + r")?)"
)
_HUNDREDS_PT = (
    r"(?:cem|cento|duzentos|duzentas|trezentos|trezentas|quatrocentos|quatrocentas|quinhentos"
    r"|quinhentas|seiscentos|seiscentas|setecentos|setecentas|oitocentos|oitocentas|novecentos"
    r"|novecentas)"
)
#: what may follow "thousand", "hundred" or "mil": the rest of the number
_REST = rf"(?:(?: and| e)? (?:{_TEEN_OR_TENS}|{_UNIT}))?"

#: a number of thousands or hundreds said in full, English or Portuguese
_FULL_NUMBER = re.compile(
    rf"(?<![\w-])(?:(?:{_UNIT}|{_TEEN_OR_TENS}) thousand(?: (?:and )?{_UNIT} hundred)?{_REST}"
    rf"|(?:{_UNIT} )?mil(?: e)?(?: {_HUNDREDS_PT})?{_REST}"
    rf"|{_UNIT} hundred{_REST}|{_HUNDREDS_PT}{_REST})(?![\w-])"
)

#: the words before a number said in full that make it a time, a price or a count
NOT_SAID_CODE = re.compile(
    r"\b(?:at|as|around|about|cost|costs|custa|custou|paid|paguei|pagou|valor|worth|of|de|ha"
    r"|for|por|year|ano|since|desde|in|em|over|mais de|more than|only|so)\W*$"
)

#: the words of a number of hundreds or thousands, which a sentence must have for the rule
_BIG = re.compile(r"thousand|hundred|\bmil\b|\bcem\b|ent[oa]s?\b")
#: what follows a number that is a size, a price or a count, not a code
_AFTER = re.compile(rf"[ ]*{NOT_A_CODE}")

#: a sentence that is about a code, a PIN or a lock
_CODE_TOPIC = re.compile(
    r"\b(?:pin|codes?|codigos?|combination|combinacao|passcode|senha|snh|safe|cofre|cadeado"
    r"|padlock|lock|fechadura|alarm|alarme|keypad)\b"
)


def full_number_spans(start: int, sentence: str) -> list[Span]:
    """The numbers said in full words in ``sentence`` (folded, at ``start`` in its text), in a
    sentence about a code, a PIN or a lock."""
    if _BIG.search(sentence) is None or _CODE_TOPIC.search(sentence) is None:
        return []
    return [
        Span(start + m.start(), start + m.end(), code_kind(sentence))
        for m in _FULL_NUMBER.finditer(sentence)
        if not NOT_SAID_CODE.search(text_before(sentence, m.start()))
        and not _AFTER.match(sentence, m.end())
    ]
