"""Sign-in for the web console: one-time links, optional passwords, browser sessions.

``personad web login USER`` stores the SHA-256 of a random token with a short lifetime in
``personad.db``; the link carrying the token signs the user in once. A signed-in browser holds
a random session id in an HttpOnly cookie; the database keeps only its hash, the user, the
session's CSRF token and when it ends. Recent wrong passwords are kept there too (the hash
of the name tried and when), so the pause they cause outlasts a restart. A password, when a
user has one, is kept in the config as an scrypt hash (``personad web password USER`` prints
it; :mod:`bot.web.passwords`). ``personad web logout USER`` ends every session of a user and
uses up their links not yet used.

The tables live in the daemon's ``personad.db`` but belong to this module alone: they are
created on first use with ``CREATE TABLE IF NOT EXISTS``, so the state store's numbered
migrations stay untouched.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from dataclasses import dataclass

from bot.daemon.errors import StoreError
from bot.delivery.state import StateStore

__all__ = [
    "LOGIN_TOKEN_SECONDS",
    "SESSION_SECONDS",
    "WebSession",
    "WebStore",
]

#: a one-time link works this long
LOGIN_TOKEN_SECONDS = 15 * 60
#: a browser stays signed in this long
SESSION_SECONDS = 14 * 24 * 3600

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS web_login (
        token_hash TEXT PRIMARY KEY,
        user TEXT NOT NULL,
        expires_at REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS web_session (
        id_hash TEXT PRIMARY KEY,
        user TEXT NOT NULL,
        csrf TEXT NOT NULL,
        expires_at REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS web_password_failure (
        name_hash TEXT NOT NULL,
        at REAL NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS web_password_failure_name ON web_password_failure (name_hash)",
)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class WebSession:
    user: str
    csrf: str


class WebStore:
    """The console's rows in ``personad.db``, through the daemon's open :class:`StateStore`."""

    def __init__(self, state: StateStore) -> None:
        self._state = state
        self._ready = False

    async def _run(self, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        try:
            if not self._ready:
                for statement in _SCHEMA:
                    await self._state.conn.execute(statement)
                self._ready = True
            rows = await self._state.conn.execute_fetchall(sql, params)
            return [tuple(row) for row in rows]
        except sqlite3.Error as exc:
            raise StoreError(f"web sign-in table: {exc}") from exc

    async def issue_login(self, user: str, *, now: float | None = None) -> str:
        """A new one-time token for ``user`` (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        moment = time.time() if now is None else now
        await self._run("DELETE FROM web_login WHERE expires_at < ?", (moment,))
        await self._run(
            "INSERT INTO web_login (token_hash, user, expires_at) VALUES (?, ?, ?)",
            (_digest(token), user, moment + LOGIN_TOKEN_SECONDS),
        )
        return token

    async def redeem_login(self, token: str) -> str | None:
        """The user a token signs in, once; None when it is unknown, used or expired."""
        rows = await self._run(
            "DELETE FROM web_login WHERE token_hash = ? RETURNING user, expires_at",
            (_digest(token),),
        )
        if not rows or float(str(rows[0][1])) < time.time():
            return None
        return str(rows[0][0])

    async def open_session(self, user: str) -> tuple[str, WebSession]:
        """A new browser session: (the cookie's value, the session)."""
        session_id = secrets.token_urlsafe(32)
        session = WebSession(user=user, csrf=secrets.token_urlsafe(24))
        await self._run("DELETE FROM web_session WHERE expires_at < ?", (time.time(),))
        await self._run(
            "INSERT INTO web_session (id_hash, user, csrf, expires_at) VALUES (?, ?, ?, ?)",
            (_digest(session_id), user, session.csrf, time.time() + SESSION_SECONDS),
        )
        return session_id, session

    async def session(self, session_id: str) -> WebSession | None:
        rows = await self._run(
            "SELECT user, csrf FROM web_session WHERE id_hash = ? AND expires_at > ?",
            (_digest(session_id), time.time()),
        )
        return WebSession(user=str(rows[0][0]), csrf=str(rows[0][1])) if rows else None

    async def close_session(self, session_id: str) -> None:
        await self._run("DELETE FROM web_session WHERE id_hash = ?", (_digest(session_id),))

    async def close_sessions_of(self, user: str) -> int:
        """Sign ``user`` out of every browser, and use up the sign-in links not yet used (one
        may sit in a lost phone's messages); how many sessions were open."""
        await self._run("DELETE FROM web_login WHERE user = ?", (user,))
        rows = await self._run(
            "DELETE FROM web_session WHERE user = ? RETURNING expires_at", (user,)
        )
        return sum(float(str(expires_at)) > time.time() for (expires_at,) in rows)

    async def password_failures(self, name: str, since: float) -> int:
        """Wrong passwords given for ``name`` since the time ``since``."""
        rows = await self._run(
            "SELECT COUNT(*) FROM web_password_failure WHERE name_hash = ? AND at >= ?",
            (_digest(name), since),
        )
        return int(str(rows[0][0]))

    async def add_password_failure(self, name: str, at: float, *, forget_before: float) -> None:
        """Count a wrong password for ``name``; failures older than ``forget_before`` go (the
        name typed is kept only as a hash: it may be a password typed in the wrong box)."""
        await self._run("DELETE FROM web_password_failure WHERE at < ?", (forget_before,))
        await self._run(
            "INSERT INTO web_password_failure (name_hash, at) VALUES (?, ?)", (_digest(name), at)
        )
