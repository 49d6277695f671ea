"""Codes and PINs as people say them in chat: the numbers of a lock, a safe, an alarm, a keypad,
a PIN or a code sent by text, for :mod:`bot.memory.secrets.speech` (:func:`code_spans`).

Each rule reads one sentence of folded text (lower case, no accents, offsets kept) and gives
the :class:`~bot.memory.secrets.values.Span` of each value with its kind:

- codes and PINs said digit by digit, in words or figures ("seven three one nine",
  "quatro dois zero zero", "6 6 1 9", "Four. Eight. Two. One."), or in numbers of two digits
  as a dial's are ("twelve thirty four", "vinte e dois, catorze, trinta e seis"), in a sentence
  about a code, PIN or combination or about a lock, safe, alarm or card
  (:mod:`bot.memory.secrets.spoken_digits`);
- a lock's or safe's numbers with no word for them ("the shed's lock opens with 4-19-33",
  "o cofre abre com 1984", "left to 12, right to 30", "7719 - that's the shed padlock":
  :mod:`bot.memory.secrets.lock_numbers`);
- here, the numbers of a sentence about a PIN, a cash machine or a lock ("my pin is dad's
  birthday, 0612"), unless the word before one says what else it is ("number", "room", "at",
  "cost");
- the number the speaker set a code or PIN to ("the app wants a PIN, I set it to 2806", "pede
  um código de 4 dígitos, pus 7142": :mod:`bot.memory.secrets.set_or_found_codes`);
- here, a code sent by text ("the hospital portal just texted me 582 104, type that in", "4821
  is your Uber code");
- here, a code told in parts ("first half is 61 and the second half is 44", "a primeira metade
  é 61 e a segunda é 44"), in a sentence that names a code or after one that does, when the
  code is one that keeps something shut (a door's, an alarm's, a lock's, a PIN) and the
  sentence is not about an exam or a game (:func:`code_parts`).

What is not a value is left: times ("the alarm goes off at six thirty"), counting, sizes and
prices, a thing's model ("our lock is a Yale 3000"), a year ("2019, that's the year the pin
changed"), a service's port ("porta: 5432" beside "host: localhost"). The words the rules share
for that, and the kind a sentence names its code as, are in
:mod:`bot.memory.secrets.code_words`.
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import (
    ELSEWHERE_BEFORE,
    NOT_A_CODE,
    POSTAL,
    YEAR,
    code_kind,
    words_before,
)
from bot.memory.secrets.lock_numbers import LOCK_WORD, lock_numbers
from bot.memory.secrets.set_or_found_codes import set_codes
from bot.memory.secrets.spoken_digits import digit_runs, said_numbers
from bot.memory.secrets.values import Span, text_before

__all__ = ["CODE_NUMBER", "CODE_TOPIC", "ONLY_NUMBER", "code_parts", "code_spans"]


#: what a sentence about a spoken code names
CODE_TOPIC = re.compile(
    r"\b(?:pin|pins|codes?|keycodes?|codigos?|cod(?=\.)|combinations?|combinacao|combo|passcode"
    r"|senha|snh|cvv2?|cvc|digits|digitos|lock|locks|padlock|safe|vault|locker|keypad|alarm"
    r"|alarme|cofre|cadeado|fechadura|armario|card|cartao|atm|sim[ ]+(?:card|pin|puk)"
    r"|(?:cartao|chip|pin|puk|the|my|your|o|do|meu|seu)[ ]+sim|disarm|desarma\w*|unlock"
    r"|desbloque\w*|lockbox|key ?box|intercom|buzzer|interfone|porteiro|digit[ae]|type|punch"
    r"|dial|enter)\b"
)


#: a lock that is nothing else: a door, a gate or a garage has numbers that are not codes
_STRONG_LOCK = re.compile(
    r"\b(?:lock|locks|padlock|lockbox|key ?box|key safe|safe|vault|keypad|alarm|cofre|cadeado"
    r"|fechadura|alarme|teclado|intercom|interfone|(?:disarm|desarme)[ ]+(?:code|number|pin)"
    r"|(?:codigo|numero)[ ]+de[ ]+desarme)\b"
)


#: a PIN's number said anywhere in its sentence: "my debit card pin is dad's birthday, 0612",
#: "the number you punch in at the cash machine ... is still the old one, 5820"
_PIN_TOPIC = re.compile(
    r"\b(?:pin|pins|passcode|combination|combo|combinacao|cash machine|cashpoint|atm"
    r"|multibanco|caixa (?:eletronico|automatico|multibanco)|unlock|desbloqueio|puk|sim card"
    r"|cartao sim|card machine|at the machine|na maquina|no terminal|screen time|parental"
    r"|restricted mode|modo restrito|controlo parental|controle parental"
    r"|(?:phone|laptop|tablet|ipad|computer) (?:password|passcode|code)"
    r"|senha d[oa] (?:celular|telemovel|telefone|cartao|banco|app|aplicativo|computador"
    r"|portatil|notebook|ipad|tablet|alarme|cofre|cadeado|portao))\b"
)


#: a year of birth chosen as the PIN: "the unlock code is my birth year, 1987", "o pin é o
#: ano em que nasci, 1961"; "year" before it says what the PIN is made of, not what else it is
_BIRTH_YEAR = re.compile(
    r"\b(?:birth ?year|year (?:i was|she was|he was|we were) born|ano de nascimento"
    r"|ano (?:em )?que (?:eu )?(?:nasci|nasceu|nascemos))\W*$"
)


def _elsewhere(before: str) -> bool:
    """Whether the words ``before`` a number of a PIN's sentence say it is another number."""
    return ELSEWHERE_BEFORE.search(before) is not None and _BIRTH_YEAR.search(before) is None


