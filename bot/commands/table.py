"""The one command table every platform shares: same names, same answers, same refusals.

A message starting with ``/`` or ``!`` is a command. Each :class:`Command` names whether it is
for admins only; the router refuses those for everyone else with the same sentence on every
platform (:data:`ADMIN_ONLY`, :func:`unknown_command`). Handlers return the text to send back.

What a handler may ask of the router that runs it is :class:`CommandHost`, so the table and
its handlers know the router only by that: the router imports them, never the reverse.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from adapters.base import Incoming
from bot.turn.rooms import Room

if TYPE_CHECKING:
    from adapters.base import Adapter
    from bot.daemon.health import HealthCheck
    from bot.delivery.outbox import Outbox
    from bot.media.prepare import MediaReader
    from bot.persona.store import PersonaStore
    from bot.setup.config import Config
    from bot.turn.rooms import OffTheRecord
    from bot.turn.sessions import SessionManager
    from bot.turn.voice import VoiceReplies

__all__ = [
    "ADMIN_ONLY",
    "COMMANDS",
    "RELOAD_REFUSED",
    "Command",
    "CommandContext",
    "CommandHost",
    "command_menu",
    "lookup",
    "parse_command",
    "register",
    "unknown_command",
]

ADMIN_ONLY = "That command is for admins only."
#: how the answer to ``/reload`` begins when the config has problems (the problems follow)
RELOAD_REFUSED = "Config not reloaded, it has problems"


def unknown_command(name: str, *, admin: bool = False) -> str:
    """The answer to ``/name`` when the table has no such command: the one meant named when
    a command the sender may use is near it ("/stauts": "/status"), else /help."""
    usable = [c.name for c in COMMANDS.values() if admin or not c.admin]
    meant = difflib.get_close_matches(name.casefold(), usable, n=1, cutoff=0.75)
    if meant:
        return f"I don't know the command /{name}. Did you mean /{meant[0]}? (/help lists them.)"
    return f"I don't know the command /{name}. Try /help."


class CommandHost(Protocol):
    """What a command handler may use of the router that runs it."""

    config: Config
    store: PersonaStore
    sessions: SessionManager
    otr: OffTheRecord
    voice: VoiceReplies
    media: MediaReader | None
    outbox: Outbox | None
    health: HealthCheck | None
    adapters: dict[str, Adapter]
    started_at: float

    def said_off_record(self, incoming: Incoming) -> bool: ...

    async def choose_persona(self, user: str, room: Room, persona: str) -> bool: ...

    async def reload(self) -> str: ...

    async def distill(self, user: str, persona: str, kind: str) -> str: ...


@dataclass(slots=True)
class CommandContext:
    incoming: Incoming
    user: str
    persona: str
    admin: bool
    args: list[str]
    router: CommandHost

    @property
    def room(self) -> Room:
        return Room(self.incoming.platform, self.incoming.room, shared=not self.incoming.is_direct)

    @property
    def otr(self) -> bool:
        """Whether the user is Off The Record in this room."""
        return self.router.otr.is_on(self.user, self.room)

    @property
    def said_off_record(self) -> bool:
        """Whether the command was said Off The Record: the mode is on, or was when it came
        (a command cut off and delivered again after ``/otr off``)."""
        return self.otr or self.router.said_off_record(self.incoming)


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
