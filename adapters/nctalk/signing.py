"""Nextcloud Talk's shared-secret signatures, both directions.

Talk and a bot share one secret (given to ``occ talk:bot:install``):

* a webhook from Talk carries ``X-Nextcloud-Talk-Random`` and ``X-Nextcloud-Talk-Signature``
  = hex HMAC-SHA256(secret, random + raw request body);
* a message from the bot carries ``X-Nextcloud-Talk-Bot-Random`` and
  ``X-Nextcloud-Talk-Bot-Signature`` = hex HMAC-SHA256(secret, random + message text), the
  text alone, not the JSON body around it.

Verification compares in constant time over the raw bytes as received.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = [
    "BACKEND_HEADER",
    "BOT_RANDOM_HEADER",
    "BOT_SIGNATURE_HEADER",
    "RANDOM_HEADER",
    "SIGNATURE_HEADER",
    "new_random",
    "new_reference_id",
    "normalise_backend",
    "reference_id",
    "sign",
    "verify",
]

RANDOM_HEADER = "X-Nextcloud-Talk-Random"
SIGNATURE_HEADER = "X-Nextcloud-Talk-Signature"
BACKEND_HEADER = "X-Nextcloud-Talk-Backend"
BOT_RANDOM_HEADER = "X-Nextcloud-Talk-Bot-Random"
BOT_SIGNATURE_HEADER = "X-Nextcloud-Talk-Bot-Signature"

#: Talk sends 64 characters; anything much longer is not Talk and is refused unread
MAX_RANDOM_CHARS = 256


def sign(secret: str, random: str, payload: bytes | str) -> str:
    """Hex HMAC-SHA256 of ``random + payload`` under ``secret``."""
    data = payload.encode() if isinstance(payload, str) else payload
    return hmac.new(secret.encode(), random.encode() + data, hashlib.sha256).hexdigest()


def verify(secret: str, random: str, payload: bytes, signature: str) -> bool:
    """Whether ``signature`` is the signature of ``random + payload``, in constant time."""
    if not random or not signature or len(random) > MAX_RANDOM_CHARS:
        return False
    expected = sign(secret, random, payload)
    return hmac.compare_digest(expected.encode(), signature.strip().lower().encode())


def new_random() -> str:
    """A fresh random for signing a request (64 hex characters, as Talk's own examples)."""
    return secrets.token_hex(32)


def new_reference_id() -> str:
    """A random SHA-256 hex string, as Talk asks for a message's ``referenceId``."""
    return hashlib.sha256(secrets.token_bytes(32)).hexdigest()


def reference_id(key: str | None) -> str:
    """The ``referenceId`` of a message: the SHA-256 of its idempotency key, so a message
    sent again after a failure or a restart carries the same one; random without a key."""
    if key is None:
        return new_reference_id()
    return hashlib.sha256(key.encode()).hexdigest()


def normalise_backend(url: str) -> str:
    """A server base URL in the form used for comparison: trimmed, no trailing slash,
    case-folded (Talk sends ``overwrite.cli.url`` with one trailing slash)."""
    return url.strip().rstrip("/").casefold()
