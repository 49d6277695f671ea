"""A chat command run for the router: looked up in the shared table, refused to one who is
not an admin where it is the admins' alone, its answer (or one sentence saying why there is
none) delivered like any short reply. A command that came as a file's caption runs without
the file, and its answer says the file was not read.

The command table (:mod:`bot.commands.table`) sees the router only as its
:class:`~bot.commands.table.CommandHost`; what that protocol asks beyond the router's
attributes (the persona a user chose, a reload, a distillation) is here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

import bot.commands.handlers  # noqa: F401  (fills the command table)
from adapters.base import Adapter, Incoming
from bot.commands.table import ADMIN_ONLY, CommandContext, lookup, unknown_command
from bot.daemon.errors import PersonadError
from bot.daemon.health import HealthCheck
from bot.media.prepare import MediaReader
from bot.persona.store import PersonaStore
from bot.turn.answer_delivery import AnswerDelivery
from bot.turn.rooms import Room
from bot.turn.sessions import SessionManager
from bot.turn.voice import VoiceReplies

__all__ = ["FILES_NOT_READ", "SORRY", "CommandRunning"]

log = structlog.get_logger(__name__)

#: the answer to a command or a turn that failed in a way no one can act on
SORRY = "Something went wrong on my side and I couldn't answer that. Please try again."
#: added to the answer of a command that came as a file's caption: the file is not read
#: with it (``/otr on`` on a picture must not log the picture), nor silently lost
FILES_NOT_READ = (
    "I did not open the file you sent with the command; send it again on its own if you"
    " meant me to read it."
)


async def _not_available(*_args: str) -> str:
    return "That is not available in this mode."


class CommandRunning(AnswerDelivery):
    """The router's running of commands (a part of :class:`~bot.turn.router.Router`)."""

    # what it uses of the router
    store: PersonaStore
    sessions: SessionManager
    voice: VoiceReplies
    media: MediaReader | None
    health: HealthCheck | None
    adapters: dict[str, Adapter]
    started_at: float
    _active: dict[str, str | None]
    pinned: dict[tuple[str, str], str]
    room_persona: dict[str, str]
    _reload: Callable[[], Awaitable[str]] | None
    _distill: Callable[[str, str, str], Awaitable[str]] | None

    async def choose_persona(self, user: str, room: Room, persona: str) -> bool:
        """Talk with ``persona`` from now on where ``room`` is. A terminal that
        ``personad chat`` pinned to a persona changes its own (the one every turn there
        takes; the choice kept for the other platforms stays as it was); a room that keeps
        its persona (a web conversation) changes nothing and gives False; anywhere else
        the user's choice changes, kept across restarts."""
        where = (user, room.platform)
        if where in self.pinned:
            self.pinned[where] = persona
            return True
        if room.key in self.room_persona:
            return False
        await self.state.set_active_persona(user, persona)
        self._active[user] = persona
        return True

    async def reload(self) -> str:
        return await (self._reload or _not_available)()

    async def distill(self, user: str, persona: str, kind: str) -> str:
        if self._distill is None:
            return await _not_available()
        return await self._distill(user, persona, kind)

    async def _command(
        self,
        adapter: Adapter,
        incoming: Incoming,
        user: str,
        persona: str,
        name: str,
        args: list[str],
    ) -> None:
        answer = await self._command_answer(incoming, user, persona, name, args)
        if incoming.attachments:
            answer = f"{answer}\n\n{FILES_NOT_READ}"
        await self._say(adapter, incoming, answer)

    async def _command_answer(
        self, incoming: Incoming, user: str, persona: str, name: str, args: list[str]
    ) -> str:
        """The answer to the command ``name``: its handler's, or why there is none."""
        user_config = self.config.users.get(user)
        admin = bool(user_config and user_config.admin)
        command = lookup(name)
        if command is None:
            return unknown_command(name, admin=admin)
        if command.admin and not admin:
            log.warning("command.refused", command=name)
            return ADMIN_ONLY
        log.info("command.run", command=name)
        context = CommandContext(incoming, user, persona, admin, args, self)
        try:
            return await command.handler(context)
        except PersonadError as exc:
            log.warning("command.failed", command=name, error=str(exc))
            return exc.user_message
        except Exception:
            log.exception("command.crashed", command=name)
            return SORRY
