"""How :class:`~bot.memory.honcho.backend.HonchoMemory` writes: a turn's two messages, a
conclusion the model or a person adds, those the write policy takes from a session's turns and
a memory file's lines; and how it forgets one or gives it another audience.

Every candidate passes the preamble and the write policy the holographic and Honcho stores
share (:mod:`bot.memory.judgement`). A sentence already active for its audience in the ledger
(the same normalised text) is never written twice: added again by the model or a person, it is
reinforced there. A write goes into the ledger first and :mod:`bot.memory.honcho.outbox`
delivers it, so a write made while the server is down is sent later. Nothing is deleted on the
server: forgetting, sharing and a line gone from its memory file change the ledger's status or
audience label, recorded in the item's history.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

import structlog

from bot.daemon.disk import run_on_text
from bot.daemon.errors import MemoryStoreError
from bot.memory.base import AddResult, Category, TurnRecord
from bot.memory.honcho.client import HonchoClient
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.honcho.outbox import Outbox
from bot.memory.judgement import judged, said_as_fact
from bot.memory.normal_form import normalise_text
from bot.memory.placeholders import clean_mirror_text
from bot.memory.policy import split_candidates
from bot.turn.audience import DIRECT_ROOM, Audience, describe, is_label, label_of_path

__all__ = ["HonchoWrites"]

log = structlog.get_logger(__name__)


class HonchoWrites:
    """The backend's writes, forgetting and sharing (a part of
    :class:`~bot.memory.honcho.backend.HonchoMemory`)."""

    # what it uses of the backend
    _client: HonchoClient
    _ledger: HonchoLedger
    _outbox: Outbox
    _lock: asyncio.Lock

    async def sync(self, turn: TurnRecord) -> None:
        """Queue the turn's two messages and try to deliver them; never raises for the
        server (the turn is kept in the outbox until Honcho is back)."""
        await self._outbox.queue_turn(turn)
        await self._outbox.deliver_soon()

    async def _add(
        self,
        text: str,
        *,
        source: str,
        audience: str,
        category: Category | None = None,
        force: bool = False,
        reinforce: bool = True,
        deliver: bool = True,
        confidence: float | None = None,
    ) -> AddResult:
        candidate = said_as_fact(text, category)
        if isinstance(candidate, AddResult):
            return candidate
        said, text = candidate
        async with self._lock:
            duplicate = await self._ledger.active_by_norm(normalise_text(text), audience)
            if duplicate is not None:
                if reinforce:
                    await self._ledger.mark(duplicate.id, "reinforced", source, reinforce=True)
                return AddResult(False, duplicate.category, "duplicate", duplicate_of=duplicate.id)
            verdict = judged(said, category, force=force, confidence=confidence)
            if isinstance(verdict, AddResult):
                return verdict
            chosen, reason, weight = verdict
            item_id = uuid.uuid4().hex[:12]
            await self._ledger.add_conclusion(
                item_id, text, chosen, source, weight, f"{source}: {reason}", audience
            )
        delivered = await self._outbox.deliver_soon() if deliver else False
        if not delivered:
            reason += "; queued until Honcho is reachable" if deliver else "; queued"
        log.info("memory.honcho.add", item=item_id, category=chosen, delivered=delivered)
        return AddResult(True, chosen, reason, item_id=item_id)

    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        """Honcho reasons over the synced messages itself; this adds what the write policy
        accepts from the user's side as explicit conclusions."""
        stored = 0
        for turn in turns:
            for sentence in await run_on_text(turn.user_text, split_candidates):
                result = await self._add(
                    sentence,
                    source=turn.platform,
                    audience=turn.audience,
                    reinforce=False,
                    deliver=False,
                )
                stored += result.stored
        await self._outbox.deliver_soon()
        return stored

    async def mirror(self, filename: str, text: str) -> None:
        """New lines of ``filename`` (a path in the persona's folder: ``USER.md``,
        ``shared/MEMORY.md``, ``rooms/<room>/MEMORY.md``) become conclusions with the audience
        of its folder (:func:`~bot.turn.audience.label_of_path`: that audience's prompt holds the
        file); lines gone from it are superseded."""
        source = f"file:{filename}"
        label = label_of_path(filename)
        text = clean_mirror_text(text)  # no template filler, no comment markers
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        sentences = split_candidates("\n".join(lines))
        for sentence in sentences:
            await self._add(
                sentence, source=source, audience=label, force=True, reinforce=False, deliver=False
            )
        await self._outbox.deliver_soon()
        kept = {normalise_text(sentence) for sentence in sentences}
        stale = [
            item_id for item_id, norm in await self._ledger.active_from(source) if norm not in kept
        ]
        for item_id in stale:
            detail = f"no longer in {filename}"
            await self._ledger.mark(item_id, "superseded", detail, status="superseded")

    async def forget(self, item_id: str, *, audience: Audience = DIRECT_ROOM) -> bool:
        """Mark forgotten in the ledger. Ids of Honcho's own conclusions (``honcho:<id>``) and
        of recalled messages (``message:<id>``) are entered into the ledger to be marked. From
        a shared room only the ledger's items it sees: the server cannot say cheaply where a
        message or its own conclusion came from."""
        known = await self._ledger.status(item_id)
        if not audience.private and (known is None or not audience.sees(known[1])):
            return False
        status = None if known is None else known[0]
        if status is None:
            kind, _, remote_id = item_id.partition(":")
            if kind not in ("honcho", "message") or not remote_id:
                return False
            text = ""
            if kind == "honcho":
                try:
                    remote = await self._client.conclusion(remote_id)
                except MemoryStoreError as exc:  # trust the id: it came from a recall
                    text = f"(not fetched: {exc})"
                else:
                    if remote is None:
                        return False
                    text = remote.content
            await self._ledger.add_reference(item_id, remote_id, kind, text)
        elif status == "forgotten":
            return True
        await self._ledger.mark(item_id, "forgotten", "", status="forgotten")
        log.info("memory.honcho.forget", item=item_id)
        return True

    async def share(self, item_id: str, label: str) -> bool:
        """Give a conclusion of the ledger the audience ``label``. A recalled message
        (``message:<id>``) or Honcho's own conclusion cannot be: False, as for an unknown id."""
        if not is_label(label):
            raise ValueError(f"{label!r} is not an audience label")
        known = await self._ledger.status(item_id)
        if known is None or item_id.partition(":")[0] in ("honcho", "message"):
            return False
        if known[1] != label:
            await self._ledger.set_audience(item_id, label, f"was {describe(known[1])}")
        return True
