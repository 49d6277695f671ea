"""Secrets in what people paste from a machine into chat: a line of an env or config file, or a
command, for :mod:`bot.memory.secrets.detector`.

- an assignment whose name is a compound with a word for a secret in it, as programs name
  them: ``DB_PASSWORD=...``, ``export SMTP_PASS=...``, ``SENHA_BANCO=...``, ``"api_token":
  "..."`` in JSON, ``dbPassword: ...`` in YAML, ``-e POSTGRES_PASSWORD=...`` on a command line;
  not one whose name says something about the secret (``PASSWORD_MIN_LENGTH=12``,
  ``TOKEN_TTL=3600``, ``SSH_KEY_PATH=~/.ssh/id_ed25519``), nor a value that stands for one
  (``${DB_PASSWORD}``, ``<password>``, ``true``);
- the password a command line carries: ``mysql -u root -pQwerty2024``, ``sshpass -p lobo88
  ssh pi@host``, ``--password=...``.

A name of one plain word ("password: hunter2", "senha = ...") is the key phrases' own
(:mod:`bot.memory.secrets.phrase_patterns`). The rules read the text as written: a name's case
shows its parts (``dbPassword``), and ``-p`` is a password where ``-P`` is a port.
"""

from __future__ import annotations

import re

from bot.memory.secrets.carry import key_kind
from bot.memory.secrets.values import Span

__all__ = ["config_secrets"]

#: a name, a ``=`` or ``:`` and its value, quoted or not
_ASSIGNMENT = re.compile(
    r"(?<![\w$.@/-])[\"']?(?P<name>[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*)[\"']?[ \t]*[:=]"
    r"[ \t]*(?:\"(?P<double>[^\"\n]*)\"|'(?P<single>[^'\n]*)'|`(?P<tick>[^`\n]*)`"
    r"|(?P<bare>[^\s,;}\]\"'`]+))"
)

#: the parts of a name: "DB_PASSWORD", "db.password", "dbPassword", "SENHA_BANCO"
_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")

#: a part that names a secret, whatever its value looks like
_STRONG_PARTS = frozenset(
    "password passwd pwd pass pw passphrase passcode secret senha apikey apitoken".split()
)
#: a part that names a secret only when its value looks like one: a key may be a path or a
#: column's name ("SORT_KEY=created_at")
_WEAK_PARTS = frozenset({"token", "key"})
#: a name of one part that ends in a word for a secret: "PGPASSWORD", "authtoken"; or one
#: that only a program names a secret by: "psk" (a wifi's key in wpa_supplicant.conf), "passwd"
_ENDS_SECRET = re.compile(r"[a-z0-9]+(?:password|passwd|secret|senha|token|apikey)|psk|passwd|pwd")

#: parts that make the name about the secret, not its value
_ABOUT = frozenset(
    """
    min max minimum maximum length len size chars minlen maxlen tamanho minimo maximo
    comprimento expiry expires expire expiration exp ttl timeout lifetime age validity validade
    expira expiracao file path dir folder arquivo ficheiro caminho url uri endpoint host reset
    hint dica policy rule rules regex pattern rounds iterations cost algorithm algo hash hashed
    hasher enabled enable disabled disable required require obrigatoria attempts retries tries
    tentativas type kind field label prompt name header env var count format mode manager store
    storage helper cmd command public pub id sort primary foreign cache partition idempotency
    strength complexity
    """.split()
)

#: values that stand for one instead of giving it
_NOT_A_VALUE = frozenset(
    "true false yes no on off null none nil undefined empty required optional".split()
)
_PLACEHOLDER = re.compile(r"\$\{?\w+\}?|<[^>]*>|\{\{.*\}\}|%\(?\w+\)?s?|[*x.…]+|/\S*|~/\S*|\./\S*")


