"""Per-user admission: a rate limit on turns and on commands, and the flood cap, as one step
of the router.

Every configured user has

- a **turn rate limit**: a token bucket holding ``daemon.user_burst`` turns, refilled at
  ``daemon.user_rate_per_minute``. It is there for a runaway client, not for a person: a
  turn that finds the bucket empty waits for its token (:meth:`Admission.turn`), and what the
  user sends meanwhile waits too and is answered by that same turn (:mod:`bot.turn.burst`),
  so a burst costs one token, never a message;
- a **flood cap**: more than ``daemon.user_queue`` messages waiting at once in one room is
  beyond any person's typing; the router answers the newest of them and says how many it
  skipped (:meth:`Admission.flood_notice`: one such reply a minute, the rest logged);
- a **command rate limit**: commands (``/otr``, ``/new`` ...) have a bucket of their own
  and are answered at once or refused: a user whose turns are slowed down can still go Off
  The Record or start over. The first refusal of a minute gets one polite reply saying when
  to expect answers again; the rest are silent, so a flood is not answered by a flood.

Users never share a limit. The console is the operator's own terminal (``personad chat <
script`` feeds lines as fast as they are answered) and is not limited.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from bot.setup.config import DaemonConfig

__all__ = ["NOTICE_PERIOD", "Admission", "Verdict"]

log = structlog.get_logger(__name__)

#: seconds between two notices to one user; the rate is counted per minute too
NOTICE_PERIOD = 60.0

_TOO_FAST = "You're sending commands faster than I can answer; I'll pick up again in {wait} s."
_SKIPPED = (
    "{skipped} of your messages came in faster than anyone types, so I skipped them (the"
    " oldest) and answered the {kept} newest."
)


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
    turns: _Bucket
    commands: _Bucket
    noticed_at: float | None = None
    flood_noticed_at: float | None = None


class Admission:
    """The admission step; ``limits`` returns the current settings (they follow ``/reload``),
    ``clock`` the time buckets are read at (monotonic seconds)."""

    def __init__(
        self, limits: Callable[[], DaemonConfig], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._users: dict[str, _User] = {}

    @property
    def flood_cap(self) -> int:
        """How many messages of one user may wait in one room before the oldest are skipped."""
        return self._limits().user_queue

    def _user(self, user: str, now: float) -> _User:
        state = self._users.get(user)
        if state is None:
            burst = float(self._limits().user_burst)
            state = _User(_Bucket(burst, now), _Bucket(burst, now))
            self._users[user] = state
        return state

    def command(self, user: str, platform: str) -> Verdict:
        """The verdict on a command of ``user``'s."""
        if platform == "console":
            return Verdict(True)
        limits = self._limits()
        now = self._clock()
        state = self._user(user, now)
        wait = state.commands.take(now, limits.user_rate_per_minute / 60.0, limits.user_burst)
        if not wait:
            return Verdict(True)
        if state.noticed_at is not None and 0.0 <= now - state.noticed_at < NOTICE_PERIOD:
            # a flood is logged once a period too, not once a message
            log.debug("admission.refused", reason="commands")
            return Verdict(False)
        log.warning("admission.limited", reason="commands", wait_s=round(wait, 1))
        state.noticed_at = now
        return Verdict(False, _TOO_FAST.format(wait=max(1, math.ceil(wait))))

    async def turn(self, user: str, platform: str) -> float:
        """Wait for ``user``'s next turn token; returns the seconds waited. What the user
        sends meanwhile joins the turn that waits."""
        if platform == "console":
            return 0.0
        limits = self._limits()
        per_second = limits.user_rate_per_minute / 60.0
        waited = 0.0
        while True:
            now = self._clock()
            wait = self._user(user, now).turns.take(now, per_second, limits.user_burst)
            if not wait:
                return waited
            if not waited:
                log.warning("admission.slowed", wait_s=round(wait, 1))
            await asyncio.sleep(wait)
            waited += wait

    def flood_notice(self, user: str, skipped: int, kept: int) -> str | None:
        """The reply to a flood cut: ``skipped`` messages not answered, ``kept`` answered
        (None: one was sent this minute already)."""
        now = self._clock()
        state = self._user(user, now)
        log.warning("admission.flood", skipped=skipped, kept=kept)
        noticed = state.flood_noticed_at
        if noticed is not None and 0.0 <= now - noticed < NOTICE_PERIOD:
            return None
        state.flood_noticed_at = now
        return _SKIPPED.format(skipped=skipped, kept=kept)
