"""Passwords given beside the name they go with, for :mod:`bot.memory.secrets.passwords`.
Each rule reads one sentence of folded text (``text``, as written, for the one that needs
capitals):

- "name / Value9" pairs, alone ("kevin / Gr33nL4ntern_NAS") or as the way in ("log in with
  joana / joana2021", "entra com o joao.p / Cafe#7");
- a login told as a name and then its password ("the Ring login is our family email and
  Doorbell_Sunny9");
- a list of passwords after a colon, each after what it is for ("passwords: netflix -
  popcorn88, disney - frozen2019", "as senhas são: banco = 4471, email = Cafe#22").
"""

from __future__ import annotations

import re

from bot.memory.secrets.password_words import one_value, one_values
from bot.memory.secrets.phrase_patterns import NOT_KEY_OF
from bot.memory.secrets.values import Span, value_span

__all__ = ["pair_spans"]


#: "kevin / Gr33nL4ntern_NAS": a name, a slash and a value that can only be a password
#: (small and capital letters, digits, often a symbol)
_BARE_PAIR = re.compile(r"(?<![/\w])[a-z][\w.@+-]{1,63}[ ]*/[ ]*(?P<value>[^\s/,;]{6,64})")


#: "log in with joana / joana2021", "entra com o joao.p / Cafe#7": a way in, then a user's name,
#: a slash and its password
_SIGN_IN_PAIR = re.compile(
    r"\b(?:log(?:s|ged|ging)? ?(?:in|on)(?:to)?|sign(?:s|ed|ing)? (?:in|on)|entr(?:a|e|ar|o)"
    r"|loga(?:r)?|logue|acess(?:a|e|ar|o)|conecta(?:r)?)\b[^.?!\n/]{0,30}?"
    r"\b(?:with|using|as|com|usando|como)[ ]+(?:(?:the|o|a)[ ]+)?[\w.@+-]{2,64}[ ]*/[ ]*"
    r"(?P<value>[^\s/,;]{4,64})(?![^\s/])"
)


#: "the Ring login is our family email and Doorbell_Sunny9", "o login da Tapo é o email da
#: casa e Quintal!88", "the Ring login is john.smith@gmail.com and Doorbell_Sunny9": a login
#: given as a name (an address's dots in it) and then, after "and", its password
_LOGIN_AND = re.compile(
    r"\b(?:login|log-?in|sign-?in|username|user|utilizador|usuario)\b"
    r"(?![ ]+(?:page|screen|form|button|flow|pagina|tela|botao))[^.!?\n]{0,20}?"
    r"\b(?:is|e|eh)[ ]+(?:[^.!?\n,;]|[.](?=\w)){2,40}?,?[ ]+(?:and|e|plus|mais)[ ]+"
    r"(?:(?:the |a |o )?(?:password|pw|pass|senha)[ ]+(?:is[ ]+|e[ ]+)?)?"
    r"(?P<value>[^\s,;]{6,64})(?=[ ]*(?:[,;.!?]|$))"
)


def _strong(value: str) -> bool:
    """Whether ``value`` (as written) can only be a password: small and capital letters with a
    symbol or two runs of digits ("Gr33nL4ntern_NAS", "Doorbell_Sunny9")."""
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    symbol = any(not c.isalnum() for c in value)
    return mixed and (symbol or len(re.findall(r"\d+", value)) >= 2)


def _login_and(start: int, text: str, sentence: str) -> list[Span]:
    """The password of a login told as a name "and" a value that can only be a password."""
    spans = []
    for m in _LOGIN_AND.finditer(sentence):
        value = text[start + m.start("value") : start + m.end("value")].rstrip(".!?")
        if _strong(value) and any(c.isdigit() for c in value):
            spans.append(value_span(start, m, value=value))
    return spans


def _sign_in_pairs(start: int, sentence: str) -> list[Span]:
    """The password of a "name / password" pair given as the way in: its value has a digit or
    a symbol ("log in with google / apple" names two ways in)."""
    if "/" not in sentence:
        return []
    return one_values(start, _SIGN_IN_PAIR, sentence)


def _bare_pairs(start: int, text: str, sentence: str) -> list[Span]:
    spans = []
    for m in _BARE_PAIR.finditer(sentence):
        if _strong(text[start + m.start("value") : start + m.end("value")]):
            spans.append(value_span(start, m))
    return spans


#: a list of passwords, PINs or logins after a colon: "passwords: netflix - popcorn88, disney -
#: frozen2019", "as senhas são: banco = 4471, email = Cafe#22"
_LIST_HEAD = re.compile(
    r"\b(?:passwords|passwds|pws|pins|passcodes|logins|credentials|creds|senhas|palavras[ -]passe"
    rf"|credenciais|acessos)\b{NOT_KEY_OF}[^.!?\n:]{{0,60}}:"
)
#: an item of such a list: what it is for, a dash, a colon or "is", and its value
_LIST_ITEM = re.compile(
    r"(?<![\w@])[\w.+&'@]+(?:[ ][\w.+&'@]+){0,2}?[ ]*(?:-+>?|–|—|:|=|→|\bis\b|\beh\b)[ ]*"
    r"(?P<value>[^\s,;]+)"
)


def _listed_value(value: str) -> bool:
    """Whether an item of a list of passwords gives one: letters with a digit or a symbol (not
    a model or a size), or a PIN's digits; not a score or a time ("10/10", "12:30")."""
    if value.isdigit():
        return 3 <= len(value) <= 12
    return any(c.isalpha() for c in value) and one_value(value)


def _listed(start: int, sentence: str) -> list[Span]:
    """The values of a list of passwords after its colon, each after what it is for."""
    head = _LIST_HEAD.search(sentence) if ":" in sentence else None
    if head is None:
        return []
    kind = "pin" if head.group(0).startswith("pin") else "password"
    spans = []
    for m in _LIST_ITEM.finditer(sentence, head.end()):
        value = m.group("value").rstrip(".!?")
        if _listed_value(value):
            spans.append(value_span(start, m, kind, value))
    return spans


def pair_spans(start: int, sentence: str, text: str = "") -> list[Span]:
    """Every password of ``sentence`` (folded, at ``start`` in ``text``) given beside its
    name, unordered; the rule that needs capitals runs only with ``text``."""
    spans = [*_listed(start, sentence), *_sign_in_pairs(start, sentence)]
    if text:
        spans += _bare_pairs(start, text, sentence) + _login_and(start, text, sentence)
    return spans
