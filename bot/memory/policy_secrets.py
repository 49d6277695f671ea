"""Secret detection for the write policy: passwords, API keys, tokens, card numbers.

:func:`secret_kind` names what kind of credential a text carries, trying in turn: known key
formats (matched on the original text, where case matters), "my password is ..." phrases in
English and Portuguese (on :func:`~bot.memory.policy_rules.fold`-ed text), long tokens mixing
letters and digits with high entropy, and digit runs that pass the Luhn check. A secret is
never stored, not even when a person forces a write.
"""

from __future__ import annotations

import math
import re

from bot.memory.policy_rules import fold

__all__ = ["looks_secret", "secret_kind"]

#: credential formats, matched on the original text (case matters), each with its kind
_SECRET_FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("api key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"),
        ("api key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"),
        ("token", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
        ("token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
        ("token", r"\bglpat-[A-Za-z0-9_-]{16,}"),
        ("token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("aws key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
        ("api key", r"\bAIza[0-9A-Za-z_-]{30,}"),
        ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
        ("password in url", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s/@]+@"),
        ("id number", r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"),  # Brazilian CPF
        ("id number", r"\b\d{3}-\d{2}-\d{4}\b"),  # US social security number
    )
]

#: up to 30 characters of anything but a sentence end ("gov.br" is not one)
_GAP = r"(?:[^?!\n.]|\.(?=\S)){0,30}?"
_EN_KEYS = (
    r"password|passwd|passcode|passphrase|pin(?: code| number)?|api[ _-]?key|access[ _-]?token"
    r"|auth[ _-]?token|bearer token|secret[ _-]?key|private key|recovery (?:code|phrase|key)"
    r"|seed phrase|security (?:code|question|answer)|cvv|cvc|2fa code|otp|verification code"
    r"|(?:alarm|gate|door|garage|safe|locker|lock|entry|building) code|token|maiden name"
)
_PT_KEYS = (
    r"senha|pin|codigo (?:de acesso|d[oa] (?:alarme|portao|porta|cofre|cadeado|predio))"
    r"|chave (?:da|de) (?:api|acesso)|chave secreta|token|cvv|codigo de (?:seguranca|verificacao)"
    r"|frase de recuperacao|pergunta (?:de|secreta)|resposta secreta|nome de solteira da mae"
)

#: "my password is ...", "minha senha é ...", "api_key=...", on folded text
_SECRET_PHRASES = re.compile(
    "|".join(
        (
            rf"\b(?:{_EN_KEYS})\b{_GAP}(?:\bis\b|\bwas\b|:|=)\s*(?!(?:on|in|under|inside"
            r"|written|saved|stored|behind|at|somewhere|the same|in the|expired|wrong|not"
            r"|too|changed|reset)\b)\S",
            rf"\b(?:{_PT_KEYS})\b{_GAP}(?:\be\b|\beh\b|\bera\b|:|=)\s*(?!(?:a mesma|o mesmo"
            r"|no|na|em|embaixo|atras|dentro|errad\w*|nova|novo|fraca|forte|muito|igual)\b)\S",
            # a keyword followed straight by a value that has a digit or a symbol in it
            # ("error code E119" is a fault, not a secret)
            r"(?<!error )(?<!erro )(?<!fault )\b(?:password|senha|pin|passcode|code|codigo)"
            r"\s+(?=\S*[\d#@!$%&*])\S{4,}",
            r"\b(?:login|credentials|credenciais|usuario e senha|user and password)\b"
            r"[^?!\n]{0,40}[:=]\s*\S+\s*[/,]\s*\S",
            r"\b(?:cartao|card)\b[^.?!\n]{0,20}\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{1,7}\b",
        )
    )
)

_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{24,}")
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def _entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for ch in token:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _luhn(digits: str) -> bool:
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _random_looking(token: str) -> bool:
    """A long token mixing letters and digits with high entropy: a key, not a word."""
    stripped = token.strip("=-_")
    has_digit = any(ch.isdigit() for ch in stripped)
    has_alpha = any(ch.isalpha() for ch in stripped)
    if not (has_digit and has_alpha) or len(stripped) < 24:
        return False
    return _entropy(stripped) >= 3.5


def secret_kind(text: str) -> str | None:
    """What kind of credential ``text`` carries, or None: a known key format, a "password
    is" phrase, a card number, or a long high-entropy token."""
    for kind, pattern in _SECRET_FORMATS:
        if pattern.search(text):
            return kind
    if _SECRET_PHRASES.search(fold(text)):
        return "credential"
    if any(_random_looking(match.group(0)) for match in _LONG_TOKEN.finditer(text)):
        return "high-entropy string"
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return "card number"
    return None


def looks_secret(text: str) -> bool:
    """True when ``text`` carries a password, key, token or card number."""
    return secret_kind(text) is not None
