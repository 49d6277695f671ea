"""Cards and bank accounts as people say them in chat, for
:mod:`bot.memory.secrets.speech`: the digits on the back of a card ("the three digits on
the back of my visa are 482", "the three digits are 911"), its security code by any of its
names beside a card word ("amex ... cid 4421", "csc 512"), a card's number in groups beside a
card word whatever its check digit, its first digits ("the joint card number starts 5412
7534"), an IBAN's shape beside a payment whatever its check digits, and a branch's number
beside an account's ("agência 0341 conta 45678-9"). Each rule reads one sentence of folded
text.
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import Span

__all__ = ["CARD_WORD", "card_spans"]

#: the copula or colon before a value
_GIVES = (
    r"(?:\bis\b|\bare\b|\bwas\b|\bnow\b|:|=|\be\b|\beh\b|\bsao\b|\bera\b|\bficou\b"
    r"|\b(?:they|it)['’]?(?:re|s)\b)"
)


#: the digits on the back of a card
_CARD_BACK = re.compile(
    r"\b(?:back|behind|reverse|atras|tras|verso)\b[^.!?\n]{0,40}?"
    rf"{_GIVES}[ ]*(?P<value>\d{{3,4}})\b(?![.,:/]\d)"
)


#: a year where a value would be: after "since", "in", "em", "de" ("csc since 2019"), or
#: before what it dates ("credit card fraud: csc 2019 report", "cvv 2021 study")
_A_YEAR = (
    r"(?!(?:(?<=\bsince )|(?<=\bin )|(?<=\bem )|(?<=\bde ))(?:19|20)\d\d\b"
    r"|(?:19|20)\d\d[ ]+(?:reports?|surveys?|stud(?:y|ies)|figures|statistics|stats|data"
    r"|review|edition|census|relatorios?|estudos?|inqueritos?|pesquisas?|dados|estatisticas"
    r"|edicao|censo)\b)"
)
#: a card's security number, by any of its names, in a sentence about the card: "Amex, expiry
#: 09/28, security number 4421", "amex 3782 822463 10005 cid 4421" (the CID is Amex's), "csc:
#: 512", "código de segurança 318"; not a year (:data:`_A_YEAR`)
_CARD_SECURITY = re.compile(
    r"\b(?:security (?:number|digits|code)|cid|csc|cvv2?|cvc2?|cvn|codigo de seguranca)\b"
    rf"[^.!?\n\d]{{0,20}}(?<![\w-]){_A_YEAR}(?P<value>\d{{3,4}})\b(?![.,:/-]?\d)"
)


#: the digits of a card's security code named by how many they are, in a sentence about the
#: card: "the card is 5500 ..., the three digits are 911", "os três dígitos são 552"; the first
#: or last digits of its number are no code ("the last four digits are 0004"), nor is the
#: length of a PIN ("a senha de 4 dígitos do cartão é 3019" is the PIN's)
_CARD_DIGITS = re.compile(
    r"\b(?=(?:three|3|four|4|tres|quatro)[ ]+(?:digits|digitos|numbers|numeros)\b)"
    r"(?<!\blast )(?<!\bfirst )(?<!\bfinal )(?<!\bultimos )(?<!\bprimeiros )(?<!\bde )"
    r"(?<!\bof )(?<!\bwith )(?<!\bcom )"
    r"(?:three|3|four|4|tres|quatro)[ ]+(?:digits|digitos|numbers|numeros)\b"
    rf"(?![ ]+(?:finais|iniciais|of the (?:card )?number|do numero))[^.!?\n\d]{{0,20}}?{_GIVES}"
    r"[ ]*(?P<value>\d{3,4})\b(?![.,:/]\d)"
)


CARD_WORD = re.compile(
    r"\b(?:card|cards|cartao(?! de cidadao)|visa|mastercard|master|amex|elo|debit|credit|credito"
    r"|debito)\b"
)


#: a card's number in groups, whether or not its check digit is right (a typo in it is
#: still the card): "cartão 5502 0934 7781 2205"
_CARD_NUMBER = re.compile(r"(?<![\d-])\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?(?![\d-])")


_CARD_DETAIL = re.compile(r"\b(?:cvv2?|cvc|validade|vence|expiry|expires|exp)\b")


#: the first digits of a card's number: "the joint card number starts 5412 7534"
_CARD_BEGUN = re.compile(
    r"\b(?:starts|begins|starting|comeca|inicia)(?:[ ]+(?:with|com|por))?[ ]+"
    r"(?P<value>\d{4}(?:[ -]?\d{2,4}){0,3})\b"
)


def _card_numbers(start: int, sentence: str, *, card: bool) -> list[Span]:
    """A card's number in groups where the sentence names a card (``card``) or a card's
    detail; its first digits only where it names a card."""
    if not (card or _CARD_DETAIL.search(sentence)):
        return []
    spans = [
        Span(start + m.start(), start + m.end(), "card") for m in _CARD_NUMBER.finditer(sentence)
    ]
    begun = _CARD_BEGUN.finditer(sentence) if card else ()
    spans += [Span(start + m.start("value"), start + m.end("value"), "card") for m in begun]
    return spans


def _card_back(start: int, sentence: str) -> list[Span]:
    found = [
        *_CARD_BACK.finditer(sentence),
        *_CARD_SECURITY.finditer(sentence),
        *_CARD_DIGITS.finditer(sentence),
    ]
    return [Span(start + m.start("value"), start + m.end("value"), "card") for m in found]


#: an IBAN's shape beside a payment, whatever its check digits: "bank transfer now - GB71
#: MIDL 4005 1532 8847 20"
_IBAN_SHAPE = re.compile(r"\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){3,7}(?:[ ]?[a-z0-9]{1,3})?\b")


_PAYMENT = re.compile(
    r"\b(?:iban|nib|transfer\w*|transferencia|wire|bank|banco|pay|paid|pagar|paga|pague|conta"
    r"|account|deposit\w*|deposita\w*)\b"
)


def _iban_shapes(start: int, sentence: str) -> list[Span]:
    if not _PAYMENT.search(sentence):
        return []
    found = _IBAN_SHAPE.finditer(sentence)
    return [Span(start + m.start(), start + m.end(), "account") for m in found]


#: a bank branch's number: "agência 0341", "ag 1234-5"
_AGENCY = re.compile(
    r"\b(?:agencia|ag)\b\.?[ ]*(?:n[o.º°]+[ ]*)?:?[ ]*(?P<value>\d{3,5}(?:-[\dx])?)(?![\d/.,]?\d)"
)
#: an account's number given in the same sentence: "conta corrente 45678-9", "cc 56789-0"
_ACCOUNT_GIVEN = re.compile(
    r"\b(?:conta(?: corrente| poupanca)?|cc|c/c|account|acct)\b[^.!?\n\d]{0,20}\d"
)


def _agencies(start: int, sentence: str) -> list[Span]:
    """A branch's number beside an account's: the two are what a transfer asks for, as a
    sort code is with its account ("agência 0341 conta corrente 45678-9"). A branch alone is
    where one banks, not a secret ("a agência 0341 fecha às 16h")."""
    if "ag" not in sentence or not _ACCOUNT_GIVEN.search(sentence):
        return []
    return [
        Span(start + m.start("value"), start + m.end("value"), "account")
        for m in _AGENCY.finditer(sentence)
    ]


def card_spans(start: int, sentence: str) -> list[Span]:
    """Every card and account value of ``sentence`` (folded, at ``start`` in its text) the
    rules above find, unordered."""
    card = CARD_WORD.search(sentence) is not None
    return [
        *(_card_back(start, sentence) if card else ()),
        *_card_numbers(start, sentence, card=card),
        *_iban_shapes(start, sentence),
        *_agencies(start, sentence),
    ]
