"""A lock's or safe's numbers with no word for a code, for :mod:`bot.memory.secrets.codes`:
"the shed's lock opens with 4-19-33", "o cofre abre com 1984", "left to 12, right to 30",
"the key for the storage unit keypad, 6060", "7719 - that's the shed padlock".

The rule reads one sentence of folded text (lower case, no accents, offsets kept) that names
a lock, a safe, an alarm, a keypad, a door or a gate (:data:`LOCK_WORD`). What is not its code
is left: the lock's own number ("my locker number is 214"), a street's, a room's or a year
after a comma, and a "porta" that is a port in a text about a machine's service ("host:
localhost\nporta: 5432", :func:`names_service`).
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import (
    ELSEWHERE_BEFORE,
    NOT_A_CODE,
    NOT_SIBLING,
    YEAR,
    words_before,
)
from bot.memory.secrets.values import Span, text_before

__all__ = ["LOCK_WORD", "lock_numbers", "names_service"]


#: a lock, safe or alarm: its numbers are a secret even without the word "code"; an override
#: only a till's, an alarm's or a manager's ("the heating override is 2100 watts" is not)
_LOCK = (
    r"(?:lock|locks|padlock|lockbox|key ?box|key safe|safe|vault|locker|keypad|alarm|garage|gate"
    r"|door|intercom|buzzer|pad|panel|siren|cofre|cadeado|fechadura|armario|alarme|portao|porta"
    r"|garagem|teclado|painel|sirene"
    r"|interfone|porteiro|(?:till|drawer|register|alarm|supervisor|manager|admin|master|pin|code"
    r"|security)[ ]+override|override[ ]+(?:code|pin|number|key|password)"
    r"|override[ ]+(?:on|for|at|of)[ ]+(?:the[ ]+|my[ ]+|our[ ]+)?(?:till|register|alarm))"
)

#: a word for a lock: a sentence without one has no lock's numbers
LOCK_WORD = re.compile(rf"\b{_LOCK}\b")


#: a turn of a dial: "32 to the left"
_TURN = r"\d{1,2}[ ]+(?:to|para)[ ]+(?:the[ ]+|a[ ]+)?(?:left|right|esquerda|direita)"


#: the verb that gives a lock's numbers: "opens with", "takes", "type", "abre com", "is set to"
_LOCK_VALUE = re.compile(
    r"(?:\bopens? with|\bopens?\b|\bopened with|\b(?:dis)?arm(?:s|ed)? with|\bunlock(?:s|ed)? with"
    r"|\b(?:turn|switch)(?:s|ed|es)? off with|\btakes|\btype|\bpunch in|\benter|\bset to|\bis"
    r"|\bare|\bnow|\bgoes|\bbuzz|\bpress|\bdial|\bkey in|\btap|\bpunch|:|\babre com|\babrem com"
    r"|\bdesarma com|\bdesliga com|\bdestranca com"
    r"|\bdesbloqueia com|\bdigit[ea]|\besta em|\bfica em|\be\b|\beh\b|\bagora)"
    r"[ ]*(?:the |o |a )?(?:[#*]|(?:star|hash|asterisco|estrela|cardinal|jogo da velha)[ ]+)?"
    r"(?P<value>\d{1,2}(?:[ -]\d{1,2}){2,4}|\d{3,8}"
    r"|\d{1,2}[ ]*(?:left|right|l|r|esquerda|direita)(?:[ ,]+(?:then[ ]+)?\d{1,2}[ ]*"
    r"(?:left|right|l|r|esquerda|direita)){1,4}"
    r"|(?:left|right|esquerda|direita)[ ]*(?:to|para|a|ate)?[ ]*\d{1,2}(?:[ ,]+(?:then[ ]+)?"
    r"(?:left|right|esquerda|direita)[ ]*(?:to|para|a|ate)?[ ]*\d{1,2}){1,4}"
    rf"|{_TURN}(?:[ ,]+(?:then[ ]+)?{_TURN}(?:[ ]+again)?){{1,4}})"
    rf"(?![\w:/.,]?\d|[ ]*{NOT_A_CODE})"
)


#: a lock's number that closes its sentence after a comma or a colon ("the key for the
#: storage unit keypad, 6060"), unless it is a year, a street's or a room's number
_LOCK_LAST = re.compile(r"[,:][ ]*(?P<value>\d{4,8})[ ]*[.!]?[ ]*$")


#: a lock's number that opens its sentence: "7719 - that's the shed padlock", "*2580* abre o
#: portão"
_LOCK_FIRST = re.compile(
    rf"[ ]*[#*]?(?P<value>\d{{3,8}}|\d{{1,2}}(?:-\d{{1,2}}){{2,4}})[#*]?"
    rf"(?![\w.,/:]?\d|[ ]*{NOT_A_CODE})"
    r"(?=[ ]*(?:[-–—:,=]|is\b|e\b|eh\b|opens\b|abre\b|(?:that|it)'?s\b|for\b|para\b|pra\b))"
)

#: a text about a machine's service, where "porta" is its port ("host: localhost\nporta: 5432")
_SERVICE = re.compile(
    r"\b(?:host|hostname|localhost|server|servidor|ip|tcp|udp|https?|ssh|docker|container"
    r"|postgres\w*|mysql|redis|nginx|database|db|banco de dados|url|endpoint|proxy|firewall)\b"
)


def names_service(folded: str) -> bool:
    """Whether the folded text is about a machine's service: its "porta" is a port."""
    return _SERVICE.search(folded) is not None


