"""Vendor keys, tokens, private keys and high-entropy strings, as detect-secrets knows them.

detect-secrets keeps the shapes of many vendors' credentials (AWS, Azure, GitHub, GitLab,
Slack, Stripe, Twilio, OpenAI, npm, PyPI, JWTs, private key headers...) as plugins. Its file
scanner is not used: :func:`library_secrets` hands each line of a message to the plugins'
``analyze_string`` directly, which only matches and never verifies a secret over the network.
Its two entropy plugins look for quoted strings in source code; in chat a key comes unquoted,
so every long run of their alphabet is offered to them and their own entropy measure and limit
decide. The IP address plugin is left out (an address is not a secret), and so is the keyword
plugin, which reads assignments in source files, not sentences.
"""

from __future__ import annotations

import re

from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)
from detect_secrets.plugins.ip_public import IPPublicDetector
from detect_secrets.plugins.keyword import KeywordDetector

from bot.memory.secrets.values import Span

__all__ = ["library_secrets"]


def _regex_plugins() -> list[RegexBasedDetector]:
    """Every regex plugin detect-secrets ships with, but those that find no secret in chat."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    left_out = (IPPublicDetector, KeywordDetector, HighEntropyStringsPlugin)
    plugins: list[RegexBasedDetector] = []
    plugin_class: type[BasePlugin]
    for plugin_class in get_mapping_from_secret_type_to_class().values():
        if issubclass(plugin_class, RegexBasedDetector) and not issubclass(plugin_class, left_out):
            plugins.append(plugin_class())
    return sorted(plugins, key=lambda plugin: plugin.secret_type)


_PLUGINS = _regex_plugins()
#: a run shorter than this is a word or a number, whatever its entropy
_MIN_RUN = 20
_ENTROPY: list[tuple[HighEntropyStringsPlugin, re.Pattern[str]]] = [
    (plugin, re.compile(rf"(?<![\w+/=-])[{re.escape(plugin.charset)}]{{{_MIN_RUN},}}"))
    for plugin in (Base64HighEntropyString(), HexHighEntropyString())
]


def _kind(plugin: BasePlugin) -> str:
    return "password" if plugin.secret_type == "Basic Auth Credentials" else "key"


def _high_entropy(run: str) -> bool:
    # a plain word or a number with separators is no key however long ("2024-05-01-report")
    return any(c.isdigit() for c in run) and any(c.isalpha() for c in run)


def library_secrets(text: str) -> list[Span]:
    """Every value of ``text`` that a detect-secrets plugin takes for a secret, unordered."""
    spans: list[Span] = []
    offset = 0
    for line in text.split("\n"):
        for plugin in _PLUGINS:
            for value in set(plugin.analyze_string(line)):
                start = line.find(value)
                while value and start >= 0:
                    spans.append(Span(offset + start, offset + start + len(value), _kind(plugin)))
                    start = line.find(value, start + len(value))
        for entropy_plugin, run in _ENTROPY:
            for match in run.finditer(line):
                value = match.group(0)
                if _high_entropy(value) and (
                    entropy_plugin.calculate_shannon_entropy(value) > entropy_plugin.entropy_limit
                ):
                    spans.append(Span(offset + match.start(), offset + match.end(), "key"))
        offset += len(line) + 1
    return spans
