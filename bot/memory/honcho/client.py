"""The Honcho server as the ``honcho`` backend uses it: ``honcho-ai`` SDK calls, errors translated.

Every call goes through :meth:`HonchoClient._remote`, which turns the SDK's errors into
:class:`MemoryStoreError` with a sentence saying what failed ("cannot reach …", "the API key was
refused …") and remembers a connection failure or timeout for ``RETRY_AFTER`` seconds, so the
turn hooks can leave an unreachable server alone (:meth:`HonchoClient.is_down`).

The workspace, the two peers (user and persona) and the day sessions are created on the server
on first use and cached. A day has a session per audience (:mod:`bot.turn.audience`):
``<persona peer>-<day>`` for the direct conversations and ``<persona peer>-r<digest>-<day>``
for each shared room (a digest of its label: a Honcho name cannot hold a room id), so a search
can be held to the sessions one audience sees. Sessions of older versions,
``<persona peer>-shared-<day>``, held every shared room at once: whose their messages were is
unknown, so they count as direct (private). :meth:`HonchoClient.reconnect` forgets the
sessions after the server lost them.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any, TypeVar

from honcho import (
    Conclusion,
    Honcho,
    HonchoError,
    Message,
    MessageCreateParams,
    NotFoundError,
    Peer,
    Session,
)
from honcho import ConnectionError as HonchoConnectionError
from honcho import TimeoutError as HonchoTimeoutError
from honcho.api_types import SessionPeerConfig

from bot.daemon.errors import MemoryStoreError
from bot.setup.config import HonchoConfig
from bot.turn.audience import DIRECT

__all__ = ["RETRY_AFTER", "HonchoClient", "conclusion_summary", "peer_id"]

T = TypeVar("T")

#: seconds the turn hooks leave an unreachable server alone before trying again
RETRY_AFTER = 30.0

_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_SESSION = re.compile(r"(shared-|r[0-9a-f]{6,16}-)?\d{4}-\d{2}-\d{2}")
#: Honcho's longest resource name
_MAX_NAME = 100


def peer_id(name: str) -> str:
    """A Honcho resource name (``[A-Za-z0-9_-]``, at most 100) for a personad name."""
    return _SAFE.sub("-", name).strip("-")[:80] or "anonymous"


def conclusion_summary(conclusion: Conclusion) -> dict[str, Any]:
    """What ``explain`` shows of a conclusion the server holds."""
    return {
        "id": conclusion.id,
        "level": conclusion.level,
        "observer": conclusion.observer_id,
        "observed": conclusion.observed_id,
        "created_at": conclusion.created_at.isoformat(),
    }


def _describe(exc: HonchoError, base_url: str, key_env: str) -> str:
    if isinstance(exc, HonchoConnectionError):
        return f"cannot reach {base_url}"
    if isinstance(exc, HonchoTimeoutError):
        return f"{base_url} did not answer in time"
    if exc.status == 401:
        return f"the API key was refused (HTTP 401); check ${key_env}"
    if exc.status >= 500:
        return f"server error (HTTP {exc.status})"
    return f"HTTP {exc.status}: {exc.message}"


class HonchoClient:
    """One user's and persona's view of a Honcho workspace."""

    def __init__(
        self,
        config: HonchoConfig,
        *,
        user_peer: str,
        persona_peer: str,
        api_key: str | None,
        timeout: float,
        max_retries: int,
    ) -> None:
        self.config = config
        self.user_peer = user_peer
        self.persona_peer = persona_peer
        self._options: dict[str, Any] = {
            "base_url": config.base_url,
            "workspace_id": config.workspace,
            "api_key": api_key,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        self._client = Honcho(**self._options)
        self._peers: tuple[Peer, Peer] | None = None
        self._sessions: dict[str, Session] = {}
        self._down_until = 0.0

    def is_down(self) -> bool:
        """True for ``RETRY_AFTER`` seconds after the server could not be reached."""
        return time.monotonic() < self._down_until

    async def close(self) -> None:
        # The SDK has no public close for the async transport it builds per event loop.
        transport = getattr(self._client, "_async_http_built", None)
        if transport is not None:
            await transport[1].close()

    async def reconnect(self) -> None:
        """Forget what this client believes exists on the server (workspace, peers, sessions):
        after a 404 on a write the server lost them, and the next delivery creates them again."""
        await self.close()
        self._client = Honcho(**self._options)
        self._peers = None
        self._sessions.clear()

    async def _remote(self, what: str, call: Awaitable[T]) -> T:
        """Await one SDK call; its errors become MemoryStoreError with a readable reason."""
        try:
            result = await call
        except HonchoError as exc:
            if isinstance(exc, (HonchoConnectionError, HonchoTimeoutError)):
                self._down_until = time.monotonic() + RETRY_AFTER
            reason = _describe(exc, self.config.base_url, self.config.api_key_env)
            raise MemoryStoreError(
                f"Honcho {what} failed: {reason}",
                user_message=f"The Honcho memory server failed ({reason}).",
            ) from exc
        except ValueError as exc:  # pydantic: the server answered something unexpected
            raise MemoryStoreError(f"Honcho {what}: unexpected answer ({exc})") from exc
        self._down_until = 0.0
        return result

    async def peers(self) -> tuple[Peer, Peer]:
        """(user, persona), created on the server on first use."""
        if self._peers is None:
            user = await self._remote("peer", self._client.aio.peer(self.user_peer))
            persona = await self._remote("peer", self._client.aio.peer(self.persona_peer))
            self._peers = (user, persona)
        return self._peers

    def session_id(self, at: datetime, audience: str = DIRECT) -> str:
        """The persona's session for the audience label ``audience`` on the day ``at`` falls
        on (UTC when it has no zone)."""
        day = (at if at.tzinfo else at.replace(tzinfo=UTC)).date().isoformat()
        if audience == DIRECT:
            return f"{self.persona_peer}-{day}"
        # as long a digest as the name leaves room for (a very long peer name: 6 at least)
        room = max(6, min(16, _MAX_NAME - len(self.persona_peer) - len(day) - 3))
        digest = hashlib.sha256(audience.encode()).hexdigest()[:room]
        return f"{self.persona_peer}-r{digest}-{day}"

    def is_ours(self, session_id: str) -> bool:
        """Whether ``session_id`` is one of this persona's day sessions."""
        prefix = f"{self.persona_peer}-"
        found = _SESSION.fullmatch(session_id.removeprefix(prefix))
        return found is not None and session_id.startswith(prefix)

    async def _session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            await self.peers()
            peers = [
                (self.user_peer, SessionPeerConfig(observe_me=True)),
                (self.persona_peer, SessionPeerConfig(observe_others=True)),
            ]
            call = self._client.aio.session(session_id, peers=peers)
            session = await self._remote("session", call)
            self._sessions[session_id] = session
        return session

    # -- writes ----------------------------------------------------------------------------

    async def create_conclusions(self, payloads: list[Any]) -> list[Conclusion]:
        """Write conclusions of the persona about the user (up to 100 in one request)."""
        user, persona = await self.peers()
        view = persona.conclusions_of(user)
        created: list[Conclusion] = await self._remote(
            "conclusion write", view.aio.create(payloads)
        )
        return created

    async def add_messages(self, session_id: str, payload: list[dict[str, Any]]) -> list[Message]:
        """Add queued messages (``peer``, ``content``, ``metadata``, ``at``) to a session."""
        session = await self._session(session_id)
        user, persona = await self.peers()
        messages = [
            MessageCreateParams(
                peer_id=(user if entry["peer"] == "user" else persona).id,
                content=entry["content"],
                metadata=entry["metadata"],
                created_at=datetime.fromisoformat(entry["at"]),
            )
            for entry in payload
        ]
        sent: list[Message] = await self._remote(
            "message write", session.aio.add_messages(messages)
        )
        return sent

    # -- reads -----------------------------------------------------------------------------

    async def conclusion(self, conclusion_id: str) -> Conclusion | None:
        """One conclusion by id, None when the server does not know it."""
        try:
            call = self._client.aio.conclusions.get(conclusion_id)
            return await self._remote("conclusion read", call)
        except MemoryStoreError as exc:
            if isinstance(exc.__cause__, NotFoundError):
                return None
            raise

    async def search(
        self, query: str, top: int, *, sessions: list[str] | None = None
    ) -> tuple[list[Conclusion], list[Message], list[Message]]:
        """Conclusions about the user matching ``query`` (ranked by Honcho), and the messages
        of this persona's sessions that match it (of ``sessions`` only, when given: the
        server filters, so another audience's messages take no place in the answer): the
        user's, and the persona's own. The three requests run at once."""
        user, persona = await self.peers()
        view = persona.conclusions_of(user)
        filters = None if sessions is None else {"session_id": {"in": sessions}}

        async def messages(peer: Peer) -> list[Message]:
            if sessions is not None and not sessions:
                return []
            found: list[Message] = await self._remote(
                "message search", peer.aio.search(query, filters=filters, limit=top)
            )
            return found

        asked = asyncio.ensure_future(
            self._remote("conclusion query", view.aio.query(query, top_k=top))
        )
        by_user = asyncio.ensure_future(messages(user))
        by_persona = asyncio.ensure_future(messages(persona))
        try:
            conclusions, said, replied = await asyncio.gather(asked, by_user, by_persona)
        except BaseException:
            # one failed: the others are not left running, nor their errors unread
            for task in (asked, by_user, by_persona):
                task.cancel()
            await asyncio.gather(asked, by_user, by_persona, return_exceptions=True)
            raise
        said = [m for m in said if self.is_ours(m.session_id)]
        replied = [m for m in replied if self.is_ours(m.session_id)]
        return conclusions, said, replied

    async def representation(self) -> str:
        """The persona's representation of the user."""
        user, persona = await self.peers()
        call = persona.aio.representation(target=user, max_conclusions=25)
        representation: str = await self._remote("representation", call)
        return representation
