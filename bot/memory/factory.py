"""Open the memory backend the configuration names, for one persona folder.

``memory.backend`` picks the class; each is imported only when chosen, so an optional package
that is not installed costs nothing until it is asked for, and then gives one sentence naming
the extra to install. The embedding model (``memory.embeddings``: ``auto``, ``e5``,
``minilm``) is loaded once per process and shared by every persona.

Every backend reads the time from :func:`user_clock`: the user's own zone
(``users.<name>.timezone``, the user being the folder ``<data>/<user>/persona/<name>`` sits in),
so "yesterday" in a question and the date an episode is cited with are the user's days, not
UTC's. Stored times are epoch seconds or UTC text, the same whatever the zone.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from bot.daemon.errors import ConfigError
from bot.memory.base import MemoryBackend
from bot.setup.config import Config

if TYPE_CHECKING:
    from bot.memory.embedding.models import Embedder

__all__ = ["BACKENDS", "open_memory", "shared_embedder", "user_clock"]

log = structlog.get_logger(__name__)

#: backend name -> the extra that installs its optional packages ("" when none is needed)
BACKENDS: dict[str, str] = {"sqlite-fts5": "embeddings", "holographic": "", "honcho": "honcho"}

_embedder_lock = threading.Lock()
_embedders: dict[str, Embedder | None] = {}


def shared_embedder(which: str = "auto") -> Embedder | None:
    """The process-wide embedder ``which`` names (``auto``, ``e5``, ``minilm``), loaded on
    first use; None when it is not installed."""
    with _embedder_lock:
        if which not in _embedders:
            from bot.memory.embedding.models import load_embedder

            embedder = _embedders[which] = load_embedder(which)
            if embedder is None and which != "auto":
                log.warning("memory.embedder_missing", asked=which)
            log.info(
                "memory.embedder",
                asked=which,
                model=getattr(embedder, "name", None),
                available=embedder is not None,
            )
        return _embedders[which]


def _missing(backend: str, exc: ImportError) -> ConfigError:
    """An ImportError while building ``backend``, as a sentence naming what to install."""
    module = exc.name or ""
    if module.startswith("bot."):
        return ConfigError(
            f"memory.backend: {backend!r} is not available in this installation ({exc})"
        )
    extra = BACKENDS.get(backend) or "all"
    return ConfigError(
        f"memory.backend: {backend!r} needs the Python package {module or 'it imports'!r};"
        f" install it with: pip install 'personad[{extra}]'"
    )


def user_clock(config: Config, user: str) -> Callable[[], datetime]:
    """The current time in ``user``'s zone; UTC for a user the config does not name (the CLI
    on a folder of its own). The zone is looked up at each call, so a reload that changes it
    is followed by the memory already open."""

    def now() -> datetime:
        settings = config.users.get(user)
        return datetime.now(settings.zone if settings is not None else UTC)

    return now


def _build(config: Config, persona_dir: Path, embedder: Embedder | None) -> MemoryBackend:
    backend = config.memory.backend
    user = persona_dir.parent.parent.name
    now = user_clock(config, user)
    if backend == "sqlite-fts5":
        from bot.memory.sqlite.backend import SqliteFtsMemory

        return SqliteFtsMemory(persona_dir, embedder=embedder, now=now)
    if backend == "holographic":
        from bot.memory.holographic.backend import HolographicMemory

        return HolographicMemory(persona_dir, now=now)
    if backend == "honcho":
        from bot.memory.honcho.backend import HonchoMemory

        honcho: MemoryBackend = HonchoMemory(
            persona_dir,
            config=config.memory.honcho,
            user=user,
            persona=persona_dir.name,
            timeout=config.memory.honcho.timeout,
            max_retries=config.memory.honcho.max_retries,
            now=now,
        )
        return honcho
    known = ", ".join(sorted(BACKENDS))
    raise ConfigError(f"memory.backend: unknown backend {backend!r} (known: {known})")


async def open_memory(config: Config, persona_dir: Path) -> MemoryBackend:
    """Build the configured backend for ``persona_dir`` and open it.

    Raises ConfigError when the backend is unknown or its optional package is missing, and
    whatever the backend's ``open`` raises (MemoryStoreError) when its store cannot be read.
    """
    embedder = None
    if config.memory.backend == "sqlite-fts5" and config.memory.embeddings != "off":
        embedder = await asyncio.to_thread(shared_embedder, config.memory.embeddings)
    try:
        memory = _build(config, persona_dir, embedder)
    except ImportError as exc:
        raise _missing(config.memory.backend, exc) from exc
    await memory.open()
    log.info("memory.opened", backend=memory.name, persona=persona_dir.name)
    return memory
