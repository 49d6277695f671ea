"""An episode's rows as recall and the store pass them: :class:`EpisodeRow` (read back),
:class:`Said` (to keep), :class:`Recorded` (what keeping it did), and episode ids (``e42``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any, NamedTuple

from bot.memory.base import MemoryItem

__all__ = [
    "COLUMNS",
    "EPISODE_PREFIX",
    "EpisodeRow",
    "Recorded",
    "Said",
    "episode_id",
    "episode_row",
    "iso_time",
    "parse_episode_id",
]

EPISODE_PREFIX = "e"
"""Episode ids read ``e42``, so they never collide with a fact's ``42``."""

COLUMNS = "e.id, e.at, e.speaker, e.audience, e.platform, e.text, e.reinforced, e.last_seen"
"""An episode's columns as :func:`episode_row` reads them (the episodes table as ``e``)."""


def iso_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def episode_id(rowid: int) -> str:
    return f"{EPISODE_PREFIX}{rowid}"


def parse_episode_id(text: str) -> int | None:
    """The rowid of an episode id (``e42``), or None when ``text`` is not one."""
    text = str(text).strip().lstrip("#")
    if not text.startswith(EPISODE_PREFIX):
        return None
    digits = text[len(EPISODE_PREFIX) :]
    return int(digits) if digits.isdigit() and len(digits) < 19 else None


@dataclass(slots=True)
class EpisodeRow:
    """A recalled episode and the numbers scoring needs."""

    rowid: int
    at: float
    speaker: str
    audience: str
    platform: str
    text: str
    reinforced: int
    last_seen: float
    bm25_raw: float = 0.0
    cosine: float = 0.0

    def item(self, zone: tzinfo = UTC) -> MemoryItem:
        """The episode as a memory item: its citation names its date (the day ``zone`` counts,
        the user's in recall) and where it was said."""
        return MemoryItem(
            id=episode_id(self.rowid),
            text=self.text,
            category="fact",
            source=f"{self.speaker} {self.platform}".strip(),
            confidence=1.0,
            created_at=datetime.fromtimestamp(self.at, zone),
            reinforced=self.reinforced,
            audience=self.audience,
            kind="episode",
        )


class Said(NamedTuple):
    """One message to keep as an episode, its fields in the order of ``episodes``' columns."""

    at: float
    speaker: str
    audience: str
    platform: str
    text: str
    norm: str
    terms: str
    #: of a person's message: the persona's question it answers, whose words ``terms`` holds
    answers: int | None = None


class Recorded(NamedTuple):
    """What became of one message :meth:`~bot.memory.episodes.store.EpisodeStore.record` kept."""

    rowid: int
    #: a new episode (else its twin was reinforced)
    created: bool


def episode_row(row: Sequence[Any], bm25_raw: float = 0.0) -> EpisodeRow:
    return EpisodeRow(
        int(row[0]),
        float(row[1]),
        str(row[2]),
        row[3],
        str(row[4]),
        str(row[5]),
        int(row[6]),
        float(row[7]),
        bm25_raw,
    )
