"""Codes and PINs said a digit or two at a time, for :mod:`bot.memory.secrets.codes`: digit by
digit, in words or figures ("seven three one nine", "quatro dois zero zero", "6 6 1 9"), or in
numbers of two digits as a dial's are ("twelve thirty four", "vinte e dois, catorze, trinta e
seis"); and the patterns of digits said slowly ("four... seven... one... nine", "Four. Eight.
Two. One.") that :mod:`bot.memory.secrets.speech` and :mod:`bot.memory.secrets.carry` read.

Each rule reads one sentence of folded text (lower case, no accents, offsets kept) that is
about a code or a lock; numbers that tell the time or a price ("the alarm goes off at six
forty five", "o cofre custou trinta e cinco") are left.
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import ELSEWHERE_UNLESS_GIVEN, NOT_A_CODE, code_kind
from bot.memory.secrets.values import Span, text_before

__all__ = ["DIGIT_RUN", "SAID_NUMBERS", "SLOW_DIGITS", "digit_runs", "said_numbers"]


#: digits said as words, English and Portuguese ("meia" is six in a Brazilian phone number)
_DIGIT_WORD = (
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|um|uma|dois|duas|tres|quatro"
    r"|cinco|seis|meia|sete|oito|nove|\d)"
)


#: three digits or more, one at a time: "four four two one", "6 6 1 9", "sete, dois, nove"
DIGIT_RUN = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:(?:[ ]*[,-][ ]*|[ ]+)(?:e[ ]+)?{_DIGIT_WORD}){{2,11}}(?![\w:/])"
)


#: digits said slowly, an ellipsis between each: "four... seven... one... nine"; or a full
#: stop, as a voice note is written down: "Four. Eight. Two. One."
SLOW_DIGITS = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:[ ]*(?:\.{{2,}}|…|\.(?=[ ]))[ ]*{_DIGIT_WORD}){{2,11}}"
    r"(?![\w:/])"
)


#: the words that start a number of two digits said as words: the tens and the teens
_TENS_EN = "twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety"
_TEENS_EN = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS_PT = "vinte|trinta|quarenta|cinquenta|sessenta|setenta|oitenta|noventa"
_TEENS_PT = (
    "dez|onze|doze|treze|catorze|quatorze|quinze|dezesseis|dezasseis|dezessete|dezassete"
    "|dezoito|dezenove|dezanove"
)
_TENS_AND_TEENS = frozenset(f"{_TENS_EN}|{_TEENS_EN}|{_TENS_PT}|{_TEENS_PT}".split("|"))

#: a number of two digits said as words: "twelve", "thirty-four", "trinta e quatro"
_TWO_DIGIT_WORD = (
    rf"(?:(?:{_TENS_EN})(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?|{_TEENS_EN}"
    rf"|(?:{_TENS_PT})(?:[ ]e[ ](?:um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|nove))?"
    rf"|{_TEENS_PT})"
)


#: a combination said in numbers of two digits, as a dial's are: "twelve thirty four",
#: "vinte e dois, catorze, trinta e seis"; two numbers or more, one of them of two digits
SAID_NUMBERS = re.compile(
    rf"(?<![\w-])(?=(?:{_DIGIT_WORD}(?:[ ]*,[ ]*|[ ]+))*{_TWO_DIGIT_WORD}(?![\w-]))"
    rf"(?:{_TWO_DIGIT_WORD}|{_DIGIT_WORD})(?:(?:[ ]*,[ ]*|[ ]+)(?:{_TWO_DIGIT_WORD}|{_DIGIT_WORD}))"
    r"{1,5}(?![\w-])"
)


#: the words before a number said as words that make it a time or a price ("the alarm goes
#: off at six forty five", "o cofre custou trinta e cinco"), or another number
_NOT_SAID_CODE = re.compile(
    rf"\b(?:{ELSEWHERE_UNLESS_GIVEN}|around|till|before|after|pelas|pelos|das|antes|depois"
    r")\W*$"
)


_WORD = re.compile(r"[a-z]+")


#: what follows a number said as words that tells the time or a size
_SAID_NOT_A_CODE = re.compile(rf"[ ]*(?:{NOT_A_CODE}|o'?clock)")


def said_numbers(start: int, sentence: str) -> list[Span]:
    """A lock's or a code's numbers said as words of two digits ("the combination for the
    bike lock is twelve thirty four"), unless they tell the time or a price; in a sentence
    about a code or a lock."""
    if _TENS_AND_TEENS.isdisjoint(_WORD.findall(sentence)):
        return []
    return [
        Span(start + m.start(), start + m.end(), code_kind(sentence))
        for m in SAID_NUMBERS.finditer(sentence)
        if not _NOT_SAID_CODE.search(text_before(sentence, m.start()))
        and not _SAID_NOT_A_CODE.match(sentence, m.end())
    ]


def digit_runs(start: int, sentence: str) -> list[Span]:
    """Digits said one at a time, three or more (as :data:`DIGIT_RUN` matches them), in a
    sentence about a code or a lock."""
    return [
        Span(start + m.start(), start + m.end(), code_kind(sentence))
        for m in DIGIT_RUN.finditer(sentence)
    ]
