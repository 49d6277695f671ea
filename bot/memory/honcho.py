"""The ``honcho`` backend: the Honcho service models the user, personad keeps a ledger.

Mapping onto Honcho (through the official ``honcho-ai`` SDK, its ``.aio`` async surface):

* workspace = ``memory.honcho.workspace``; two peers: the user (``<user>``) and the persona
  (``<persona>__<user>``, so two users' personas of one name stay apart);
* one session per persona and day (``<persona peer>-YYYY-MM-DD``), the user observed by
  Honcho and by the persona (``observe_me`` / ``observe_others``);
* ``sync`` adds the turn's two messages (secrets withheld); ``add`` writes a conclusion of
  the persona about the user; ``prefetch`` asks Honcho's conclusion query and message search;
  ``inject`` is the persona's representation of the user.

Honcho cannot mark a conclusion forgotten, so ``honcho.db`` (SQLite) is a ledger of what was
written: every item with its Honcho id, category, source, confidence, status and history.
Forgotten or superseded ids are filtered out of every recall and out of the representation;
nothing is deleted on the server. The ledger is also an outbox: writes are queued there first
and delivered in order, so a turn made while the server is down is sent on a later call.

An unreachable server never breaks a turn: ``inject`` and ``prefetch`` answer empty, ``sync``
queues, and after a connection failure the turn hooks skip the server for ``RETRY_AFTER``
seconds. Calls a person makes (``search``, the tools) raise :class:`MemoryStoreError` with a
sentence saying what failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import uuid
from collections.abc import Awaitable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
import structlog
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

from bot.config import HonchoConfig
from bot.errors import MemoryStoreError
from bot.memory.base import (
    CATEGORIES,
    AddResult,
    Category,
    MemoryBackend,
    MemoryHit,
    MemoryItem,
    TurnRecord,
    format_citation,
)
from bot.memory.memory_tools import memory_tools
from bot.memory.policy import classify, fold, looks_secret, split_candidates
from bot.migrations import Migration, apply_migrations
from bot.tools import Tool

__all__ = ["RETRY_AFTER", "HonchoMemory"]

log = structlog.get_logger(__name__)

T = TypeVar("T")

#: seconds the turn hooks leave an unreachable server alone before trying again
RETRY_AFTER = 30.0
#: how much a Honcho-derived conclusion is trusted, by its reasoning level
LEVEL_CONFIDENCE = {"explicit": 0.7, "deductive": 0.6, "inductive": 0.5, "contradiction": 0.3}
WITHHELD = "[withheld: looked like a secret]"

MIGRATIONS: list[Migration] = [
    (
        1,
        """
        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            honcho_id TEXT,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            category TEXT NOT NULL,
            source TEXT NOT NULL,
            confidence REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            reinforced INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX items_honcho ON items (honcho_id) WHERE honcho_id IS NOT NULL;
        CREATE INDEX items_norm ON items (norm, status);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            item_id TEXT NOT NULL,
            at TEXT NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX events_item ON events (item_id, id);
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            item_id TEXT,
            session_id TEXT,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            session_id TEXT NOT NULL,
            honcho_ids TEXT NOT NULL
        );
        """,
    )
]

_ITEM_COLUMNS = "id, text, category, source, confidence, status, reinforced, created_at"
_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_WORD = re.compile(r"\w+")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _normalize(text: str) -> str:
    """The comparison form of a sentence (duplicates, forgotten lines): folded words only."""
    return " ".join(_WORD.findall(fold(text)))


def _peer_id(name: str) -> str:
    """A Honcho resource name (``[A-Za-z0-9_-]``, at most 100) for a personad name."""
    return _SAFE.sub("-", name).strip("-")[:80] or "anonymous"


def _item(row: Sequence[Any]) -> MemoryItem:
    return MemoryItem(
        id=str(row[0]),
        text=str(row[1]),
        category=row[2],
        source=str(row[3]),
        confidence=float(row[4]),
        status=row[5],
        reinforced=int(row[6]),
        created_at=datetime.fromisoformat(str(row[7])),
    )


def _record(row: Sequence[Any]) -> dict[str, Any]:
    """A ledger row (``_ITEM_COLUMNS, honcho_id, kind, updated_at``) as a plain dict."""
    item = _item(row)
    return {
        "id": item.id,
        "text": item.text,
        "category": item.category,
        "source": item.source,
        "confidence": item.confidence,
        "status": item.status,
        "reinforced": item.reinforced,
        "created_at": item.created_at.isoformat(),
        "updated_at": row[10],
        "honcho_id": row[8],
        "kind": row[9],
    }


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


def _withhold_secrets(text: str) -> str:
    """``text`` with every sentence that carries a credential replaced by a marker."""
    if not looks_secret(text):
        return text
    return "\n".join(
        " ".join(WITHHELD if looks_secret(part) else part for part in _SENTENCE.split(line))
        for line in text.split("\n")
    )


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


class HonchoMemory(MemoryBackend):
    """Memory kept by a Honcho server, with a local ledger for status and delivery."""

    name = "honcho"

    def __init__(
        self,
        persona_dir: Path,
        *,
        config: HonchoConfig,
        user: str,
        persona: str,
        env: Mapping[str, str] | None = None,
        timeout: float = 10.0,
        max_retries: int = 1,
    ) -> None:
        super().__init__(persona_dir)
        self.config = config
        self.path = persona_dir / "honcho.db"
        self.user = user
        self.user_peer = _peer_id(user)
        self.persona_peer = _peer_id(f"{persona}__{user}")
        environment = os.environ if env is None else env
        self._client_options: dict[str, Any] = {
            "base_url": config.base_url,
            "workspace_id": config.workspace,
            "api_key": environment.get(config.api_key_env) or None,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        self._client = Honcho(**self._client_options)
        self._db: aiosqlite.Connection | None = None
        self._peers: tuple[Peer, Peer] | None = None
        self._sessions: dict[str, Session] = {}
        self._down_until = 0.0
        self._lock = asyncio.Lock()
        self._flush_lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the ledger; the server is contacted on first use, so start never waits."""
        if self._db is not None:
            return
        try:
            self.persona_dir.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(self.path)
        except (OSError, aiosqlite.Error) as exc:
            raise MemoryStoreError(f"cannot open {self.path}: {exc}") from exc
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await apply_migrations(db, MIGRATIONS)
        except aiosqlite.Error as exc:
            await db.close()
            raise MemoryStoreError(f"cannot read {self.path}: {exc}") from exc
        self._db = db
        log.info("memory.honcho.open", base_url=self.config.base_url, workspace=self._workspace)

    async def close(self) -> None:
        if self._db is None:
            return
        if not self._is_down():
            await self.flush()
        await self._close_transport()
        await self._db.close()
        self._db = None

    async def _close_transport(self) -> None:
        # The SDK has no public close for the async transport it builds per event loop.
        transport = getattr(self._client, "_async_http_built", None)
        if transport is not None:
            await transport[1].close()

    async def _reconnect(self) -> None:
        """Forget what this client believes exists on the server (workspace, peers, sessions):
        after a 404 on a write the server lost them, and the next delivery creates them again."""
        await self._close_transport()
        self._client = Honcho(**self._client_options)
        self._peers = None
        self._sessions.clear()

    @property
    def _workspace(self) -> str:
        return self.config.workspace

    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise MemoryStoreError("honcho memory is not open")
        return self._db

    def _is_down(self) -> bool:
        return time.monotonic() < self._down_until

    # -- talking to Honcho -----------------------------------------------------------------

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

    async def _peer_pair(self) -> tuple[Peer, Peer]:
        """(user, persona), created on the server on first use."""
        if self._peers is None:
            user = await self._remote("peer", self._client.aio.peer(self.user_peer))
            persona = await self._remote("peer", self._client.aio.peer(self.persona_peer))
            self._peers = (user, persona)
        return self._peers

    def _session_id(self, at: datetime) -> str:
        day = (at if at.tzinfo else at.replace(tzinfo=UTC)).date().isoformat()
        return f"{self.persona_peer}-{day}"

    async def _session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            await self._peer_pair()
            peers = [
                (self.user_peer, SessionPeerConfig(observe_me=True)),
                (self.persona_peer, SessionPeerConfig(observe_others=True)),
            ]
            call = self._client.aio.session(session_id, peers=peers)
            session = await self._remote("session", call)
            self._sessions[session_id] = session
        return session

    async def flush(self) -> bool:
        """Deliver the outbox in order; True when it is empty afterwards. Consecutive
        conclusions go in one request (the API takes up to 100)."""
        db = self._conn()
        async with self._flush_lock:
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
                    marks = ",".join("?" * len(seqs))
                    await db.execute(
                        "UPDATE outbox SET attempts = attempts + 1, last_error = ?"
                        f" WHERE seq IN ({marks})",
                        (str(exc), *seqs),
                    )
                    await db.commit()
                    log.warning("memory.honcho.queued", pending=len(pending), error=str(exc))
                    if isinstance(exc.__cause__, NotFoundError):
                        await self._reconnect()
                    return False
                await db.execute(
                    f"DELETE FROM outbox WHERE seq IN ({','.join('?' * len(seqs))})", seqs
                )
                await db.commit()
        return True

    async def _deliver_conclusions(self, batch: list[tuple[str, str]]) -> None:
        """Send queued conclusions, skipping any forgotten before they were ever sent."""
        db = self._conn()
        marks = ",".join("?" * len(batch))
        query = f"SELECT id FROM items WHERE status = 'active' AND id IN ({marks})"
        async with db.execute(query, [item_id for item_id, _ in batch]) as cursor:
            active = {str(row[0]) for row in await cursor.fetchall()}
        for item_id, _ in batch:
            if item_id not in active:
                await self._event(item_id, "not sent", "no longer active")
        sending = [
            (item_id, json.loads(payload)) for item_id, payload in batch if item_id in active
        ]
        if not sending:
            return
        user, persona = await self._peer_pair()
        view = persona.conclusions_of(user)
        created = await self._remote(
            "conclusion write", view.aio.create([payload for _, payload in sending])
        )
        for (item_id, _), conclusion in zip(sending, created, strict=True):
            await db.execute(
                "UPDATE items SET honcho_id = ?, updated_at = ? WHERE id = ?",
                (conclusion.id, _now(), item_id),
            )
            await self._event(item_id, "sent", f"conclusion {conclusion.id}")

    async def _deliver_messages(self, session_id: str, payload: list[dict[str, Any]]) -> None:
        session = await self._session(session_id)
        user, persona = await self._peer_pair()
        messages = [
            MessageCreateParams(
                peer_id=(user if entry["peer"] == "user" else persona).id,
                content=entry["content"],
                metadata=entry["metadata"],
                created_at=datetime.fromisoformat(entry["at"]),
            )
            for entry in payload
        ]
        sent = await self._remote("message write", session.aio.add_messages(messages))
        await self._conn().execute(
            "INSERT INTO deliveries (at, session_id, honcho_ids) VALUES (?, ?, ?)",
            (_now(), session_id, json.dumps([message.id for message in sent])),
        )

    async def _event(self, item_id: str, event: str, detail: str) -> None:
        await self._conn().execute(
            "INSERT INTO events (item_id, at, event, detail) VALUES (?, ?, ?, ?)",
            (item_id, _now(), event, detail),
        )

    async def _deliver_soon(self) -> bool:
        """Flush unless the server was just found down; True when nothing is left queued."""
        return False if self._is_down() else await self.flush()

    # -- writes ----------------------------------------------------------------------------

    async def sync(self, turn: TurnRecord) -> None:
        """Queue the turn's two messages and try to deliver them; never raises for the
        server (the turn is kept in the outbox until Honcho is back)."""
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
        db = self._conn()
        await db.execute(
            "INSERT INTO outbox (kind, session_id, payload, created_at) VALUES (?, ?, ?, ?)",
            ("messages", self._session_id(turn.at), json.dumps(payload), _now()),
        )
        await db.commit()
        await self._deliver_soon()

    async def add(
        self, text: str, *, source: str, category: Category | None = None, force: bool = False
    ) -> AddResult:
        return await self._add(text, source=source, category=category, force=force)

    async def _add(
        self,
        text: str,
        *,
        source: str,
        category: Category | None = None,
        force: bool = False,
        reinforce: bool = True,
        deliver: bool = True,
    ) -> AddResult:
        text = " ".join(text.split())
        if not text:
            return AddResult(False, None, "rejected: empty")
        if looks_secret(text):  # even a forced write never stores a credential
            return AddResult(False, None, "rejected: secret (never stored)")
        if category is not None and category not in CATEGORIES:
            return AddResult(False, None, f"rejected: unknown category {category!r}")
        async with self._lock:
            duplicate = await self._active_by_norm(_normalize(text))
            if duplicate is not None:
                if reinforce:
                    await self._mark(duplicate.id, "reinforced", source, reinforce=True)
                return AddResult(False, duplicate.category, "duplicate", duplicate_of=duplicate.id)
            verdict = classify(text)
            if not verdict.accepted and not force:
                return AddResult(False, None, verdict.reason)
            chosen: Category = category or verdict.category or "fact"
            reason = verdict.reason if verdict.accepted else f"forced ({verdict.reason})"
            item_id = uuid.uuid4().hex[:12]
            await self._store(item_id, text, chosen, source, 1.0 if force else verdict.confidence)
            await self._event(item_id, "created", f"{source}: {reason}")
            await self._conn().commit()
        delivered = await self._deliver_soon() if deliver else False
        if not delivered:
            reason += "; queued until Honcho is reachable" if deliver else "; queued"
        log.info("memory.honcho.add", item=item_id, category=chosen, delivered=delivered)
        return AddResult(True, chosen, reason, item_id=item_id)

    async def _store(
        self, item_id: str, text: str, category: str, source: str, confidence: float
    ) -> None:
        stamp = _now()
        db = self._conn()
        await db.execute(
            "INSERT INTO items (id, honcho_id, kind, text, norm, category, source, confidence,"
            " created_at, updated_at) VALUES (?, NULL, 'conclusion', ?, ?, ?, ?, ?, ?, ?)",
            (item_id, text, _normalize(text), category, source, confidence, stamp, stamp),
        )
        await db.execute(
            "INSERT INTO outbox (kind, item_id, payload, created_at) VALUES (?, ?, ?, ?)",
            ("conclusion", item_id, json.dumps({"content": text}), stamp),
        )

    async def _active_by_norm(self, norm: str) -> MemoryItem | None:
        query = f"SELECT {_ITEM_COLUMNS} FROM items WHERE norm = ? AND status = 'active'"
        async with self._conn().execute(query, (norm,)) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _item(row)

    async def _mark(
        self, item_id: str, event: str, detail: str, *, status: str = "", reinforce: bool = False
    ) -> None:
        db = self._conn()
        await db.execute(
            "UPDATE items SET status = COALESCE(NULLIF(?, ''), status),"
            " reinforced = reinforced + ?, updated_at = ? WHERE id = ?",
            (status, int(reinforce), _now(), item_id),
        )
        await self._event(item_id, event, detail)
        await db.commit()

    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        """Honcho reasons over the synced messages itself; this adds what the write policy
        accepts from the user's side as explicit conclusions."""
        stored = 0
        for turn in turns:
            for sentence in split_candidates(turn.user_text):
                result = await self._add(
                    sentence, source=turn.platform, reinforce=False, deliver=False
                )
                stored += result.stored
        await self._deliver_soon()
        return stored

    async def mirror(self, filename: str, text: str) -> None:
        """New lines of ``filename`` become conclusions; lines gone from it are superseded."""
        source = f"file:{filename}"
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        sentences = split_candidates("\n".join(lines))
        for sentence in sentences:
            await self._add(sentence, source=source, force=True, reinforce=False, deliver=False)
        await self._deliver_soon()
        kept = {_normalize(sentence) for sentence in sentences}
        query = "SELECT id, norm FROM items WHERE source = ? AND status = 'active'"
        async with self._conn().execute(query, (source,)) as cursor:
            stale = [str(row[0]) for row in await cursor.fetchall() if row[1] not in kept]
        for item_id in stale:
            await self._mark(item_id, "superseded", f"no longer in {filename}", status="superseded")

    async def forget(self, item_id: str) -> bool:
        """Mark forgotten in the ledger. Ids of Honcho's own conclusions (``honcho:<id>``) and
        of recalled messages (``message:<id>``) are entered into the ledger to be marked."""
        db = self._conn()
        async with db.execute("SELECT status FROM items WHERE id = ?", (item_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            kind, _, remote_id = item_id.partition(":")
            if kind not in ("honcho", "message") or not remote_id:
                return False
            text = ""
            if kind == "honcho":
                try:
                    remote = await self._remote_conclusion(remote_id)
                except MemoryStoreError as exc:  # trust the id: it came from a recall
                    text = f"(not fetched: {exc})"
                else:
                    if remote is None:
                        return False
                    text = remote.content
            stamp = _now()
            await db.execute(
                "INSERT INTO items (id, honcho_id, kind, text, norm, category, source,"
                " confidence, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 'fact', 'honcho', 0, 'active', ?, ?)",
                (item_id, remote_id, kind, text, _normalize(text), stamp, stamp),
            )
        elif row[0] == "forgotten":
            return True
        await self._mark(item_id, "forgotten", "", status="forgotten")
        log.info("memory.honcho.forget", item=item_id)
        return True

    async def _remote_conclusion(self, conclusion_id: str) -> Conclusion | None:
        """One conclusion by id, None when the server does not know it."""
        try:
            call = self._client.aio.conclusions.get(conclusion_id)
            return await self._remote("conclusion read", call)
        except MemoryStoreError as exc:
            if isinstance(exc.__cause__, NotFoundError):
                return None
            raise

    # -- recall ----------------------------------------------------------------------------

    async def _inactive(self, honcho_ids: Sequence[str]) -> set[str]:
        """Which of these Honcho ids the ledger marks forgotten or superseded."""
        if not honcho_ids:
            return set()
        marks = ",".join("?" * len(honcho_ids))
        query = f"SELECT honcho_id FROM items WHERE status != 'active' AND honcho_id IN ({marks})"
        async with self._conn().execute(query, tuple(honcho_ids)) as cursor:
            return {str(row[0]) for row in await cursor.fetchall()}

    async def _ledger_by_honcho(self, honcho_ids: Sequence[str]) -> dict[str, MemoryItem]:
        if not honcho_ids:
            return {}
        marks = ",".join("?" * len(honcho_ids))
        query = f"SELECT {_ITEM_COLUMNS}, honcho_id FROM items WHERE honcho_id IN ({marks})"
        async with self._conn().execute(query, tuple(honcho_ids)) as cursor:
            return {str(row[8]): _item(row) for row in await cursor.fetchall()}

    async def _recall(self, query: str, limit: int) -> list[MemoryHit]:
        """Conclusions about the user first (ranked by Honcho), then past messages of this
        persona's sessions; anything the ledger marks inactive is left out."""
        query = query.strip()
        if not query:
            return []
        user, persona = await self._peer_pair()
        view = persona.conclusions_of(user)
        top = min(100, 2 * limit)
        conclusions: list[Conclusion] = await self._remote(
            "conclusion query", view.aio.query(query, top_k=top)
        )
        messages: list[Message] = await self._remote(
            "message search", user.aio.search(query, filters=None, limit=top)
        )
        messages = [m for m in messages if m.session_id.startswith(f"{self.persona_peer}-")]
        ids = [c.id for c in conclusions] + [m.id for m in messages]
        hidden = await self._inactive(ids)
        ledger = await self._ledger_by_honcho(ids)
        hits: list[MemoryHit] = []
        for rank, conclusion in enumerate(c for c in conclusions if c.id not in hidden):
            item = ledger.get(conclusion.id) or MemoryItem(
                id=f"honcho:{conclusion.id}",
                text=conclusion.content,
                category="fact",
                source=f"honcho {conclusion.level}",
                confidence=LEVEL_CONFIDENCE.get(conclusion.level, 0.5),
                created_at=conclusion.created_at,
            )
            hits.append(MemoryHit(item, 1.0 / (1 + rank), {"conclusion_rank": rank + 1.0}))
        for rank, message in enumerate(m for m in messages if m.id not in hidden):
            item = MemoryItem(
                id=f"message:{message.id}",
                text=message.content,
                category="fact",
                source=f"said {message.created_at:%Y-%m-%d}",
                confidence=0.5,
                created_at=message.created_at,
            )
            hits.append(MemoryHit(item, 0.5 / (1 + rank), {"message_rank": rank + 1.0}))
        hits.sort(key=lambda hit: hit.score, reverse=True)
        return hits[:limit]

    async def prefetch(self, query: str, *, limit: int = 8) -> list[MemoryHit]:
        if self._is_down():
            return []
        try:
            return await self._recall(query, limit)
        except MemoryStoreError as exc:
            log.warning("memory.honcho.prefetch_failed", error=str(exc))
            return []

    async def search(self, query: str, *, limit: int = 10) -> list[MemoryHit]:
        return await self._recall(query, limit)

    async def inject(self) -> str:
        """The persona's representation of the user, minus what the ledger marks inactive;
        empty when there is none or the server cannot be reached."""
        if self._is_down():
            return ""
        try:
            user, persona = await self._peer_pair()
            call = persona.aio.representation(target=user, max_conclusions=25)
            representation: str = await self._remote("representation", call)
        except MemoryStoreError as exc:
            log.warning("memory.honcho.inject_failed", error=str(exc))
            return ""
        hidden = await self._hidden_norms()
        lines = [
            line
            for line in representation.splitlines()
            if _normalize(line.split("] ", 1)[-1]) not in hidden
        ]
        if not any(line.strip() and not line.startswith("#") for line in lines):
            return ""
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        return f"What Honcho has learned about {self.user}:\n{body}"

    async def _hidden_norms(self) -> set[str]:
        query = "SELECT norm, status FROM items"
        async with self._conn().execute(query) as cursor:
            rows = await cursor.fetchall()
        active = {str(norm) for norm, status in rows if status == "active"}
        return {str(norm) for norm, status in rows if status != "active"} - active - {""}

    # -- inspection ------------------------------------------------------------------------

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        where = "kind != 'message'" + ("" if include_inactive else " AND status = 'active'")
        query = f"SELECT {_ITEM_COLUMNS} FROM items WHERE {where} ORDER BY created_at DESC LIMIT ?"
        async with self._conn().execute(query, (limit,)) as cursor:
            return [_item(row) for row in await cursor.fetchall()]

    async def explain(self, item_id: str) -> dict[str, Any]:
        db = self._conn()
        query = f"SELECT {_ITEM_COLUMNS}, honcho_id, kind, updated_at FROM items WHERE id = ?"
        async with db.execute(query, (item_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            if not item_id.startswith("honcho:"):
                return {}
            remote = await self._remote_conclusion(item_id.partition(":")[2])
            if remote is None:
                return {}
            return {
                "id": item_id,
                "text": remote.content,
                "status": "active",
                "honcho": self._describe_remote(remote),
                "history": [],
            }
        item = _item(row)
        async with db.execute(
            "SELECT at, event, detail FROM events WHERE item_id = ? ORDER BY id", (item_id,)
        ) as cursor:
            history = [{"at": r[0], "event": r[1], "detail": r[2]} for r in await cursor.fetchall()]
        remote_state: Any = "queued: not yet sent"
        if row[8] and row[9] != "message":
            try:
                found = await self._remote_conclusion(str(row[8]))
                remote_state = self._describe_remote(found) if found else "missing on the server"
            except MemoryStoreError as exc:
                remote_state = f"unknown ({exc})"
        return {
            **_record(row),
            "citation": format_citation(item),
            "honcho": remote_state,
            "history": history,
        }

    @staticmethod
    def _describe_remote(conclusion: Conclusion) -> dict[str, Any]:
        return {
            "id": conclusion.id,
            "level": conclusion.level,
            "observer": conclusion.observer_id,
            "observed": conclusion.observed_id,
            "created_at": conclusion.created_at.isoformat(),
        }

    async def stats(self) -> dict[str, Any]:
        db = self._conn()
        async with db.execute("SELECT status, COUNT(*) FROM items GROUP BY status") as cursor:
            by_status = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        async with db.execute(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' AND kind = 'conclusion'"
            " GROUP BY category"
        ) as cursor:
            by_category = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        async with db.execute("SELECT kind, COUNT(*) FROM outbox GROUP BY kind") as cursor:
            queued = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        async with db.execute("SELECT honcho_ids FROM deliveries") as cursor:
            sent = sum(len(json.loads(r[0])) for r in await cursor.fetchall())
        return {
            "backend": self.name,
            "base_url": self.config.base_url,
            "workspace": self._workspace,
            "peers": {"user": self.user_peer, "persona": self.persona_peer},
            "reachable": not self._is_down(),
            "by_status": by_status,
            "by_category": by_category,
            "queued": queued,
            "messages_sent": sent,
            "ledger": str(self.path),
        }

    async def export(self) -> list[dict[str, Any]]:
        query = (
            f"SELECT {_ITEM_COLUMNS}, honcho_id, kind, updated_at FROM items ORDER BY created_at"
        )
        async with self._conn().execute(query) as cursor:
            rows = await cursor.fetchall()
        return [_record(row) for row in rows]

    # -- tools -----------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        return memory_tools(
            self,
            search_description=(
                "Search what Honcho has learned about the user and past conversations."
                " Results carry [category · source · confidence] and an id."
            ),
            source=lambda: "persona",
            search_lines=self._search_lines,
        )

    async def _search_lines(self, query: str, limit: int) -> list[str]:
        hits = await self._recall(query, limit)
        return [f"- {hit.item.text} {hit.citation} (id {hit.item.id})" for hit in hits]
