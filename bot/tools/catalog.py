"""Every tool of the persona for one turn, through the gate.

:func:`persona_tools` lists the persona's own tools (scratchpad, reminders, tasks, scheduled
jobs); :func:`turn_tools` adds the memory backend's tools and lets
:func:`~bot.tools.gate.gate` decide which of them the turn may use.
"""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import ZoneInfo

from bot.persona.store import PersonaStore
from bot.tools.clock import Clock, utc_now
from bot.tools.crons.tools import cron_tools
from bot.tools.gate import TurnMode, gate
from bot.tools.registry import CallLimits, Tool, ToolRegistry
from bot.tools.reminders.tools import reminder_tools
from bot.tools.scratch import scratch_tools
from bot.tools.tasks import task_tools
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["persona_tools", "turn_tools"]


def persona_tools(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    *,
    clock: Clock = utc_now,
    audience: Audience = DIRECT_ROOM,
) -> list[Tool]:
    """The scratchpad, reminder, task and scheduled-job tools of one persona, each on the
    files of ``audience`` (a shared room has its own, :mod:`bot.turn.audience`)."""
    return [
        *scratch_tools(store, user, persona, audience),
        *reminder_tools(store, user, persona, zone, clock, audience),
        *task_tools(store, user, persona, zone, clock, audience),
        *cron_tools(store, user, persona, zone, clock, audience),
    ]


def turn_tools(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    *,
    mode: TurnMode,
    limits: CallLimits,
    memory: Sequence[Tool] = (),
    clock: Clock = utc_now,
    audience: Audience = DIRECT_ROOM,
) -> ToolRegistry:
    """The registry of one turn heard by ``audience``: every tool, each allowed or withheld
    by the gate."""
    tools = persona_tools(store, user, persona, zone, clock=clock, audience=audience)
    return gate([*tools, *memory], mode, limits)
