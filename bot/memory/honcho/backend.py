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

Layout: this module is the :class:`MemoryBackend` (lifecycle, delivery and the model's tools),
the class built from :mod:`bot.memory.honcho.backend_writes` (the write policy, a turn's
messages, a memory file's lines, forgetting and sharing) and
:mod:`bot.memory.honcho.backend_reads` (recall, the injected representation, list, explain,
stats, export). :mod:`bot.memory.honcho.client` wraps the SDK and translates its errors;
:mod:`bot.memory.honcho.ledger` is ``honcho.db``; :mod:`bot.memory.honcho.outbox` queues writes
there and delivers them; :mod:`bot.memory.honcho.recall` filters the server's answers through
the ledger.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import structlog

from bot.memory.base import MemoryBackend
from bot.memory.honcho.backend_reads import HonchoReads
from bot.memory.honcho.backend_writes import HonchoWrites
from bot.memory.honcho.client import RETRY_AFTER, HonchoClient, peer_id
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.honcho.outbox import Outbox
from bot.memory.memory_tools import memory_tools
from bot.setup.config import HonchoConfig
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["RETRY_AFTER", "HonchoMemory"]

log = structlog.get_logger(__name__)


class HonchoMemory(HonchoWrites, HonchoReads, MemoryBackend):
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
