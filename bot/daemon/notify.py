"""Notices to a user outside a conversation: distillation done, a reminder due, a failure.

Each user may name one ``notification_room`` in the config, as ``PLATFORM:ROOM``, where ROOM
is whatever that platform's adapter sends to: ``nctalk:abc123`` (a Talk conversation token),
``matrix:!room:example.org``, ``telegram:12345`` (a chat id), ``discord:98765`` (a channel
id). Only the first colon separates, so Matrix room ids keep theirs.

:meth:`Notifier.notify` never raises: a notice is a courtesy, and a scheduler job that sends
one must finish its real work regardless. It answers False, with a log line saying why, when
the user has no room, the platform's adapter is not running, or the send failed.

Some notices are private: a reminder's text, a scheduled job's answer, a distillation's outcome
(it names every shared room it distilled). Those go only to a direct room: when the user's
``notification_room`` is a room a persona knows as shared (one of any user's has a folder
for it, :mod:`bot.turn.audience`), one whose id says it is a group (a Telegram chat id below
zero), or one whose last message showed it to be a group (:class:`~bot.turn.rooms.GroupsHeard`:
whoever said it, heard or not, Off The Record or not), ``notify(..., private=True)`` sends the
text nowhere and tells the room once (:data:`HELD_BACK`) that a private notice waits;
``personad check-config`` warns about a room a folder or its id names as shared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Container, Mapping

import structlog

from adapters.base import Adapter, idempotency_key
from bot.daemon.errors import PersonaError
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.turn.audience import Audience

__all__ = ["HELD_BACK", "Notifier", "group_by_its_id", "parse_room", "shared_notification_room"]

#: what a shared notification room gets in place of a private notice
HELD_BACK = (
    "🔒 A private notice is waiting: this room is shared, so it is not shown here. Point"
    " notification_room at a direct conversation and it will arrive there."
)


def shared_notification_room(config: Config, store: PersonaStore, user: str) -> str | None:
    """The user's ``notification_room`` when a persona knows it as a shared room (one of
    any user's: a group is one whoever's persona answered there), or its id says it is a
    group (:func:`group_by_its_id`), else None."""
    settings = config.users.get(user)
    if settings is None or not settings.notification_room:
        return None
    room = settings.notification_room
    if group_by_its_id(room):
        return room
    for someone in config.users:
        try:
            personas = store.list_personas(someone)
        except (OSError, PersonaError):
            continue
        if any(store.knows_shared_room(someone, persona, room) for persona in personas):
            return room
    return None


def group_by_its_id(room: str) -> bool:
    """Whether ``PLATFORM:ROOM`` is a group by its id alone, before the persona ever answered
    there: a Telegram chat id below zero is a group's, a supergroup's or a channel's (a
    private chat's is the user's own id, above zero). Other platforms' ids do not tell."""
    platform, _, chat = room.partition(":")
    return platform == "telegram" and chat.startswith("-")


log = structlog.get_logger(__name__)


def parse_room(value: str) -> tuple[str, str]:
    """``"matrix:!r:hs"`` → ``("matrix", "!r:hs")``; raises ValueError without a colon."""
    platform, sep, room = value.partition(":")
    if not sep or not platform or not room:
        raise ValueError(f"{value!r} is not PLATFORM:ROOM")
    return platform, room


class Notifier:
    """Sends notices to users' notification rooms through the running adapters.

    ``adapters`` maps a platform name to its adapter; it is read at each call, so the daemon
    may pass its own live mapping and adapters restarted by the watchdog are picked up.
    """

    def __init__(
        self,
        config: Config,
        adapters: Mapping[str, Adapter],
        store: PersonaStore | None = None,
        groups: Container[str] = (),
    ) -> None:
        self._config = config
        self._adapters = adapters
        #: where shared rooms are known by their folders (without it, only by id or message)
        self._store = store
        #: the rooms (``platform:id``) a message showed to be groups (the router's)
        self._groups = groups
        #: the users told once that a private notice waits for a direct notification room
        self._held: set[str] = set()

    def room_for(self, user: str) -> tuple[str, str] | None:
        """The ``(platform, room)`` a user's notices go to, or None."""
        settings = self._config.users.get(user)
        if settings is None or not settings.notification_room:
            return None
        try:
            return parse_room(settings.notification_room)
        except ValueError:
            return None

    async def notify(
        self, user: str, text: str, *, private: bool = False, key: str | None = None
    ) -> bool:
        """Send ``text`` to ``user``'s notification room; True once the platform took it.
        A ``private`` text is sent only to a room not known as shared (by a folder, its id,
        or its last message): a shared one is told once (:data:`HELD_BACK`) and the notice is
        not sent (False), so what it is about (a reminder, a job's answer) waits, and arrives
        once the room is a direct one. With ``key`` (one notice's name, the same on every
        try), a platform that took a send it answered with an error is not given the notice
        twice (Matrix's transaction id, Discord's nonce)."""
        if user not in self._config.users:
            log.warning("notify.skipped", user=user, reason="unknown user")
            return False
        target = self.room_for(user)
        if target is None:
            log.info("notify.skipped", user=user, reason="no notification_room")
            return False
        platform, room = target
        if private and text.strip():
            if self._known_shared(user, f"{platform}:{room}"):
                log.warning("notify.held_back", user=user, platform=platform)
                if user not in self._held:
                    self._held.add(user)
                    await self._send(user, platform, room, HELD_BACK)
                return False
        return await self._send(user, platform, room, text, key)

    def _known_shared(self, user: str, room_key: str) -> bool:
        """Whether the user's notification room ``room_key`` is known as a group."""
        if room_key in self._groups:
            return True
        if self._store is not None:
            return shared_notification_room(self._config, self._store, user) is not None
        return group_by_its_id(room_key)

    async def notify_audience(
        self, user: str, audience: Audience, text: str, *, key: str | None = None
    ) -> bool:
        """A notice about something of ``audience``'s: a direct room's goes to the user's
        notification room (privately), a shared room's into that room itself."""
        if audience.room is None:
            return await self.notify(user, text, private=True, key=key)
        platform, room = parse_room(audience.room)
        return await self._send(user, platform, room, text, key)

    async def _send(
        self, user: str, platform: str, room: str, text: str, key: str | None = None
    ) -> bool:
        adapter = self._adapters.get(platform)
        if adapter is None or not adapter.health.running:
            log.warning(
                "notify.skipped", user=user, platform=platform, reason="adapter not running"
            )
            return False
        if not text.strip():
            log.warning("notify.skipped", user=user, platform=platform, reason="empty text")
            return False
        try:
            await adapter.send(room, text, key=None if key is None else idempotency_key(key))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning(
                "notify.failed",
                user=user,
                platform=platform,
                error=type(exc).__name__,
                detail=str(exc),
            )
            return False
        log.info("notify.sent", user=user, platform=platform, chars=len(text))
        return True