def _pin_numbers(start: int, sentence: str) -> list[Span]:
    """The numbers of a sentence about a PIN (three digits or more), or about a lock (four or
    more, not a year: "I set the hotel safe to our anniversary, 0614"), unless the words
    before one say what else it is ("number", "room", "at", "since", "cost")."""
    pin = _PIN_TOPIC.search(sentence) is not None and not POSTAL.search(sentence)
    if not (pin or _STRONG_LOCK.search(sentence)):
        return []
    kind = code_kind(sentence) if pin else "code"
    return [
        Span(start + m.start(), start + m.end(), kind)
        for m in CODE_NUMBER.finditer(sentence)
        if not _elsewhere(words_before(sentence, m.start()))
        and (pin or _lock_code(text_before(sentence, m.start()), m.group(0)))
        and not (YEAR.fullmatch(m.group(0)) and _A_YEAR_AFTER.match(sentence, m.end()))
    ]


#: what follows a year that says it is one: "2019, that's the year the pin changed", "2019
#: foi o ano em que mudei o pin"
_A_YEAR_AFTER = re.compile(r"\W*(?:[\w']+\W+){0,2}(?:year|ano)\b")


def _lock_code(before: str, number: str) -> bool:
    """Whether ``number`` of a sentence about a lock is its code: four digits or more, not a
    year, not a thing's model ("our lock is a Yale 3000")."""
    if len(number) < 4 or YEAR.fullmatch(number):
        return False
    return not re.search(r"\b(?:a|an|the|um|uma|o|model|modelo)[ ]+(?:[\w-]+[ ]+)?$", before)


#: a number of a code's length, not a time, a size or a price
CODE_NUMBER = re.compile(
    rf"(?<![\w.,/:-])(?:\d{{3,8}}|\d{{1,2}}(?:[- ]\d{{1,2}}){{1,5}})"
    rf"(?![\w.,/:-]?\d|[ ]*{NOT_A_CODE})"
)


#: a code sent to someone: "the hospital portal just texted me 582 104, type that in"
_SENT_CODE = re.compile(
    r"\b(?:texted|text|sms|sent|messaged|enviou|mandou|mandaram|enviaram|chegou|deu|gerou"
    r"|generated|gave)\b[^.!?\n]{0,30}?"
    r"(?<![\w.,/:-])(?<!\bat )(?<!\bas )(?<!\bby )(?<!\bem )"
    rf"(?P<value>\d{{3}}[ -]\d{{3}}|\d{{4,8}})(?![\w.,/:]?\d|[ ]*{NOT_A_CODE})"
    r"(?=[ ]*(?:[,.;:!?)]|$|-|–|and\b|e\b|type\b|digit\w*|to\b|para\b|pra\b))"
)


_SENT_TOPIC = re.compile(
    r"\b(?:codes?|codigos?|type|enter|digit[ae]|otp|expires?|expira|portal|verify|verifica\w*"
    r"|login|log in|sign in|entrar|bank|banco|mb ?way)\b"
)


#: a code sent by text, as the text itself gives it, before its name: "4821 is your Uber
#: code", "553201 é o seu código MB WAY"
_YOUR_CODE = re.compile(
    r"(?<![\w.,/:-])(?P<value>\d{3}[ -]\d{3}|\d{4,8})[ ]+(?:is|e|eh)[ ]+"
    r"(?:your|o seu|a sua|seu|sua|o teu|a tua|teu|tua)[ ]+(?:[\w-]+[ ]+){0,3}?"
    r"(?:code|codigo|pin|passcode|token)\b"
)


def _sent_codes(start: int, sentence: str) -> list[Span]:
    if not _SENT_TOPIC.search(sentence):
        return []
    found = list(_SENT_CODE.finditer(sentence))
    if any(word in sentence for word in ("your", "seu", "sua", "teu", "tua")):
        found += _YOUR_CODE.finditer(sentence)
    return [Span(start + m.start("value"), start + m.end("value"), "code") for m in found]


