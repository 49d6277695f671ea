"""Values that look random and are public: what a self-hoster pastes to have it remembered, and
that gives nothing away. A key or password the detector found inside one of these is dropped
(:func:`bot.memory.secrets.detector.find_secrets`); a card, PIN, code, account or id never is:

- a public key by its shape ("ssh-ed25519 AAAAC3...", an ``age1...`` recipient, a ``bc1...``
  Bitcoin address) or by its name in the same sentence ("PublicKey = GEa7...=", "a chave
  pública: ...", "bitcoin address 1BvBM..."), unless it has a private key's shape;
- a hash in hex, with letters and digits, named just before it ("commit 43be4de8", "sha256:
  92a2..."), or whole (32 hex digits or more) in the sentence that names it ("sha256sum of the
  iso should be 92a2..."); "@sha256:7bff..."; an ssh key's fingerprint ("SHA256:U2Ys...");
- a UUID named as a disk's, a partition's or a device's ("backup drive UUID is 1d9acbce-...");
- an e-mail address, which is how people are reached and paid ("chave pix:
  joao.silva88@gmail.com"), not a way in.

None of them is public when a word for a secret stands just before it ("the api key for the
disk is 1d9acbce-...", "the hash of my password is 5f4d...").
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import text_before

__all__ = ["public_spans"]

_BECH32 = r"[02-9ac-hj-np-z]"
#: a character of the same sentence: a full stop only inside a word or a number ("12.6")
_IN_SENTENCE = r"(?:[^\n.!?;]|\.(?=\S))"

#: public by their shape alone
_SHAPES = re.compile(
    r"\b(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)[ ]+"
    r"AAAA[0-9A-Za-z+/]{16,}={0,3}(?:[ ]+[\w.+-]+@[\w.-]+)?"
    rf"|\bage1{_BECH32}{{58}}\b|\b(?:bc1|tb1){_BECH32}{{25,62}}\b"
)

#: public by the words before them, in the same sentence: a public key, an address
_NAMED_KEY = re.compile(
    r"(?i:\b(?:public[ _-]?key|publickey|pubkey|chave p[uú]blica|(?:bitcoin|btc|receiving)"
    r"[ ]+address|endere[cç]o (?:bitcoin|btc|da carteira))\b)"
    rf"{_IN_SENTENCE}{{0,40}}?(?<![\w+/=])(?P<value>(?=[A-Za-z+/]*\d)[A-Za-z0-9+/]{{20,64}}={{0,2}}"
    r"|0x[0-9a-fA-F]{40})(?![\w+/=])"
)

#: a private key that looks like an address: Bitcoin's wallet import format, or 32 bytes in hex
_PRIVATE_SHAPE = re.compile(r"[5KL][1-9A-HJ-NP-Za-km-z]{50,51}|(?:0x)?[0-9a-fA-F]{64}")

#: a hash named just before it ("commit 43be4de", "sha256: 92a2...", "hash is 5f4d..."), or a
#: whole one (32 hex digits or more) later in the sentence that names it ("sha256sum of the
#: iso should be 92a2..."); an ssh key's fingerprint ("fingerprint is SHA256:U2Ys...")
_HEX = r"(?=[0-9]*[a-fA-F])(?=[a-fA-F]*[0-9])[0-9a-fA-F]"
_HASH_NAME = r"(?i:\b(?:commit|sha(?:1|256|512)?(?:sum)?|checksum|hash|digest|md5)\b)"
_NAMED_HASH = re.compile(
    rf"{_HASH_NAME}[ ]*(?:[:=]|is|was|e|é)?[ ]*(?P<value>{_HEX}{{7,128}})(?![\w+/=])"
    rf"|{_HASH_NAME}{_IN_SENTENCE}{{0,60}}?(?<![\w+/=])(?P<whole>{_HEX}{{32,128}})(?![\w+/=])"
    r"|(?i:\bfingerprint\b|impress[aã]o digital)[^\n.!?;]{0,30}?"
    r"(?P<print>(?:SHA256|MD5):[A-Za-z0-9+/:]{16,}={0,2})"
)

#: a hash in an image's reference: "home-assistant@sha256:7bff..."
_DIGEST = re.compile(r"@sha(?:256|512):[0-9a-f]{64,128}\b")

_UUID = re.compile(
    r"(?:\b(?:PART)?UUID=)?\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
    r"-[0-9a-fA-F]{12}\b"
)

#: what a UUID that is public is named by: a disk's, a partition's, a device's
_UUID_NAMED = re.compile(
    r"(?i:\b(?:uuid|partuuid|drive|disk|disco|volume|partition|parti[cç][aã]o|fstab|blkid"
    r"|device|dispositivo)\b)[^\n]{0,40}$"
)

#: the words that make a named value a secret after all
_SECRET_BEFORE = re.compile(
    r"(?i:\b(?:api[ _-]?key|apikey|token|secret|password|passwd|pw|senha|private[ _-]?key"
    r"|privatekey|chave (?:privada|secreta|da api|de acesso)|access[ _-]?key|client[ _-]?secret"
    r"|license|licen[cç]a|credentials|creds|credenciais|pin|auth\w*)\b)[^\n]{0,30}$"
)


#: an e-mail address: a name, "@", and a domain with its dot
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})*\.[a-zA-Z]{2,24}\b")


def _named_hashes(text: str) -> list[tuple[int, int]]:
    found = []
    for match in _NAMED_HASH.finditer(text):
        group = next(name for name in ("value", "whole", "print") if match.group(name))
        found.append(match.span(group))
    return found


def public_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a public key, an address, a hash or a UUID, as (start, end)."""
    spans = [m.span() for m in _SHAPES.finditer(text)]
    spans += [m.span() for m in _DIGEST.finditer(text)]
    spans += [
        m.span("value")
        for m in _NAMED_KEY.finditer(text)
        if not _PRIVATE_SHAPE.fullmatch(m.group("value"))
    ]
    spans += _named_hashes(text)
    spans += [
        m.span() for m in _UUID.finditer(text) if _UUID_NAMED.search(text_before(text, m.start()))
    ]
    if "@" in text:
        spans += [m.span() for m in _EMAIL.finditer(text)]
    return [
        span
        for span in spans
        if not _secret_before(text, span[0])
        or _SHAPES.fullmatch(text, span[0], span[1])
        or _DIGEST.fullmatch(text, span[0], span[1])
    ]


def _secret_before(text: str, at: int) -> bool:
    """Whether a word for a secret stands in the few words before ``at`` (read in a window
    of its own, so a long text costs no more a value)."""
    return _SECRET_BEFORE.search(text_before(text, at)) is not None
