"""The ``holographic`` backend: facts as role/filler traces, recalled by structure.

Every stored sentence is parsed (:func:`parse`, a small rule-based English and Portuguese
parser) into roles: subject, relation, object, topic, plus the item's category and its content
words. The roles become one holographic trace (:mod:`bot.memory.hrr`), kept in SQLite with the
item. A question is parsed the same way into a *partial* structure ("what does Scott prefer for
breakfast" → subject=scott, relation=prefer, topic=breakfast, object asked); recall probes every
trace with the known roles in one matrix product and unbinds the asked role to read the answer
back through the clean-up memory. So "Scott likes Holly" and "Holly likes Scott", which have the
same words, answer "who does Scott like" differently.

A query the parser cannot structure is answered through the ``keywords`` role, which holds the
item's content words: that is word overlap, and its hits say so with a ``lexical`` score part
(structural hits carry ``hrr``). Lexical hits always rank below structural ones.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import numpy as np
import numpy.typing as npt
import structlog

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
from bot.memory.hrr import DIM, FUNCTIONAL, Parsed, TraceIndex, Vector, normalize, parse
from bot.memory.memory_tools import memory_tools
from bot.memory.policy import classify, looks_secret, split_candidates
from bot.migrations import Migration, apply_migrations
from bot.tools import Tool

__all__ = ["HolographicMemory", "Recalled"]

log = structlog.get_logger(__name__)

MIGRATIONS: list[Migration] = [
    (
        1,
        """
        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            category TEXT NOT NULL,
            source TEXT NOT NULL,
            confidence REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            reinforced INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            structure TEXT NOT NULL,
            trace BLOB NOT NULL
        );
        CREATE INDEX items_norm ON items (norm, status);
        CREATE INDEX items_status ON items (status, created_at);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            item_id TEXT NOT NULL,
            at TEXT NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX events_item ON events (item_id, id);
        """,
    )
]

#: how much each probed role weighs in the structural score
WEIGHTS = {"subject": 1.5, "object": 1.5, "relation": 1.0, "topic": 0.75, "category": 0.5}
#: subject, relation and object, when the query names them, must each be recognisably in the
#: trace (not just outvoted by the others); topic and category only weigh in the score
REQUIRED_MIN = 0.35
_REQUIRED = ("subject", "relation", "object")
#: the weighted mean similarity a trace needs to count as a structural match
STRUCTURE_MIN = 0.55
#: keyword-role cosine a lexical hit needs; lexical scores are halved so they rank last
LEXICAL_MIN = 0.25
LEXICAL_SCALE = 0.5
#: a cleaned-up word is part of the answer if it is this close to the best one
ANSWER_MIN = 0.12

_ITEM_COLUMNS = "id, text, category, source, confidence, status, reinforced, created_at"


@dataclass(slots=True)
class Recalled:
    """One recall result: the hit, and the words the asked role unbound to (if any)."""

    hit: MemoryHit
    answer: list[str] = field(default_factory=list)


def _now() -> str:
    return datetime.now(UTC).isoformat()


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


def _structure(parsed: Parsed, category: Category) -> dict[str, list[str]]:
    roles = {role: list(words) for role, words in parsed.roles.items() if words}
    roles["category"] = [f"category:{category}"]
    roles["keywords"] = list(parsed.keywords)
    return roles


def _best(scores: Vector, keep: npt.NDArray[np.bool_], limit: int) -> list[int]:
    """Positions of the ``limit`` highest ``scores`` among those kept, best first."""
    candidates = np.flatnonzero(keep)
    if candidates.size > limit:
        candidates = candidates[np.argpartition(-scores[candidates], limit - 1)[:limit]]
    return [int(i) for i in candidates[np.argsort(-scores[candidates], kind="stable")]]


def _key(structure: dict[str, list[str]]) -> tuple[tuple[str, ...], ...]:
    """What a functional fact is about: one value per subject, relation and topic."""
    return tuple(tuple(structure.get(role, ())) for role in ("subject", "relation", "topic"))


class HolographicMemory(MemoryBackend):
    """Holographic reduced representations over SQLite; no server, no embedder."""

    name = "holographic"

    def __init__(self, persona_dir: Path, *, dim: int = DIM) -> None:
        super().__init__(persona_dir)
        self.path = persona_dir / "holographic.db"
        self.dim = dim
        self._db: aiosqlite.Connection | None = None
        self._index = TraceIndex(dim)
        self._active: dict[str, MemoryItem] = {}
        self._structures: dict[str, dict[str, list[str]]] = {}
        self._by_norm: dict[str, str] = {}
        self._by_key: dict[tuple[tuple[str, ...], ...], set[str]] = {}
        self._lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        if self._db is not None:
            return
        try:
            self.persona_dir.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(self.path)
        except (OSError, aiosqlite.Error) as exc:
            raise MemoryStoreError(f"cannot open {self.path}: {exc}") from exc
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await apply_migrations(db, MIGRATIONS)
            await self._load(db)
        except (aiosqlite.Error, ValueError) as exc:
            await db.close()
            raise MemoryStoreError(f"cannot read {self.path}: {exc}") from exc
        self._db = db
        log.info("memory.holographic.open", items=len(self._active), symbols=self.symbols)

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def _load(self, db: aiosqlite.Connection) -> None:
        traces: list[tuple[str, Vector]] = []
        query = f"SELECT {_ITEM_COLUMNS}, structure, trace FROM items WHERE status = 'active'"
        async with db.execute(query) as cursor:
            async for row in cursor:
                item = _item(row)
                structure: dict[str, list[str]] = json.loads(row[8])
                vector = np.frombuffer(row[9], dtype="<f4").astype(np.float64)
                if vector.shape[0] != self.dim:  # stored at another dimension: re-encode
                    vector = self._index.encode(structure)
                self._index.learn(structure)
                self._remember(item, structure)
                traces.append((item.id, vector))
        self._index.extend(traces)

    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise MemoryStoreError("holographic memory is not open")
        return self._db

    @property
    def symbols(self) -> int:
        return len(self._index.cleanup)

    # -- writes ----------------------------------------------------------------------------

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
    ) -> AddResult:
        text = " ".join(text.split())
        if not text:
            return AddResult(False, None, "rejected: empty")
        if looks_secret(text):  # even a forced write never stores a credential
            return AddResult(False, None, "rejected: secret (never stored)")
        if category is not None and category not in CATEGORIES:
            return AddResult(False, None, f"rejected: unknown category {category!r}")
        async with self._lock:
            duplicate = self._active.get(self._by_norm.get(normalize(text), ""))
            if duplicate is not None:  # said again: the policy already let it in once
                return await self._reinforce(duplicate, source, reinforce)
            verdict = classify(text)
            if not verdict.accepted and not force:
                return AddResult(False, None, verdict.reason)
            chosen: Category = category or verdict.category or "fact"
            reason = verdict.reason if verdict.accepted else f"forced ({verdict.reason})"
            confidence = 1.0 if force else verdict.confidence
            return await self._store(text, source, chosen, confidence, reason)

    async def _reinforce(self, item: MemoryItem, source: str, reinforce: bool) -> AddResult:
        if reinforce:
            item.reinforced += 1
            await self._write(
                "UPDATE items SET reinforced = reinforced + 1, updated_at = ? WHERE id = ?",
                (_now(), item.id),
                (item.id, "reinforced", source),
            )
        return AddResult(False, item.category, "duplicate", duplicate_of=item.id)

    async def _store(
        self,
        text: str,
        source: str,
        category: Category,
        confidence: float,
        reason: str,
    ) -> AddResult:
        db = self._conn()
        norm = normalize(text)
        parsed = parse(text)
        structure = _structure(parsed, category)
        trace = self._index.encode(structure)
        item = MemoryItem(
            id=uuid.uuid4().hex[:12],
            text=text,
            category=category,
            source=source,
            confidence=confidence,
            created_at=datetime.now(UTC),
        )
        replaced = self._conflicts(structure)
        stamp = item.created_at.isoformat()
        try:
            await db.execute(
                "INSERT INTO items (id, text, norm, category, source, confidence, status,"
                " reinforced, created_at, updated_at, structure, trace)"
                " VALUES (?, ?, ?, ?, ?, ?, 'active', 0, ?, ?, ?, ?)",
                (
                    item.id,
                    text,
                    norm,
                    category,
                    source,
                    confidence,
                    stamp,
                    stamp,
                    json.dumps(structure, ensure_ascii=False),
                    trace.astype("<f4").tobytes(),
                ),
            )
            await self._event(item.id, "created", f"{source}: {reason}")
            for old in replaced:
                await db.execute(
                    "UPDATE items SET status = 'superseded', updated_at = ? WHERE id = ?",
                    (stamp, old),
                )
                await self._event(old, "superseded", f"by {item.id}")
                await self._event(item.id, "supersedes", old)
            await db.commit()
        except aiosqlite.Error as exc:
            await db.rollback()
            raise MemoryStoreError(f"cannot write {self.path}: {exc}") from exc
        for old in replaced:
            self._deactivate(old)
        self._remember(item, structure)
        self._index.add(item.id, trace)
        log.info("memory.holographic.add", item=item.id, category=category, replaced=len(replaced))
        return AddResult(True, category, reason, item_id=item.id)

    def _conflicts(self, structure: dict[str, list[str]]) -> list[str]:
        """Active items that say the same functional thing with another object: "Scott prefers
        tea for breakfast" replaces "Scott prefers coffee for breakfast"."""
        relation = structure.get("relation", [])
        if not relation or relation[-1] not in FUNCTIONAL or not structure.get("object"):
            return []
        return [
            item_id
            for item_id in self._by_key.get(_key(structure), ())
            if self._structures[item_id].get("object") not in (None, structure["object"])
        ]

    def _remember(self, item: MemoryItem, structure: dict[str, list[str]]) -> None:
        self._active[item.id] = item
        self._structures[item.id] = structure
        self._by_norm[normalize(item.text)] = item.id
        self._by_key.setdefault(_key(structure), set()).add(item.id)

    def _deactivate(self, item_id: str) -> None:
        item = self._active.pop(item_id, None)
        if item is not None:
            self._by_norm.pop(normalize(item.text), None)
        structure = self._structures.pop(item_id, None)
        if structure is not None:
            self._by_key.get(_key(structure), set()).discard(item_id)
        self._index.remove(item_id)

    async def _event(self, item_id: str, event: str, detail: str) -> None:
        await self._conn().execute(
            "INSERT INTO events (item_id, at, event, detail) VALUES (?, ?, ?, ?)",
            (item_id, _now(), event, detail),
        )

    async def _write(
        self, statement: str, params: Sequence[Any], event: tuple[str, str, str]
    ) -> None:
        db = self._conn()
        try:
            await db.execute(statement, params)
            await self._event(*event)
            await db.commit()
        except aiosqlite.Error as exc:
            await db.rollback()
            raise MemoryStoreError(f"cannot write {self.path}: {exc}") from exc

    async def sync(self, turn: TurnRecord) -> None:
        for sentence in split_candidates(turn.user_text):
            await self._add(sentence, source=turn.platform)

    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        stored = 0
        for turn in turns:
            for sentence in split_candidates(turn.user_text):
                result = await self._add(sentence, source=turn.platform, reinforce=False)
                stored += result.stored
        return stored

    async def mirror(self, filename: str, text: str) -> None:
        """Keep ``file:<filename>`` items equal to the file's lines: new lines are added
        (forced: the file layer wrote them on purpose), vanished ones are superseded."""
        source = f"file:{filename}"
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        sentences = split_candidates("\n".join(lines))
        kept = {normalize(sentence) for sentence in sentences}
        for sentence in sentences:
            await self._add(sentence, source=source, force=True, reinforce=False)
        async with self._lock:
            stale = [
                item.id
                for item in self._active.values()
                if item.source == source and normalize(item.text) not in kept
            ]
            for item_id in stale:
                await self._write(
                    "UPDATE items SET status = 'superseded', updated_at = ? WHERE id = ?",
                    (_now(), item_id),
                    (item_id, "superseded", f"no longer in {filename}"),
                )
                self._deactivate(item_id)

    async def forget(self, item_id: str) -> bool:
        async with self._lock:
            async with self._conn().execute(
                "SELECT status FROM items WHERE id = ?", (item_id,)
            ) as cursor:
                row = await cursor.fetchone()
            if row is None:
                return False
            if row[0] != "forgotten":
                await self._write(
                    "UPDATE items SET status = 'forgotten', updated_at = ? WHERE id = ?",
                    (_now(), item_id),
                    (item_id, "forgotten", ""),
                )
            self._deactivate(item_id)
            log.info("memory.holographic.forget", item=item_id)
            return True

    # -- recall ----------------------------------------------------------------------------

    def recall(
        self, query: str, *, limit: int = 8, category: Category | None = None
    ) -> list[Recalled]:
        """Structural matches first (``hrr``), then explicitly lexical ones (``lexical``)."""
        parsed = parse(query)
        found = self._structural(parsed, category, limit) if parsed.structured else []
        if len(found) < limit:
            taken = {recalled.hit.item.id for recalled in found}
            found += self._lexical(parsed, category, limit - len(found), taken)
        return found

    def _allowed(self, ids: list[str], category: Category | None) -> npt.NDArray[np.bool_]:
        if category is None:
            return np.ones(len(ids), dtype=bool)
        return np.array([self._active[item_id].category == category for item_id in ids])

    def _structural(self, parsed: Parsed, category: Category | None, limit: int) -> list[Recalled]:
        query = {role: list(words) for role, words in parsed.roles.items() if words}
        if category is not None:
            query["category"] = [f"category:{category}"]
        ids, roles, sims = self._index.probe(query)
        if not ids or not roles:
            return []
        weights = np.array([WEIGHTS[role] for role in roles])
        scores = sims @ weights / weights.sum()
        required = [j for j, role in enumerate(roles) if role in _REQUIRED]
        keep = (scores >= STRUCTURE_MIN) & self._allowed(ids, category)
        if required:
            keep &= np.all(sims[:, required] >= REQUIRED_MIN, axis=1)
        found = []
        for position in _best(scores, keep, limit):
            item = self._active[ids[position]]
            parts = {"hrr": float(scores[position])}
            parts.update({f"hrr_{role}": float(sims[position, j]) for j, role in enumerate(roles)})
            answer = self._answer(item.id, parsed.asked)
            if answer:
                parts["answer"] = answer[0][1]
            hit = MemoryHit(item, float(scores[position]), parts)
            found.append(Recalled(hit, [word for word, _ in answer]))
        return found

    def _answer(self, item_id: str, asked: str | None) -> list[tuple[str, float]]:
        if asked is None or not self._structures[item_id].get(asked):
            return []
        decoded = [(w, s) for w, s in self._index.decode(item_id, asked, k=4) if s >= ANSWER_MIN]
        if not decoded:
            return []
        best = decoded[0][1]
        return [(word, sim) for word, sim in decoded if sim >= best * 0.6]

    def _lexical(
        self, parsed: Parsed, category: Category | None, limit: int, taken: set[str]
    ) -> list[Recalled]:
        if not parsed.keywords or limit <= 0:
            return []
        ids, _, sims = self._index.probe({"keywords": list(parsed.keywords)})
        if not ids:
            return []
        cosines = sims[:, 0]
        keep = (cosines >= LEXICAL_MIN) & self._allowed(ids, category)
        keep &= np.array([item_id not in taken for item_id in ids])
        found = []
        for position in _best(cosines, keep, limit):
            cosine = float(cosines[position])
            item = self._active[ids[position]]
            found.append(Recalled(MemoryHit(item, cosine * LEXICAL_SCALE, {"lexical": cosine})))
        return found

    async def prefetch(self, query: str, *, limit: int = 8) -> list[MemoryHit]:
        return [recalled.hit for recalled in self.recall(query, limit=limit)]

    async def search(self, query: str, *, limit: int = 10) -> list[MemoryHit]:
        return [recalled.hit for recalled in self.recall(query, limit=limit)]

    async def inject(self) -> str:
        """The facts that keep coming back (reinforced at least once), with citations."""
        frequent = sorted(
            (item for item in self._active.values() if item.reinforced > 0),
            key=lambda item: (item.reinforced, item.confidence, item.created_at),
            reverse=True,
        )[:6]
        if not frequent:
            return ""
        lines = [f"- {item.text} {format_citation(item)}" for item in frequent]
        return "Things you have been told more than once:\n" + "\n".join(lines)

    # -- inspection ------------------------------------------------------------------------

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        where = "" if include_inactive else "WHERE status = 'active'"
        query = f"SELECT {_ITEM_COLUMNS} FROM items {where} ORDER BY created_at DESC LIMIT ?"
        async with self._conn().execute(query, (limit,)) as cursor:
            return [_item(row) async for row in cursor]

    async def explain(self, item_id: str) -> dict[str, Any]:
        db = self._conn()
        query = f"SELECT {_ITEM_COLUMNS}, structure, updated_at FROM items WHERE id = ?"
        async with db.execute(query, (item_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return {}
        item = _item(row)
        structure = json.loads(row[8])
        async with db.execute(
            "SELECT at, event, detail FROM events WHERE item_id = ? ORDER BY id", (item_id,)
        ) as cursor:
            history = [{"at": r[0], "event": r[1], "detail": r[2]} async for r in cursor]
        decoded = {
            role: [word for word, _ in self._answer(item_id, role)]
            for role in structure
            if role != "keywords" and item_id in self._index
        }
        return {
            "id": item.id,
            "text": item.text,
            "category": item.category,
            "source": item.source,
            "confidence": item.confidence,
            "status": item.status,
            "reinforced": item.reinforced,
            "created_at": item.created_at.isoformat(),
            "updated_at": row[9],
            "citation": format_citation(item),
            "structure": structure,
            "decoded": decoded,
            "history": history,
        }

    async def stats(self) -> dict[str, Any]:
        db = self._conn()
        async with db.execute("SELECT status, COUNT(*) FROM items GROUP BY status") as cursor:
            by_status = {str(r[0]): int(r[1]) async for r in cursor}
        async with db.execute(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' GROUP BY category"
        ) as cursor:
            by_category = {str(r[0]): int(r[1]) async for r in cursor}
        structured = sum(1 for s in self._structures.values() if s.get("relation"))
        return {
            "backend": self.name,
            "path": str(self.path),
            "dimension": self.dim,
            "symbols": self.symbols,
            "traces": len(self._index),
            "structured": structured,
            "by_status": by_status,
            "by_category": by_category,
        }

    async def export(self) -> list[dict[str, Any]]:
        query = f"SELECT {_ITEM_COLUMNS}, structure, updated_at FROM items ORDER BY created_at"
        async with self._conn().execute(query) as cursor:
            rows = [row async for row in cursor]
        exported = []
        for row in rows:
            item = _item(row)
            exported.append(
                {
                    "id": item.id,
                    "text": item.text,
                    "category": item.category,
                    "source": item.source,
                    "confidence": item.confidence,
                    "status": item.status,
                    "reinforced": item.reinforced,
                    "created_at": item.created_at.isoformat(),
                    "updated_at": row[9],
                    "structure": json.loads(row[8]),
                }
            )
        return exported

    # -- tools -----------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        return memory_tools(
            self,
            search_description=(
                'Recall stored facts. Ask a question about a person or thing ("what does '
                'Scott prefer for breakfast", "when is Holly\'s birthday"); answers come '
                "with [category · source · confidence] and an id."
            ),
            source=lambda: "persona",
            search_lines=self._search_lines,
        )

    async def _search_lines(self, query: str, limit: int) -> list[str]:
        lines = []
        for recalled in self.recall(query, limit=limit):
            item = recalled.hit.item
            how = "structure" if "hrr" in recalled.hit.parts else "word overlap"
            answer = f" answer: {' '.join(recalled.answer)};" if recalled.answer else ""
            lines.append(f"- {item.text} {format_citation(item)} ({how};{answer} id {item.id})")
        return lines
