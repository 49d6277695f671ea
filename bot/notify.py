"""Notices to a user outside a conversation: distillation done, a reminder due, a failure.

Each user may name one ``notification_room`` in the config, as ``PLATFORM:ROOM``, where ROOM
is whatever that platform's adapter sends to: ``nctalk:abc123`` (a Talk conversation token),
``matrix:!room:example.org``, ``telegram:12345`` (a chat id), ``discord:98765`` (a channel
id). Only the first colon separates, so Matrix room ids keep theirs.

:meth:`Notifier.notify` never raises: a notice is a courtesy, and a scheduler job that sends
one must finish its real work regardless. It answers False, with a log line saying why, when
the user has no room, the platform's adapter is not running, or the send failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import structlog

from adapters.base import Adapter
from bot.config import Config

__all__ = ["Notifier", "parse_room"]

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

    def __init__(self, config: Config, adapters: Mapping[str, Adapter]) -> None:
        self._config = config
        self._adapters = adapters

    def room_for(self, user: str) -> tuple[str, str] | None:
        """The ``(platform, room)`` a user's notices go to, or None."""
        settings = self._config.users.get(user)
        if settings is None or not settings.notification_room:
            return None
        try:
            return parse_room(settings.notification_room)
        except ValueError:
            return None

    async def notify(self, user: str, text: str) -> bool:
        """Send ``text`` to ``user``'s notification room; True once the platform took it."""
        if user not in self._config.users:
            log.warning("notify.skipped", user=user, reason="unknown user")
            return False
        target = self.room_for(user)
        if target is None:
            log.info("notify.skipped", user=user, reason="no notification_room")
            return False
        platform, room = target
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
            await adapter.send(room, text)
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
