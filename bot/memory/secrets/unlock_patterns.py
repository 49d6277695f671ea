"""A phone's unlock pattern said in words, for :mod:`bot.memory.secrets.speech`.

A pattern is drawn, not typed, so people tell it by its shape: "o padrão de desbloqueio é um
L", "my unlock pattern is a Z", "the pattern for the tablet is a zigzag". The rule reads one
sentence of folded text (lower case, no accents, offsets kept); a pattern that is not a
lock's ("o padrão do tricô", "a kitchen in an L pattern") names no phone and no unlocking, and
is left.
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import Span

__all__ = ["pattern_spans"]

#: a pattern's name, then the verb that gives it, then its shape: a letter, a digit, or a
#: shape's name
_PATTERN = re.compile(
    r"\b(?:unlock pattern|pattern lock|swipe pattern|pattern|padrao(?: de desbloqueio)?"
    r"|desenho(?: de desbloqueio)?)\b[^.!?\n]{0,40}?\b(?:is|was|e|eh|era|:)[ ]+"
    r"(?:just |only |so |tipo |apenas |so um |only a )?"
    r"(?P<value>(?:an? |um |uma |o |the )?(?:[a-z]|\d|zig ?zag|zigue-zague|square|quadrado"
    r"|triangle|triangulo|cross|cruz|star|estrela|circle|circulo)"
    r"(?: (?:shape|backwards|upside down|invertido|ao contrario|de cabeca para baixo))?)"
    r"(?![\w'-])"
)


#: what makes a pattern a lock's: unlocking or a lock screen named, or the pattern the
#: phone's own ("the pattern on my phone", "o padrão do telemóvel"), not its case's
_PHONE = r"(?:phone|cell|celular|telemovel|tlm|telefone|tablet|ipad|android)"
_LOCK_TOPIC = re.compile(
    r"\b(?:unlock\w*|desbloque\w*|lock ?screen|tela de bloqueio|ecra de bloqueio)\b"
    rf"|\b(?:pattern (?:on|for|to) (?:my |the |his |her |your |mums? |dads? )?{_PHONE}"
    rf"|{_PHONE}'?s? pattern"
    rf"|(?:padrao|desenho) d[oa] (?:meu |minha |teu |tua |seu |sua )?{_PHONE})\b"
)


def pattern_spans(start: int, sentence: str) -> list[Span]:
    """The shape of a phone's unlock pattern given in ``sentence`` (folded, at ``start`` in
    its text), in a sentence about a phone or unlocking."""
    if "pattern" not in sentence and "padrao" not in sentence and "desenho" not in sentence:
        return []
    if _LOCK_TOPIC.search(sentence) is None:
        return []
    return [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _PATTERN.finditer(sentence)
    ]