#: words joined by hyphens and written with capitals, as prose writes them: "Secret-Santa:
#: Maria", "Top-Secret: the plan"; a program's name is in one case ("db-password")
_PROSE_NAME = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]*)+")


def _parts(name: str) -> list[str]:
    return [part.lower() for part in _PART.findall(name)]


def _strength(name: str) -> str | None:
    """How surely a setting's ``name`` names a secret: "strong" when it does ("DB_PASSWORD"),
    "weak" when it may ("API_KEY"), None when it names none or says something about one
    ("PASSWORD_MIN_LENGTH")."""
    parts = _parts(name)
    if set(parts) & _ABOUT or _PROSE_NAME.fullmatch(name):
        return None
    if set(parts) & _STRONG_PARTS and len(parts) > 1:
        return "strong"
    if len(parts) == 1 and _ENDS_SECRET.fullmatch(parts[0]):
        return "strong"
    if set(parts) & _WEAK_PARTS and len(parts) > 1:
        return "weak"
    return None


def _gives_value(value: str, strength: str) -> bool:
    """Whether ``value`` is one: not a placeholder, a flag or a path; for a weak name, a
    value with a digit or a symbol, or a long one."""
    if len(value) < 3 or value.lower() in _NOT_A_VALUE or _PLACEHOLDER.fullmatch(value):
        return False
    if value.startswith(("http://", "https://")):
        return False  # a link; one with a password in it is a key format's own
    if strength == "strong":
        return True
    marked = any(c.isdigit() for c in value) and not value.isdigit()
    return (marked and len(value) >= 8) or len(value) >= 16


def _assignments(text: str) -> list[Span]:
    spans = []
    for match in _ASSIGNMENT.finditer(text):
        strength = _strength(match.group("name"))
        if strength is None:
            continue
        group = next(g for g in ("double", "single", "tick", "bare") if match.group(g) is not None)
        value = match.group(group)
        if group == "bare":
            value = value.rstrip(".,)")
        if not _gives_value(value, strength):
            continue
        kind = key_kind(" ".join(_parts(match.group("name"))))
        start = match.start(group)
        spans.append(Span(start, start + len(value), kind))
    return spans


#: a password on a command line: a database client's glued "-p", sshpass's "-p", redis-cli's
#: "-a", anyone's "--password"
_COMMAND_PASSWORD = re.compile(
    r"\b(?:mysql|mysqldump|mysqladmin|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]{0,80}?[ ]-p"
    r"(?P<glued>[^\s-]\S*)"
    r"|\bsshpass[ ]+-p[ ]*(?P<sshpass>\S+)"
    r"|\bredis-cli\b[^\n|;&]{0,80}?[ ]-a[ ]+(?P<redis>\S+)"
    r"|(?<!\S)--(?:password|passwd|pass|passphrase|senha)(?:[ ]+|=)(?P<long>(?!-)\S+)"
)


def _command_passwords(text: str) -> list[Span]:
    spans = []
    for match in _COMMAND_PASSWORD.finditer(text):
        group = next(g for g in ("glued", "sshpass", "redis", "long") if match.group(g))
        start, end = match.span(group)
        value = match.group(group)
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 2:
            start, end = start + 1, end - 1
        if _PLACEHOLDER.fullmatch(text[start:end]):
            continue
        spans.append(Span(start, end, "password"))
    return spans


#: what a name for a secret has in it, lower case: a text with none has no such assignment
_SECRET_BITS = re.compile("pass|pw|secret|senha|token|key|psk")
#: the flags of a command's password: a text with none has no such command
_FLAGS = re.compile("-p|-a |--senha")


def config_secrets(text: str) -> list[Span]:
    """Every value of a config line or a command in ``text`` that is a secret, unordered."""
    spans: list[Span] = []
    if ("=" in text or ":" in text) and _SECRET_BITS.search(text.lower()):
        spans += _assignments(text)
    if _FLAGS.search(text):
        spans += _command_passwords(text)
    return spans
