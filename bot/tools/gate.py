"""The one place that decides which of the persona's tools a turn may use.

Every tool declares what it does (:class:`~bot.tools.registry.Tool`: ``persists``,
``private``, ``memory``, ``admin``); a turn is described by a :class:`TurnMode`. The rules:

- Off The Record, nothing may be kept: every tool that persists is withheld, and so is
  every memory tool (an OTR turn neither recalls nor remembers).
- In a shared (group) room, tools whose results show the user's private material are
  withheld, so nothing of a direct conversation surfaces in front of others.
- Admin-only tools need an admin.
- What a persisting tool writes never holds a secret: the text the model gives it passes
  through the secret detector (:func:`bot.memory.secrets.detector.redact_secrets`) first, so a
  password the user mentioned cannot reach SCRATCH.md, TASKS.json, REMINDERS.md or
  CRONS.json, and the values the turn's message carried are withheld in whatever shape the
  model copies them (a memory tool's text too, before its write policy runs).

A withheld tool is not offered to the model. A model can still name any tool, so a call to
a withheld one is answered with the reason from :func:`refusal` and its handler never runs:
nothing is written, nothing is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from bot.memory.secrets.detector import redact_secrets
from bot.memory.secrets.door import turn_values, withhold
from bot.tools.registry import CallLimits, Tool, ToolHandler, ToolRegistry

__all__ = ["ADMIN_ONLY", "OFF_THE_RECORD", "SHARED_ROOM", "TurnMode", "gate", "refusal"]

OFF_THE_RECORD = (
    "Off The Record: nothing may be kept. This tool was not run and nothing was saved; "
    "tell the user it can be done once Off The Record is off."
)
SHARED_ROOM = (
    "This is a shared room: the user's private notes, lists and memories are not shown here. "
    "This tool was not run; offer to continue in a direct conversation."
)
ADMIN_ONLY = "Only an admin may use this tool; it was not run."


@dataclass(frozen=True, slots=True)
class TurnMode:
    """What a turn is: Off The Record or not, in a shared room or not, by an admin or not."""

    otr: bool = False
    shared_room: bool = False
    admin: bool = False


def refusal(tool: Tool, mode: TurnMode) -> str | None:
    """Why ``tool`` may not run in a turn of ``mode``, or None when it may."""
    if mode.otr and (tool.persists or tool.memory):
        return OFF_THE_RECORD
    if mode.shared_room and tool.private:
        return SHARED_ROOM
    if tool.admin and not mode.admin:
        return ADMIN_ONLY
    return None


def gate(tools: Iterable[Tool], mode: TurnMode, limits: CallLimits | None = None) -> ToolRegistry:
    """The registry of one turn: the tools ``mode`` allows, the others withheld with the
    reason a call to them gets, and the turn's call ``limits``."""
    registry = ToolRegistry(limits=limits)
    for tool in tools:
        reason = refusal(tool, mode)
        if reason is None:
            registry.add(_without_secrets(tool) if tool.persists else tool)
        else:
            registry.withhold(tool, reason)
    return registry


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return withhold(redact_secrets(value), values=turn_values())
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    return value


def _without_secrets(tool: Tool) -> Tool:
    """``tool`` with every text of its arguments passed through the secret detector."""
    handler: ToolHandler = tool.handler

    async def handle(arguments: dict[str, Any]) -> str:
        return await handler(_redacted(arguments))

    return replace(tool, handler=handle)
