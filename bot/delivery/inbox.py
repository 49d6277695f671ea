"""Messages kept until they are answered, so a restart answers what it cut off.

Not every platform hands a message over again after a restart: Discord's gateway and Nextcloud
Talk's webhooks deliver each message once. So the claim of an on-record event (in
``personad.db``'s ``events`` table, :mod:`bot.delivery.claims`) carries the message itself, and
once the event is settled (``done`` or ``queued``: its answer delivered or waiting in the
outbox) a trigger clears it: a message stays on disk only while it is unanswered (cleared, its
bytes are zeroed and the WAL checkpointed away within a second, :mod:`bot.delivery.state`). At
start the daemon hands the messages that an earlier process left unanswered back to the router
(:meth:`Inbox.unanswered`), oldest first; the claim makes a platform's own redelivery of the
same message a duplicate. Off The Record messages are never kept here: if a restart cuts one
off, only a platform that delivers it again gets it answered. A message is handed back at most
:data:`MAX_REPLAYS` times (one that crashes every process that reads it is let go) and only
within :data:`MAX_AGE` of its arrival.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, fields

import structlog

from adapters.base import Attachment, Incoming
from bot.delivery.migrations import Migration

__all__ = ["INBOX_MIGRATION", "MAX_AGE", "MAX_REPLAYS", "Inbox", "from_json", "to_json"]

log = structlog.get_logger(__name__)

#: a message is handed back to a new process at most this many times
MAX_REPLAYS = 3
#: seconds after its arrival that an unanswered message is still worth answering
MAX_AGE = 24 * 3600.0

INBOX_MIGRATION: Migration = (
    6,
    """
        ALTER TABLE events ADD COLUMN incoming TEXT;
        ALTER TABLE events ADD COLUMN replays INTEGER NOT NULL DEFAULT 0;
        CREATE TRIGGER events_settled AFTER UPDATE OF status ON events
            WHEN NEW.status != 'processing' AND NEW.incoming IS NOT NULL BEGIN
            UPDATE events SET incoming = NULL
            WHERE platform = NEW.platform AND event_id = NEW.event_id; END;
        """,
)

_NAMES = tuple(field.name for field in fields(Incoming))
_FIELDS = frozenset(_NAMES)


def to_json(incoming: Incoming) -> str:
    """The message as the inbox keeps it: its attachments as their handles, never bytes."""
    data: dict[str, object] = {name: getattr(incoming, name) for name in _NAMES}
    data["attachments"] = [asdict(attachment) for attachment in incoming.attachments]
    return json.dumps(data, ensure_ascii=False)


def from_json(text: str) -> Incoming | None:
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or set(data) - _FIELDS:
            return None
        data["attachments"] = tuple(Attachment(**item) for item in data.get("attachments", ()))
        return Incoming(**data)
    except (ValueError, TypeError):
        return None


class Inbox(ABC):
    """The inbox's queries, over the store's own query helpers."""

    boot_id: str

    @abstractmethod
    async def _write(self, sql: str, params: tuple[object, ...]) -> int: ...

    @abstractmethod
    async def _all(self, sql: str, params: Sequence[object]) -> list[tuple[object, ...]]: ...

    @abstractmethod
    def checkpoint_soon(self) -> None:
        """Text left a row: the WAL's old copies of it are to go soon."""

    async def unanswered(self, now: float) -> list[Incoming]:
        """The on-record messages earlier processes claimed and never answered, oldest
        first; each is counted as handed back once more. Those handed back too often, or too
        old, are let go (their text cleared)."""
        cutoff = now - MAX_AGE
        dropped = await self._write(
            "UPDATE events SET incoming = NULL WHERE status = 'processing'"
            " AND boot_id != ? AND incoming IS NOT NULL AND (replays >= ? OR received_at < ?)",
            (self.boot_id, MAX_REPLAYS, cutoff),
        )
        if dropped:
            log.error("inbox.let_go", messages=dropped, max_replays=MAX_REPLAYS)
            self.checkpoint_soon()
        rows = await self._all(
            "UPDATE events SET replays = replays + 1 WHERE status = 'processing'"
            " AND boot_id != ? AND incoming IS NOT NULL"
            " RETURNING incoming, received_at",
            (self.boot_id,),
        )
        found: list[tuple[float, Incoming]] = []
        for text, received_at in rows:
            incoming = from_json(str(text))
            if incoming is None:
                log.error("inbox.unreadable")
                continue
            found.append((float(received_at), incoming))  # type: ignore[arg-type]
        return [incoming for _at, incoming in sorted(found, key=lambda pair: pair[0])]
