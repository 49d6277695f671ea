"""The words around a code, shared by the rules that read codes and PINs
(:mod:`bot.memory.secrets.codes`, :mod:`bot.memory.secrets.lock_numbers`,
:mod:`bot.memory.secrets.spoken_digits`, :mod:`bot.memory.secrets.spelled_numbers`), by the
passwords told by the way in they give (:mod:`bot.memory.secrets.ways_in`), the sentences
that follow a value (:mod:`bot.memory.secrets.speech`) and the value after a key word
(:mod:`bot.memory.secrets.after_keys`).

They read folded text (lower case, no accents, offsets kept): what follows a number that is a
time, a size or a price (:data:`NOT_A_CODE`), the word before one that says what else it is, a
room's, a street's, a phone's (:data:`ELSEWHERE_BEFORE`, :data:`NOT_SIBLING`,
:func:`words_before`), a year (:data:`YEAR`), a place's "PIN code" (:data:`POSTAL`), a code
that keeps nothing shut (:data:`OTHER_CODE`), and the kind a sentence names its code as
(:func:`code_kind`).
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import text_before

__all__ = [
    "ELSEWHERE_BEFORE",
    "ELSEWHERE_UNLESS_GIVEN",
    "NOT_A_CODE",
    "NOT_SIBLING",
    "OTHER_CODE",
    "POSTAL",
    "YEAR",
    "code_kind",
    "words_before",
]


#: what follows a number that is a time, a size or a price, not a code
NOT_A_CODE = (
    r"(?:am|pm|h|hs|o'?clock|m|cm|km|kg|meters?|metres?|metros?|feet|ft|years?|anos|days?|dias"
    r"|minutes?|minutos|hours?|horas|pages|paginas|reais|euros?|dollars?|pounds?|yen|%|people"
    r"|pessoas|pins|players|jogadores|times|vezes|points|pontos|photos|fotos|emails|messages"
    r"|unread|calories|calorias|kcal|cal|lines|linhas|words|palavras|seconds?|secs|segundos"
    r"|watts?|rpm|baud|grams|gramas|percent|por ?cento|degrees|graus)\b"
)


#: a code that is no secret: a postcode, a fault's, a colour's, a promotion's, a parcel's, a
#: booking's ("the postcode form wanted a code", "o código promocional não deu")
OTHER_CODE = re.compile(
    r"\b(?:postcode|postal|zip|error|erro|fault|avaria|promo\w*|discount|desconto|tracking"
    r"|rastreio|colou?rs?|cores|booking|reserva|reference|referencia|voucher|coupon|cupao|cupom"
    r"|gift|oferta)\b"
)


#: the word before a number that says what else it is: a room's, a street's, a bus's, a
#: time, a year, a price, a phone's, a thing's model
_ELSEWHERE = (
    r"number|numero|no|room|sala|quarto|floor|andar|at|as|in|em|since|desde|until|ate|year|ano"
    r"|model|modelo"
    r"|street|rua|avenue|avenida|bus|line|linha|flight|voo|page|pagina|cost|costs|custou|custa"
    r"|paid|tel|phone|telefone|call|ligar|order|pedido|station|estacao|level|nivel|platform"
    r"|plataforma|seat|lugar|bay|desk|table|mesa|route|rota|exit|saida|score|points|pontos"
    r"|entidade|referencia|ref|reference|valor|total|montante|amount|invoice|fatura|factura"
    r"|extension|ext|ramal|extensao"
)


#: ... and a few more that may stand before a code too, where a sentence gives none yet
ELSEWHERE_UNLESS_GIVEN = rf"{_ELSEWHERE}|on|by|from|de|for|por|liga|to|para"
#: the words before a number, in a sentence that gives no code yet, that say what else it is
ELSEWHERE_BEFORE = re.compile(rf"\b(?:{ELSEWHERE_UNLESS_GIVEN})\W*$")


#: the word before a number that says what else it is, beside a code already given or a
#: lock's verb, where "from" and "de" lead to a code too: "changed my pin from 2580 to 9174"
NOT_SIBLING = re.compile(rf"\b(?:{_ELSEWHERE})\W*$")
#: the groups of a number written in groups before one of them: "123 456 " before "789"
_GROUPS_BEFORE = re.compile(r"(?<![\w.,/:-])(?:\d{1,4}[ ])+$")


def words_before(sentence: str, at: int) -> str:
    """The few words of ``sentence`` before the number at ``at``, read from the first group
    of the number it is one of: "referência 123 456 789" is a reference all through, "phone
    912 345 678" a phone's number (its last groups are not codes of their own)."""
    before = text_before(sentence, at)
    groups = _GROUPS_BEFORE.search(before)
    if groups is None:
        return before
    return text_before(sentence, at - len(before) + groups.start())


#: a year: beside a lock, "2019" is when, not its code
YEAR = re.compile(r"(?:19|20)\d\d")


#: a PIN code that is a place's: India's postal codes are "PIN codes"
POSTAL = re.compile(r"\b(?:postal|postcode|zip|pincode|india|indian)\b")


def code_kind(sentence: str) -> str:
    """The kind a sentence names its code as: a PIN's, a card's, or a code."""
    if re.search(r"\bpin\b|\bpuk\b|\bsim\b|\batm\b|senha|\bsnh\b", sentence):
        return "pin"
    if re.search(r"\bcvv|\bcvc|\bback\b|\batras\b|\bverso\b", sentence):
        return "card"
    return "code"