def _only_ports(sentence: str, lock: re.Match[str]) -> bool:
    """Whether every lock word of ``sentence`` (the first is ``lock``) is "porta", in a text
    about a machine's service, where it is a port."""
    return lock.group(0) == "porta" and all(
        m.group(0) == "porta" for m in LOCK_WORD.finditer(sentence, lock.end())
    )


#: a lock's own number, not its code: "my locker number is 214", "o número do cacifo é 37"
_LOCKS_NUMBER = re.compile(
    r"\b(?:number|numero|no\.|n\.o|nr\.?)(?:[ ]+(?:of|do|da|de)[ ]+(?:the |my |o |a |meu |minha )?"
    rf"{_LOCK})?[ ]*(?:is|was|e|eh|era|:|=)?[ ]*(?:the |o |a )?[#*]?$"
)
#: the words of a code, which make a lock's number its code: "the gate code number is 4471"
_CODE_WORD = re.compile(
    r"\b(?:code|codes|codigo|cod\.|pin|passcode|combination|combo|combinacao|senha|snh)\b"
)


def _locks_own_number(before: str) -> bool:
    """Whether the words ``before`` a lock's number say it is the lock's own number, as a
    locker or a room has one, and name no code."""
    return _LOCKS_NUMBER.search(before) is not None and _CODE_WORD.search(before) is None


def lock_numbers(start: int, sentence: str, *, service: bool = False) -> list[Span]:
    """A lock's numbers in ``sentence`` (folded, at ``start`` in its text), when it names a
    lock: after a verb that gives them, opening the sentence or closing it; in a text about a
    machine's service (``service``, :func:`names_service`) a "porta" is a port, not a door."""
    lock = LOCK_WORD.search(sentence)
    if lock is None or (service and _only_ports(sentence, lock)):
        return []
    spans = [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _LOCK_VALUE.finditer(sentence)
        if not NOT_SIBLING.search(words_before(sentence, m.start("value")))
        and not _locks_own_number(text_before(sentence, m.start("value")))
    ]
    first = _LOCK_FIRST.match(sentence)
    if first is not None:
        spans.append(Span(start + first.start("value"), start + first.end("value"), "code"))
    last = _LOCK_LAST.search(sentence)
    if (
        last is not None
        and not ELSEWHERE_BEFORE.search(text_before(sentence, last.start()))
        and not YEAR.fullmatch(last.group("value"))
    ):
        spans.append(Span(start + last.start("value"), start + last.end("value"), "code"))
    return spans
