"""Values that look random and are public: what a self-hoster pastes to have it remembered, and
that gives nothing away. A span of the detector inside one of these is dropped
(:func:`bot.memory.policy_secrets.find_secrets`):

- a public key by its shape ("ssh-ed25519 AAAAC3...", an ``age1...`` recipient, a ``bc1...``
  Bitcoin address) or by its name ("PublicKey = GEa7...=", "a chave pública: ...", "bitcoin
  address 1BvBM...");
- a hash by its name ("commit 43be4de8...", "sha256sum ... should be 92a2...", "@sha256:7bff...",
  "fingerprint is SHA256:U2Ys...");
- a UUID ("backup drive UUID is 1d9acbce-4045-..."), unless a word for a secret stands just
  before it ("api key: 1d9acbce-...").

What is never dropped: a private key's block, "AGE-SECRET-KEY-1...", a token after "token" or
"password".
"""

from __future__ import annotations

import re

__all__ = ["public_spans"]

_BECH32 = r"[02-9ac-hj-np-z]"

#: public by their shape alone
_SHAPES = re.compile(
    r"\b(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)[ ]+"
    r"AAAA[0-9A-Za-z+/]{16,}={0,3}(?:[ ]+[\w.+-]+@[\w.-]+)?"
    rf"|\bage1{_BECH32}{{58}}\b|\b(?:bc1|tb1){_BECH32}{{25,62}}\b"
)

#: public by the words before them: a public key, an address
_NAMED_KEY = re.compile(
    r"(?i:\b(?:public[ _-]?key|publickey|pubkey|chave p[uú]blica|(?:bitcoin|btc|wallet|eth"
    r"|ethereum|receiving)[ ]+address|endere[cç]o(?:[ ]+(?:bitcoin|btc|da carteira))?)\b)"
    r"[^\n]{0,40}?(?<![\w+/=])(?P<value>(?=[A-Za-z+/]*\d)[A-Za-z0-9+/]{20,}={0,2}"
    r"|0x[0-9a-fA-F]{40})(?![\w+/=])"
)

#: a hash by its name, in hex, or an ssh key's fingerprint: "commit 43be4de8...", "sha256sum
#: of the iso should be 92a2...", "fingerprint is SHA256:U2Ys..."
_NAMED_HASH = re.compile(
    r"(?i:\b(?:commit|sha(?:1|256|512)?(?:sum)?|checksum|hash|digest|fingerprint|md5"
    r"|impress[aã]o digital)\b)[^\n]{0,60}?(?<![\w+/=])"
    r"(?P<value>(?=[a-f]*\d)[0-9a-fA-F]{7,128}|(?:SHA256|MD5):[A-Za-z0-9+/:]{16,}={0,2})"
    r"(?![\w+/=])"
)

#: a hash in an image's reference: "home-assistant@sha256:7bff..."
_DIGEST = re.compile(r"@sha(?:256|512):[0-9a-f]{64,128}\b")

_UUID = re.compile(
    r"(?:\b(?:PART)?UUID=)?\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)

#: the words that make a UUID (or a named value) a secret after all
_SECRET_BEFORE = re.compile(
    r"(?i:\b(?:api[ _-]?key|apikey|token|secret|password|passwd|pw|senha|private[ _-]?key"
    r"|privatekey|chave privada|client[ _-]?secret|license|licen[cç]a|auth\w*)\b)[^\n]{0,30}$"
)


#: how far before a value :data:`_SECRET_BEFORE` reads
_BEFORE = 64


def public_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a public key, an address, a hash or a UUID, as (start, end)."""
    spans = [m.span() for m in _SHAPES.finditer(text)]
    spans += [m.span() for m in _DIGEST.finditer(text)]
    spans += [m.span("value") for m in _NAMED_KEY.finditer(text)]
    spans += [m.span("value") for m in _NAMED_HASH.finditer(text)]
    spans += [m.span() for m in _UUID.finditer(text) if not _secret_before(text, m.start())]
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
    return _SECRET_BEFORE.search(text, max(0, at - _BEFORE), at) is not None
