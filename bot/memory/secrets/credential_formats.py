"""The credential formats a value is known by on sight, each with the kind of secret it is.

Vendors' keys and tokens (``sk-…``, ``ghp_…``, a Telegram bot's token, a JWT), private key
blocks, a password inside a URL, product keys in groups of five, and formatted id numbers
(CPF, CNPJ, a US social security number). They match the original text, where case matters;
:func:`bot.memory.secrets.values.self_evident` runs them.
"""

from __future__ import annotations

import re

__all__ = [
    "FORMATS",
]

#: credential formats on the original text, each with its kind; a block runs to its end
FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"),
        ("key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"),
        ("key", r"\bwhsec_[A-Za-z0-9]{16,}"),
        ("key", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
        ("key", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
        ("key", r"\bglpat-[A-Za-z0-9_-]{16,}"),
        ("key", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("key", r"\bxapp-[A-Za-z0-9-]{10,}"),
        ("key", r"\bhf_[A-Za-z0-9]{20,}"),
        ("key", r"\bnpm_[A-Za-z0-9]{30,}"),
        ("key", r"\bpypi-[A-Za-z0-9_-]{40,}"),
        ("key", r"\bya29\.[A-Za-z0-9_-]{10,}"),
        ("key", r"\bSG\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("key", r"\b\d{8,10}:AA[A-Za-z0-9_-]{30,}"),  # a Telegram bot token
        ("key", r"\b[MN][A-Za-z0-9]{23,}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"),  # Discord
        ("key", r"(?i:\bbearer)\s+[A-Za-z0-9._~+/-]{12,}=*"),
        ("key", r"hooks\.slack\.com/services/\S+"),
        ("key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
        ("key", r"\bAIza[0-9A-Za-z_-]{30,}"),
        ("key", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        (
            "key",
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?-----END [A-Z ]*PRIVATE KEY-----|.*)",
        ),
        ("password", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:[^\s/@]+@"),
        ("key", r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{5}(?:-[A-Z0-9]{5}){3,4}\b"),
        ("id", r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"),  # Brazilian CPF, formatted
        ("id", r"\b\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}\b"),  # Brazilian CNPJ, formatted
        ("id", r"\b\d{3}-\d{2}-\d{4}\b"),  # US social security number
    )
]
