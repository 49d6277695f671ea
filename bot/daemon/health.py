"""Whether each adapter is doing its job, and if not, why: for ``/healthz``, ``/status`` and
the ``/status all`` command.

An adapter is unhealthy when it failed for good (its credentials were rejected or its
configuration is incomplete: :attr:`HealthCheck.failed` holds why, and nothing retries it),
when it is not running, when it knows it cannot receive (its last attempt failed: a
homeserver down shows as "reconnecting" at once, before any stall limit), when its last
success (a sync, a poll, a verified webhook) is older than its stall limit
(``stall_seconds``: a homeserver that hangs shows as stalled, not synced), or when its
outbox is backing up (more than
:data:`~bot.delivery.outbox.BACKLOG_PARCELS` answers waiting, or one waiting longer than
:data:`~bot.delivery.outbox.BACKLOG_SECONDS`). Answers a platform refused for good (the bot was
kicked or blocked) have left the outbox: they do not make it back up; the report and the
``/status all`` line count them.

The chat model is watched apart (:mod:`bot.daemon.model_health`): when it cannot be reached,
:meth:`HealthCheck.degraded` names it (``model unreachable: ...``) while every adapter stays
``ok``, since they are doing their job. ``/healthz`` then still answers 200, with ``status``
``degraded``: a restart of the daemon (what a 503 tells a supervisor) would not bring the
model server back, and would drop the connections that work.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.base import Adapter
from bot.daemon.model_health import ModelHealth
from bot.delivery.outbox import Outbox

__all__ = ["HealthCheck"]


@dataclass(slots=True)
class HealthCheck:
    adapters: Mapping[str, Adapter]
    #: the stall limit of each configured adapter (adapters attached by the caller, such as
    #: the console, have none)
    stall_seconds: Mapping[str, float]
    outbox: Outbox | None = None
    #: adapters that cannot start until their configuration changes, and why
    failed: dict[str, str] = field(default_factory=dict)
    #: the chat model's outcome (None: not watched)
    model: ModelHealth | None = None

    def degraded(self) -> dict[str, str]:
        """What works badly without any adapter being unhealthy: ``{"model": why}``."""
        problem = self.model.problem if self.model is not None else None
        return {"model": problem} if problem else {}

    def check(self, name: str) -> tuple[str, str | None]:
        """Adapter ``name``'s state (``ok``, ``failed``, ``stopped``, ``stalled``,
        ``reconnecting``, ``backing up``) and why it is not ok."""
        if name in self.failed:
            return "failed", f"failed: {self.failed[name]} (not retried; fix it and restart)"
        health = self.adapters[name].health
        error = f" (last error: {health.last_error})" if health.last_error else ""
        if not health.running:
            return "stopped", "not running" + error
        limit = self.stall_seconds.get(name)
        if limit is not None and not health.synced(limit):
            age = health.age()
            since = "never synced" if age == float("inf") else f"no success for {age:.0f}s"
            return "stalled", f"stalled: {since}, the limit is {limit:.0f}s" + error
        if health.down_since:
            down = time.monotonic() - health.down_since
            return "reconnecting", f"reconnecting: no success for {down:.0f}s" + error
        backing_up = self.outbox.backing_up(name) if self.outbox is not None else None
        if backing_up is not None:
            return "backing up", backing_up
        return "ok", None

    def problem(self, name: str) -> str | None:
        """Why adapter ``name`` is unhealthy, or None."""
        return self.check(name)[1]

    def problems(self) -> dict[str, str]:
        """Every unhealthy adapter and why."""
        found = {name: self.problem(name) for name in sorted(self.adapters)}
        return {name: why for name, why in found.items() if why is not None}

    def report(self, name: str) -> dict[str, Any]:
        """What ``/status`` and ``/healthz`` show of one adapter."""
        adapter = self.adapters[name]
        health = adapter.health
        limit = self.stall_seconds.get(name)
        waiting, oldest = self.outbox.backlog(name) if self.outbox else (0, 0.0)
        refused = len(self.outbox.refusals(platform=name)) if self.outbox else 0
        state, problem = self.check(name)
        return {
            "state": state,
            "problem": problem,
            "running": health.running,
            "synced": health.running
            and not health.down_since
            and (limit is None or health.synced(limit)),
            "last_ok_age": round(min(health.age(), 1e9), 1),
            "last_error": health.last_error,
            "outbox": {"waiting": waiting, "oldest_s": round(oldest, 1), "refused": refused},
            "reconnects": health.reconnects,
            "restarts": health.restarts,
            "detail": health.detail,
        }

    def model_line(self) -> str | None:
        """The model's line for ``/status all`` (None when it is not watched)."""
        if self.model is None:
            return None
        return f"- model: {self.model.problem or 'ok'}"

    def line(self, name: str) -> str:
        """One line for the ``/status all`` command."""
        health = self.adapters[name].health
        age = health.age()
        seen = "never" if age == float("inf") else f"{age:.0f}s ago"
        problem = self.problem(name)
        state = "ok" if problem is None else problem
        waiting, _oldest = self.outbox.backlog(name) if self.outbox else (0, 0.0)
        queued = f", {waiting} answers in the outbox" if waiting else ""
        refused = len(self.outbox.refusals(platform=name)) if self.outbox else 0
        if refused:
            queued += f", {refused} answers refused for good"
        detail = f" — {health.detail}" if health.detail else ""
        return (
            f"- {name}: {state}, last ok {seen}{queued}, reconnects {health.reconnects},"
            f" restarts {health.restarts}{detail}"
        )