#: a code told in parts, each after the words for its part: "the disarm code changed, first
#: half is 61 and the second half is 44", "a primeira metade é 61 e a segunda é 44"; a bare
#: "second" or "a segunda" is a part only after one named in full (:func:`code_parts`); the
#: code a part names as its own ("the first half of the code is 61") is a secret one
_CODE_PART = re.compile(
    r"\b(?:(?P<named>(?:first|second|third|last|other|1st|2nd|3rd)[ ]+(?:half|part|bit|chunk)"
    r"|(?:primeira|segunda|terceira|ultima|outra)[ ]+(?:metade|parte))"
    r"|(?P<bare>second|other|segunda|terceira|outra))\b"
    r"(?:[ ]+(?:of|do|da|de)[ ]+(?:(?:the|my|o|a|meu|minha)[ ]+)?(?:[a-z]+[ ]+)?"
    r"(?:(?P<owner>code|codigo|pin|passcode|password|senha|combination|combinacao|combo)"
    r"|number|numero|it))?"
    r"(?:[ ]+(?:is|was|e|eh|era)\b|[ ]*[:=-])?[ ]*"
    rf"(?<![\w-])(?P<value>\d{{2,4}})(?![\w.,/:-]?\d|[ ]*{NOT_A_CODE})"
)
#: what a code told in parts is of: a code, a PIN, a combination, a password
_PARTS_OF = re.compile(
    r"\b(?:pin|codes?|codigos?|passcode|password|combination|combo|combinacao|senha)\b|\bcod\."
)
#: a code that keeps something shut, which is a secret told in parts; the parts of a Morse
#: code or of a combination of halves are not
_SECRET_CODE = re.compile(
    r"\b(?:door|alarm|safe|gate|lock|padlock|locker|keypad|lockbox|pin|password|passcode"
    r"|senha|cofre|porta|portao|alarme|cadeado|fechadura|cacifo|disarm\w*|desarm\w*)\b"
)
#: a sentence about an exam, a game or a time, whose halves are scores and minutes: "passei no
#: exame de código, a primeira parte é 28 e a segunda é 30" (the driving-theory test)
_SCORED = re.compile(
    r"\b(?:exams?|tests?|quiz\w*|scores?|scored|match|matches|games?|minutes?|mins|points?"
    r"|grades?|jogos?|exames?|testes?|provas?|pontos?|(?<!toma )(?<!tome )notas?|minutos?)\b"
)
#: the words one of which a code told in parts has (a cheap test before the rule's regex)
_PART_WORDS = ("half", "part", "bit", "chunk", "metade")


def code_parts(
    start: int, sentence: str, kind: str | None = None, *, before: str | None = None
) -> list[Span]:
    """The parts of a secret code told in parts in ``sentence`` (folded, at ``start`` in its
    text), each a ``kind`` of value (by default the kind the sentence names): "first half is
    61 and the second half is 44". The sentence names the code itself, or follows the one
    (``before``) that named it ("The disarm code changed. First half is 61, ..."); a door's,
    an alarm's, a lock's, a PIN's code, or the one a part names ("first half of the code").
    A sentence about an exam, a game or a time, or after one, gives none."""
    if not any(word in sentence for word in _PART_WORDS):
        return []
    if before is None and not _PARTS_OF.search(sentence):
        return []
    if _SCORED.search(sentence) or (before is not None and _SCORED.search(before)):
        return []
    matches = list(_CODE_PART.finditer(sentence))
    secret = (
        _SECRET_CODE.search(sentence)
        or (before is not None and _SECRET_CODE.search(before))
        or any(match.group("owner") for match in matches)
    )
    if not secret:
        return []
    kind = kind or code_kind(sentence)
    spans: list[Span] = []
    for match in matches:
        if match.group("bare") is None or spans:
            spans.append(Span(start + match.start("value"), start + match.end("value"), kind))
    return spans


#: a sentence that is only a number, after one about a code, a PIN or a card ("... is four...
#: seven... one... nine. 4719.")
ONLY_NUMBER = re.compile(r"[ ]*(?P<value>\d{3,8})[ ]*[.!]?[ ]*$")


def code_spans(start: int, sentence: str, *, service: bool = False) -> list[Span]:
    """Every code and PIN of ``sentence`` (folded, at ``start`` in its text) the rules of each
    find, unordered; in a text about a machine's service (``service``,
    :func:`~bot.memory.secrets.lock_numbers.names_service`) a "porta" is a port, not a door."""
    spans = [
        *lock_numbers(start, sentence, service=service),
        *_pin_numbers(start, sentence),
        *_sent_codes(start, sentence),
        *set_codes(start, sentence),
    ]
    if CODE_TOPIC.search(sentence) or LOCK_WORD.search(sentence):
        spans += digit_runs(start, sentence) + said_numbers(start, sentence)
    return spans + code_parts(start, sentence)
