"""Per-user admission: a bounded queue and a rate limit, as one step of the router.

Every configured user has

- a **queue bound**: at most ``daemon.user_queue`` of their messages waiting for or being
  answered at once (a turn of one session runs after the previous one, so the rest wait);
- a **rate limit**: a token bucket holding ``daemon.user_burst`` messages, refilled at
  ``daemon.user_rate_per_minute``. The bucket is read at the moment the platform delivered
  the message (:attr:`~adapters.base.Incoming.received_at`), not when the router reaches it,
  so messages an adapter held back to keep a room's order are judged by when they were sent.

A message over either limit is not answered and never reaches the model. The first one of
a limited period gets one polite reply saying when to expect answers again; the rest of that
minute's refusals are silent, so a flood is not answered by a flood. Commands (``/otr``,
``/new`` ...) are counted in a bucket of their own and not queued: a user slowed down for
sending too many messages can still go Off The Record or start over. Users never share a
limit. The console is the operator's own terminal (``personad chat < script`` feeds lines as
fast as they are answered) and is not limited.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import structlog

from adapters.base import Incoming
from bot.commands.table import parse_command
from bot.setup.config import DaemonConfig

__all__ = ["NOTICE_PERIOD", "Admission", "Verdict"]

log = structlog.get_logger(__name__)

#: seconds between two notices to one user; the rate is counted per minute too
NOTICE_PERIOD = 60.0

_TOO_FAST = "You're sending messages faster than I can answer; I'll pick up again {when}."


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a message goes on; if not, the one notice to send (None: stay silent)."""

    admitted: bool
    notice: str | None = None


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float

    def take(self, now: float, per_second: float, burst: int) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there will be."""
        # a clock that went back refills nothing and is not waited for
        self.tokens = min(float(burst), self.tokens + max(0.0, now - self.at) * per_second)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / per_second


@dataclass(slots=True)
class _User:
    messages: _Bucket
    commands: _Bucket
    pending: int = 0
    noticed_at: float | None = None


class Admission:
    """The admission step; ``limits`` returns the current settings (they follow ``/reload``)."""

    def __init__(self, limits: Callable[[], DaemonConfig]) -> None:
        self._limits = limits
        self._users: dict[str, _User] = {}

    def pending(self, user: str) -> int:
        """How many of ``user``'s messages are waiting or being answered."""
        state = self._users.get(user)
        return state.pending if state else 0

    def _user(self, user: str, now: float) -> _User:
        state = self._users.get(user)
        if state is None:
            burst = float(self._limits().user_burst)
            state = _User(_Bucket(burst, now), _Bucket(burst, now))
            self._users[user] = state
        return state

    def _refuse(self, state: _User, now: float, reason: str, wait: float | None) -> Verdict:
        if state.noticed_at is not None and 0.0 <= now - state.noticed_at < NOTICE_PERIOD:
            # a flood is logged once a period too, not once a message
            log.debug("admission.refused", reason=reason, pending=state.pending)
            return Verdict(False)
        log.warning("admission.limited", reason=reason, pending=state.pending, wait_s=wait)
        state.noticed_at = now
        if wait is None:
            when = "once I've answered what you sent before"
        else:
            when = f"in {max(1, math.ceil(wait))} s"
        return Verdict(False, _TOO_FAST.format(when=when))

    def _check(self, user: str, now: float, command: bool) -> Verdict:
        limits = self._limits()
        state = self._user(user, now)
        per_second = limits.user_rate_per_minute / 60.0
        if command:
            wait = state.commands.take(now, per_second, limits.user_burst)
            return Verdict(True) if not wait else self._refuse(state, now, "commands", wait)
        if state.pending >= limits.user_queue:
            return self._refuse(state, now, "queue", None)
        wait = state.messages.take(now, per_second, limits.user_burst)
        return Verdict(True) if not wait else self._refuse(state, now, "rate", wait)

    @asynccontextmanager
    async def enter(
        self, user: str, incoming: Incoming, *, retry: bool = False
    ) -> AsyncIterator[Verdict]:
        """The verdict on ``incoming``; an admitted message (not a command) counts as
        pending until the block ends. A ``retry`` (a message an earlier attempt was cut off
        from answering) was admitted the first time and is not judged again."""
        if incoming.platform == "console" or retry:
            yield Verdict(True)
            return
        command = parse_command(incoming.text) is not None
        verdict = self._check(user, incoming.received_at, command)
        queued = verdict.admitted and not command
        state = self._users[user]
        if queued:
            state.pending += 1
        try:
            yield verdict
        finally:
            if queued:
                state.pending -= 1
