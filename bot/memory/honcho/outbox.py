"""The outbox of the ``honcho`` backend: writes queued in ``honcho.db``, delivered in order.

Every write is queued first (the ``outbox`` table of :mod:`bot.memory.honcho.ledger`), so
nothing is lost while the server is down: a conclusion by the ledger when it is entered, a
turn's two messages by :meth:`Outbox.queue_turn`, with any sentence that looks like a secret
withheld. :meth:`Outbox.flush` sends the queue oldest first: consecutive conclusions in one
request (the API takes up to 100), a day's messages one batch at a time; every message batch
sent is recorded in ``deliveries``. The first failure stops the flush and leaves the rest
queued, with the attempt counted and its error kept; after a 404 the client forgets the
server-side objects it cached, so the next flush creates them again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import structlog
from honcho import NotFoundError

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import TurnRecord
from bot.memory.honcho.client import HonchoClient
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.policy import withhold_sentences

__all__ = ["WITHHELD", "Outbox"]

log = structlog.get_logger(__name__)

WITHHELD = "[withheld: looked like a secret]"


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _marks(count: int) -> str:
    return ",".join("?" * count)


def _withhold_secrets(text: str) -> str:
    """``text`` with every sentence that carries a credential replaced by a marker (a value
    on the line after the line that announces it counts as part of that secret)."""
    return withhold_sentences(text, WITHHELD)


def _batches(rows: Sequence[Sequence[Any]]) -> list[list[Sequence[Any]]]:
    """Outbox rows in delivery batches: runs of up to 100 conclusions, messages one by one."""
    batches: list[list[Sequence[Any]]] = []
    for row in rows:
        last = batches[-1] if batches else None
        if row[1] == "conclusion" and last and last[0][1] == "conclusion" and len(last) < 100:
            last.append(row)
        else:
            batches.append([row])
    return batches


class Outbox:
    """Sends what the ledger has queued through the client; one flush at a time."""

    def __init__(self, ledger: HonchoLedger, client: HonchoClient) -> None:
        self._ledger = ledger
        self._client = client
        self._lock = asyncio.Lock()

    async def queue_turn(self, turn: TurnRecord) -> None:
        """Queue the turn's two messages for the persona's session of that day and audience
        (the session's label noted in the ledger, for recall)."""
        at = (turn.at if turn.at.tzinfo else turn.at.replace(tzinfo=UTC)).isoformat()
        metadata = {"platform": turn.platform}
        payload = [
            {
                "peer": "user",
                "content": _withhold_secrets(turn.user_text),
                "at": at,
                "metadata": metadata,
            },
            {
                "peer": "persona",
                "content": _withhold_secrets(turn.reply_text),
                "at": at,
                "metadata": metadata,
            },
        ]
        db = self._ledger.conn
        session = self._client.session_id(turn.at, turn.audience)
        await db.execute(
            "INSERT OR IGNORE INTO sessions (session_id, audience) VALUES (?, ?)",
            (session, turn.audience),
        )
        await db.execute(
            "INSERT INTO outbox (kind, session_id, payload, created_at) VALUES (?, ?, ?, ?)",
            ("messages", session, json.dumps(payload), _now()),
        )
        await db.commit()

    async def flush(self) -> bool:
        """Deliver the outbox in order; True when it is empty afterwards."""
        db = self._ledger.conn
        async with self._lock:
            async with db.execute(
                "SELECT seq, kind, item_id, session_id, payload FROM outbox ORDER BY seq"
            ) as cursor:
                pending = list(await cursor.fetchall())
            for batch in _batches(pending):
                seqs = [row[0] for row in batch]
                try:
                    if batch[0][1] == "conclusion":
                        await self._deliver_conclusions([(str(r[2]), r[4]) for r in batch])
                    else:
                        await self._deliver_messages(str(batch[0][3]), json.loads(batch[0][4]))
                except MemoryStoreError as exc:
                    await db.execute(
                        "UPDATE outbox SET attempts = attempts + 1, last_error = ?"
                        f" WHERE seq IN ({_marks(len(seqs))})",
                        (str(exc), *seqs),
                    )
                    await db.commit()
                    log.warning("memory.honcho.queued", pending=len(pending), error=str(exc))
                    if isinstance(exc.__cause__, NotFoundError):
                        await self._client.reconnect()
                    return False
                await db.execute(f"DELETE FROM outbox WHERE seq IN ({_marks(len(seqs))})", seqs)
                await db.commit()
        return True

    async def deliver_soon(self) -> bool:
        """Flush unless the server was just found down; True when nothing is left queued."""
        return False if self._client.is_down() else await self.flush()

    async def _deliver_conclusions(self, batch: list[tuple[str, str]]) -> None:
        """Send queued conclusions, skipping any forgotten before they were ever sent."""
        ledger = self._ledger
        active = await ledger.active_ids([item_id for item_id, _ in batch])
        for item_id, _ in batch:
            if item_id not in active:
                await ledger.event(item_id, "not sent", "no longer active")
        sending = [
            (item_id, json.loads(payload)) for item_id, payload in batch if item_id in active
        ]
        if not sending:
            return
        created = await self._client.create_conclusions([payload for _, payload in sending])
        for (item_id, _), conclusion in zip(sending, created, strict=True):
            await ledger.sent(item_id, conclusion.id)

    async def _deliver_messages(self, session_id: str, payload: list[dict[str, Any]]) -> None:
        sent = await self._client.add_messages(session_id, payload)
        await self._ledger.conn.execute(
            "INSERT INTO deliveries (at, session_id, honcho_ids) VALUES (?, ?, ?)",
            (_now(), session_id, json.dumps([message.id for message in sent])),
        )

    async def counts(self) -> tuple[dict[str, int], int]:
        """Queued writes by kind, and how many messages were delivered so far."""
        db = self._ledger.conn
        async with db.execute("SELECT kind, COUNT(*) FROM outbox GROUP BY kind") as cursor:
            queued = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        async with db.execute("SELECT honcho_ids FROM deliveries") as cursor:
            sent = sum(len(json.loads(r[0])) for r in await cursor.fetchall())
        return queued, sent
