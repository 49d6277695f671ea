"""Answers to security questions as people say them in chat, for
:mod:`bot.memory.secrets.speech`: the answer by what was put in ("for the security
question mother's maiden name we put Kowalczyk", "first pet question answer is mr wobbles",
"-> we said Narnia"), the answer to a quoted question ("the answer to 'city where you were
born' is Walsall"), and the answer after what a site asks ("se perguntar a cidade onde nasci,
a resposta é Campinas"). A remark about the questions is no answer ("security questions are silly",
"the security question asked what my first pet was"). "My security answer is X" is a key
phrase of :mod:`bot.memory.secrets.phrase_patterns`.
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import Span, value_span

__all__ = ["answer_spans"]


#: the answer to a security question, given by what was put in: "for the security question
#: mother's maiden name we put Kowalczyk", "first pet question answer is mr wobbles"; from the
#: value to the end of its clause
_ANSWER = re.compile(
    r"(?<!\w)(?:security (?:question|answer)s?|secret (?:question|answer)|maiden name"
    r"|(?:pet|school|street|city|teacher)(?:'s)?(?: name)? question|question(?:'s)? answer"
    r"|[\"“'‘][^\"”’'\n]{2,60}[\"”’'][ ]+(?:question|pergunta)"
    r"|answer to (?:the|my|our) [^.!?\n]{0,30}?question|pergunta (?:de seguranca|secreta)"
    r"|resposta (?:secreta|de seguranca|da pergunta)|nome de solteira)\b[^.!?\n]{0,60}?"
    r"(?:\b(?:put|said|used|wrote|gave|answered|typed|entered|chose|picked|went with|pus"
    r"|pusemos|coloquei|colocamos|botei|botamos|respondi|respondemos|escrevi|escrevemos|usei"
    r"|usamos|demos|dei)\b|\b(?:answer|resposta) (?:is|was|e|eh|era)\b|-+>|:)"
    r"[ ]+(?:(?:it as|as|in|down|como|que)[ ]+)?(?P<value>[^\s,;.!?()]+(?:[ ]+[^\s,;.!?()]+)*)"
)


#: the answer to a question quoted: "the answer to 'city where you were born' is Walsall"
_ANSWER_TO_QUOTED = re.compile(
    r"\b(?:answer|resposta) (?:to|for|a|para|da|de) (?:the |my |our |a |o )?[\"'“‘]"
    r"[^\"'”’\n]{2,60}[\"'”’][ ]*(?:is|was|e|eh|era|:|-+>)"
    r"[ ]+(?P<value>[^\s,;.!?()]+(?:[ ]+[^\s,;.!?()]+)*)"
)


#: the answer to a security question said in words, after what a site asks: "se perguntar a
#: cidade onde nasci, a resposta é Campinas", "if it asks for my first pet, the answer is
#: Biscuit"; the asker is a site, an app or nobody said (not a person: "if she asks")
_ANSWER_TO_ASKED = re.compile(
    r"\b(?:if|when|se|quando|caso)[ ]+(?:it[ ]+|(?:the|o|a)[ ]+(?:site|app|bank|banco|page"
    r"|pagina|form|system|sistema)[ ]+)?(?:asks?|asked|perguntar|pergunte|pedir|peca)\b"
    r"(?P<question>[^.!?\n]{3,60}?)[,:;]?[ ]+(?:(?:then|entao)[ ]+)?"
    r"(?:(?:the|a|my|minha)[ ]+)?(?:answer|resposta)[ ]+(?:is|was|e|eh|era|:|-+>)[ ]+"
    r"(?P<value>[^\s,;.!?()]+(?:[ ]+[^\s,;.!?()]+)*)"
)


#: what a security question asks about: a birthplace, a pet, a maiden name, a school ...
_QUESTION_TOPIC = re.compile(
    r"\b(?:born|birthplace|nasci\w*|pet|bicho|animal|dog|cachorro|cao|cat|gato|maiden|solteira"
    r"|school|escola|colegio|street|rua|teacher|professor\w*|first car|primeiro carro|nickname"
    r"|apelido|best friend|melhor amig[oa]|favou?rite|preferid[oa]|mother|mae|father|pai|city"
    r"|cidade|hospital|security question|pergunta (?:de seguranca|secreta))\b"
)


#: the first words of what follows a security question that is no answer
_NOT_AN_ANSWER = frozenset(
    "the a an my o um uma what qual it in on something silly she he they anyone easy hard"
    " always never obvious public fake simple stupid dumb weird algo facil dificil sempre nunca"
    " ridicul no yes sim nao que that qualquer any anything whatever".split()
)


def answer_spans(start: int, sentence: str) -> list[Span]:
    """Every answer to a security question in ``sentence`` (folded, at ``start`` in its
    text), unordered."""
    spans = []
    named = "answer" in sentence or "resposta" in sentence
    asked = [
        m
        for m in (_ANSWER_TO_ASKED.finditer(sentence) if named else ())
        if _QUESTION_TOPIC.search(m.group("question"))
    ]
    for m in [*_ANSWER.finditer(sentence), *_ANSWER_TO_QUOTED.finditer(sentence), *asked]:
        first = m.group("value").split()[0]
        if first in _NOT_AN_ANSWER or len(m.group("value")) < 2:
            continue  # "the security question asked what my first pet was"
        spans.append(value_span(start, m))
    return spans
