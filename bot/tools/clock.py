"""The clock the tools and the minute jobs read, injectable so tests control time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "utc_now"]

#: returns the current time, time-zone aware
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)
