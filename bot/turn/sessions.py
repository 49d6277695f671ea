"""The live sessions, one per (user, persona), created on first use and ended when idle."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import structlog

from bot.memory.base import MemoryBackend
from bot.turn.session import Session
from bot.turn.session_types import SessionDeps

__all__ = ["MemoryOpener", "SessionManager"]

log = structlog.get_logger(__name__)

MemoryOpener = Callable[[Path], Awaitable[MemoryBackend | None]]


class SessionManager:
    def __init__(self, deps: SessionDeps, open_memory: MemoryOpener | None = None) -> None:
        self.deps = deps
        self._open_memory = open_memory
        self._sessions: dict[tuple[str, str], Session] = {}
        self._creating: dict[tuple[str, str], asyncio.Lock] = {}

    async def get(self, user: str, persona: str) -> Session:
        """The session of ``user`` with ``persona``, created and restored on first use.

        Raises PersonaError when the persona does not exist.
        """
        key = (user, persona)
        session = self._sessions.get(key)
        if session is not None:
            return session
        lock = self._creating.setdefault(key, asyncio.Lock())
        async with lock:
            session = self._sessions.get(key)
            if session is not None:
                return session
            directory = self.deps.store.require(user, persona)
            memory = await self._memory_for(directory)
            session = Session(user=user, persona=persona, deps=self.deps, memory=memory)
            await session.load()
            self._sessions[key] = session
            return session

    async def _memory_for(self, directory: Path) -> MemoryBackend | None:
        if self._open_memory is None:
            return None
        try:
            return await self._open_memory(directory)
        except Exception as exc:
            log.error("memory.open_failed", persona_dir=str(directory), error=str(exc))
            return None

    def all(self) -> list[Session]:
        return list(self._sessions.values())

    def of_user(self, user: str) -> list[Session]:
        """The live sessions of ``user``, one per persona they talked to."""
        return [session for (owner, _), session in self._sessions.items() if owner == user]

    async def end_idle(self, idle_seconds: float) -> int:
        """End (extract memories of) sessions idle longer than ``idle_seconds``."""
        ended = 0
        now = time.monotonic()
        for session in self.all():
            idle = now - session.last_active >= idle_seconds
            if not idle or not session.pending_extract or session.lock.locked():
                continue
            async with session.lock:
                await session.end("idle")
                ended += 1
        return ended

    async def close(self) -> None:
        """Shutdown: end every session, then close the memory stores."""
        for session in self.all():
            async with session.lock:
                await session.end("shutdown")
                if session.memory is not None:
                    try:
                        await session.memory.close()
                    except Exception as exc:
                        log.error("memory.close_failed", error=str(exc))
        self._sessions.clear()
