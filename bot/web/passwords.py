"""Password hashes for the web console: made, checked, and checked for their shape.

A password is kept in the config as an scrypt hash (``personad web password`` prints it).
Checking a password costs what scrypt costs, for a name with a password or without one
(:func:`check_password`), and the config refuses a hash of another shape or cost
(:func:`is_password_hash`): it would never match, and it would be refused faster than a real
check, telling its name apart.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

__all__ = [
    "PASSWORD_LOCKS",
    "check_password",
    "hash_password",
    "is_password_hash",
    "lock_of",
    "unmatchable_hash",
    "verify_password",
]

# scrypt's cost: 16 MiB of memory a check, a few tens of milliseconds
_N, _R, _P = 2**14, 8, 1

#: how many locks password checks share (:func:`lock_of`)
PASSWORD_LOCKS = 64
#: the key names are hashed with to pick their lock: new each process, so no one can tell
#: which names share one
_LOCK_KEY = secrets.token_bytes(16)


def lock_of(name: str) -> int:
    """Which of the :data:`PASSWORD_LOCKS` locks a password check for ``name`` holds: the
    same for every try of one name, and for any two names a matter of chance."""
    digest = hmac.new(_LOCK_KEY, name.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") % PASSWORD_LOCKS


def is_password_hash(stored: str) -> bool:
    """Whether ``stored`` is a hash as :func:`hash_password` makes them, at its cost: one
    of another shape would never match (no one could sign in) and would be refused faster
    than a real check, telling its name apart."""
    parts = stored.split("$")
    if len(parts) != 6 or parts[:4] != ["scrypt", str(_N), str(_R), str(_P)]:
        return False
    try:
        salt, key = (base64.b64decode(part, validate=True) for part in parts[4:])
    except ValueError:
        return False
    return len(salt) >= 16 and len(key) == 32


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64), for ``users.NAME.web_password`` in the config."""
    salt = secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    encode = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${encode(salt).decode()}${encode(key).decode()}"


def check_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; against a hash no one can match when there
    is none (a name without a password takes as long to refuse as one with). Blocking: run
    it in a thread."""
    return verify_password(password, stored or unmatchable_hash()) and stored is not None


@functools.cache
def unmatchable_hash() -> str:
    """A password hash of a random secret no one knows, made once: checking a password
    against it costs what checking a user's costs, and never matches."""
    return hash_password(secrets.token_urlsafe(32))


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``; False for a malformed hash too."""
    try:
        kind, n, r, p, salt, key = stored.split("$")
        if kind != "scrypt":
            return False
        expected = base64.b64decode(key)
        given = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
            maxmem=256 * 1024**2,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(given, expected)
