"""The ``honcho`` backend: the Honcho service models the user, personad keeps a ledger.

Mapping onto Honcho (through the official ``honcho-ai`` SDK, its ``.aio`` async surface):

* workspace = ``memory.honcho.workspace``; two peers: the user (``<user>``) and the persona
  (``<persona>__<user>``, so two users' personas of one name stay apart);
* one session per persona, day and audience (``<persona peer>-YYYY-MM-DD`` for the direct
  conversations, ``<persona peer>-r<digest>-YYYY-MM-DD`` for each shared room), the user
  observed by Honcho and by the persona (``observe_me`` / ``observe_others``);
* ``sync`` adds the turn's two messages (secrets withheld), each with the turn's time; ``add``
  writes a conclusion of the persona about the user; ``prefetch`` asks Honcho's conclusion
  query and its message search of both peers, and the messages come back as episodes, cited
  with the day they were said (``[episode · 2026-05-09 · dm]``); ``inject`` is the persona's
  representation of the user.

Honcho cannot mark a conclusion forgotten, so ``honcho.db`` (SQLite) is a ledger of what was
written: every item with its Honcho id, category, source, confidence, status and history.
Forgotten or superseded ids are filtered out of every recall and out of the representation;
nothing is deleted on the server. The ledger is also an outbox: writes are queued there first
and delivered in order, so a turn made while the server is down is sent on a later call.

Scoping by audience (:mod:`bot.turn.audience`): the ledger records each conclusion's label and the
label of each day session. A turn in a shared room recalls only the conclusions whose label it
sees and the messages of its own room's sessions (the message search is held to them on the
server), and gets no injected representation (Honcho builds it from every conversation, direct
ones included). A message (``message:<id>``) cannot be shared: its session decides who hears
it; a conclusion can.

An unreachable server never breaks a turn: ``inject`` and ``prefetch`` answer empty, ``sync``
queues, and after a connection failure the turn hooks skip the server for ``RETRY_AFTER``
seconds. Calls a person makes (``search``, the tools) raise :class:`MemoryStoreError` with a
sentence saying what failed.

Layout: this module is the :class:`MemoryBackend` (write policy, lifecycle, inspection, tools).
:mod:`bot.memory.honcho.client` wraps the SDK and translates its errors;
:mod:`bot.memory.honcho.ledger` is ``honcho.db``; :mod:`bot.memory.honcho.outbox` queues writes
there and delivers them; :mod:`bot.memory.honcho.recall` filters the server's answers through
the ledger.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

# The SDK is imported here, not only by the helper modules: importing the backend must fail
# when ``honcho-ai`` is missing even if those helpers were loaded before (the factory turns the
# ImportError into a sentence naming the extra to install).
from honcho import Conclusion

from bot.daemon.disk import run_on_text
from bot.daemon.errors import MemoryStoreError
from bot.memory.base import (
    AddResult,
    Category,
    MemoryBackend,
    MemoryHit,
    MemoryItem,
    TurnRecord,
    format_citation,
)
from bot.memory.honcho.client import RETRY_AFTER, HonchoClient, conclusion_summary, peer_id
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.honcho.outbox import Outbox
from bot.memory.honcho.recall import recall, visible_representation
from bot.memory.judgement import judged, said_as_fact
from bot.memory.memory_tools import memory_tools
from bot.memory.normal_form import normalise_text
from bot.memory.placeholders import clean_mirror_text
from bot.memory.policy import split_candidates
from bot.setup.config import HonchoConfig
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience, describe, is_label, label_of_path

__all__ = ["RETRY_AFTER", "HonchoMemory"]

log = structlog.get_logger(__name__)


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
        now: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(persona_dir)
        self.config = config
        self._now = now or (lambda: datetime.now(UTC))
        self.path = persona_dir / "honcho.db"
        self.user = user
        self.user_peer = peer_id(user)
        self.persona_peer = peer_id(f"{persona}__{user}")
        environment = os.environ if env is None else env
        self._client = HonchoClient(
            config,
            user_peer=self.user_peer,
            persona_peer=self.persona_peer,
            api_key=environment.get(config.api_key_env) or None,
            timeout=timeout,
            max_retries=max_retries,
        )
        self._ledger = HonchoLedger(self.path)
        self._outbox = Outbox(self._ledger, self._client)
        self._lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the ledger; the server is contacted on first use, so start never waits."""
        if self._ledger.is_open:
            return
        await self._ledger.open()
        log.info("memory.honcho.open", base_url=self.config.base_url, workspace=self._workspace)

    async def close(self) -> None:
        if not self._ledger.is_open:
            return
        if not self._client.is_down():
            await self.flush()
        await self._client.close()
        await self._ledger.close()

    @property
    def _workspace(self) -> str:
        return self.config.workspace

    async def flush(self) -> bool:
        """Deliver the outbox in order; True when it is empty afterwards. Consecutive
        conclusions go in one request (the API takes up to 100)."""
        return await self._outbox.flush()

    # -- writes ----------------------------------------------------------------------------

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

    # -- tools -----------------------------------------------------------------------------

    def tools(self, *, audience: Audience = DIRECT_ROOM) -> list[Tool]:
        return memory_tools(
            self,
            search_description=(
                "Search what Honcho has learned about the user and past conversations."
                " Conclusions carry [category · source · confidence], past messages"
                " [episode · date · dm|group], each with an id."
            ),
            source=lambda: "persona",
            search_lines=self._search_lines,
            audience=audience,
        )

    async def _search_lines(self, query: str, limit: int, audience: Audience) -> list[str]:
        hits = await self._recall(query, limit, audience)
        return [f"- {hit.item.text} {hit.citation} (id {hit.item.id})" for hit in hits]
