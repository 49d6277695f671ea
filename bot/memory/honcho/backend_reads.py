"""How :class:`~bot.memory.honcho.backend.HonchoMemory` reads: recall through the server, the
persona's representation of the user for the prompt, and what a person inspects (list,
explain, stats, export).

Recall asks Honcho's conclusion query and its message search, and
:mod:`bot.memory.honcho.recall` filters the answers through the ledger: what it marks
forgotten or superseded, and what the turn's audience does not see, is left out. The turn
hooks (``prefetch``, ``inject``) answer empty when the server cannot be reached; ``search``,
a person's call, raises :class:`~bot.daemon.errors.MemoryStoreError`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

# The SDK is imported here, not only by the helper modules: importing the backend must fail
# when ``honcho-ai`` is missing even if those helpers were loaded before (the factory turns the
# ImportError into a sentence naming the extra to install).
from honcho import Conclusion

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import MemoryHit, MemoryItem, format_citation
from bot.memory.honcho.client import HonchoClient, conclusion_summary
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.honcho.outbox import Outbox
from bot.memory.honcho.recall import recall, visible_representation
from bot.setup.config import HonchoConfig
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["HonchoReads"]

log = structlog.get_logger(__name__)


class HonchoReads:
    """The backend's reads (a part of :class:`~bot.memory.honcho.backend.HonchoMemory`)."""

    # what it uses of the backend
    name: str
    config: HonchoConfig
    path: Path
    user: str
    user_peer: str
    persona_peer: str
    _client: HonchoClient
    _ledger: HonchoLedger
    _outbox: Outbox
    _now: Callable[[], datetime]

    if TYPE_CHECKING:

        @property
        def _workspace(self) -> str: ...

    # -- recall ----------------------------------------------------------------------------

    async def _recall(self, query: str, limit: int, audience: Audience) -> list[MemoryHit]:
        return await recall(
            self._client, self._ledger, query, limit, now=self._now(), audience=audience
        )

    async def prefetch(
        self, query: str, *, limit: int = 8, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        if self._client.is_down():
            return []
        try:
            return await self._recall(query, limit, audience)
        except MemoryStoreError as exc:
            log.warning("memory.honcho.prefetch_failed", error=str(exc))
            return []

    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        return await self._recall(query, limit, audience)

    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        """The persona's representation of the user, minus what the ledger marks inactive;
        empty when there is none, the server cannot be reached, or the turn is in a shared
        room (the representation draws on direct conversations too)."""
        if not audience.private or self._client.is_down():
            return ""
        try:
            representation = await self._client.representation()
        except MemoryStoreError as exc:
            log.warning("memory.honcho.inject_failed", error=str(exc))
            return ""
        hidden = await self._ledger.hidden_norms()
        return visible_representation(representation, hidden, self.user)

    # -- inspection ------------------------------------------------------------------------

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        return await self._ledger.items(include_inactive=include_inactive, limit=limit)

    async def explain(self, item_id: str) -> dict[str, Any]:
        detail = await self._ledger.detail(item_id)
        if detail is None:
            if not item_id.startswith("honcho:"):
                return {}
            remote: Conclusion | None = await self._client.conclusion(item_id.partition(":")[2])
            if remote is None:
                return {}
            return {
                "id": item_id,
                "text": remote.content,
                "status": "active",
                "honcho": conclusion_summary(remote),
                "history": [],
            }
        item, record, history = detail
        remote_state: Any = "queued: not yet sent"
        if record["honcho_id"] and record["kind"] != "message":
            try:
                found = await self._client.conclusion(str(record["honcho_id"]))
                remote_state = conclusion_summary(found) if found else "missing on the server"
            except MemoryStoreError as exc:
                remote_state = f"unknown ({exc})"
        return {
            **record,
            "citation": format_citation(item),
            "honcho": remote_state,
            "history": history,
        }

    async def stats(self) -> dict[str, Any]:
        by_status, by_category = await self._ledger.counts()
        queued, sent = await self._outbox.counts()
        return {
            "backend": self.name,
            "base_url": self.config.base_url,
            "workspace": self._workspace,
            "peers": {"user": self.user_peer, "persona": self.persona_peer},
            "reachable": not self._client.is_down(),
            "by_status": by_status,
            "by_category": by_category,
            "queued": queued,
            "messages_sent": sent,
            "ledger": str(self.path),
        }

    async def export(self) -> list[dict[str, Any]]:
        return await self._ledger.export()
