"""The one command table every platform shares: same names, same answers, same refusals.

A message starting with ``/`` or ``!`` is a command. Each :class:`Command` names whether it is
for admins only; the router refuses those for everyone else with the same sentence on every
platform. Handlers return the text to send back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.base import Incoming
from bot.turn.rooms import Room

if TYPE_CHECKING:
    from bot.turn.router import Router

__all__ = [
    "ADMIN_ONLY",
    "COMMANDS",
    "Command",
    "CommandContext",
    "command_menu",
    "lookup",
    "parse_command",
    "register",
]

ADMIN_ONLY = "That command is for admins only."


@dataclass(slots=True)
class CommandContext:
    incoming: Incoming
    user: str
    persona: str
    admin: bool
    args: list[str]
    router: Router

    @property
    def room(self) -> Room:
        return Room(self.incoming.platform, self.incoming.room, shared=not self.incoming.is_direct)

    @property
    def otr(self) -> bool:
        """Whether the user is Off The Record in this room."""
        return self.router.otr.is_on(self.user, self.room)


CommandHandler = Callable[[CommandContext], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    summary: str
    handler: CommandHandler
    admin: bool = False
    usage: str = ""


def parse_command(text: str) -> tuple[str, list[str]] | None:
    """``("otr", ["on"])`` for ``/otr on`` or ``!otr on``; None if ``text`` is no command."""
    stripped = text.strip()
    if len(stripped) < 2 or stripped[0] not in "/!" or not stripped[1].isalpha():
        return None
    head, *args = stripped[1:].split()
    name = head.split("@", 1)[0].lower()
    return name, args


COMMANDS: dict[str, Command] = {}


def command_menu() -> list[tuple[str, str, bool]]:
    """``(name, summary, admin_only)`` for platforms that show a command menu."""
    return [(c.name, c.summary, c.admin) for c in COMMANDS.values()]


def register(command: Command) -> None:
    COMMANDS[command.name] = command


def lookup(name: str) -> Command | None:
    return COMMANDS.get(name)
