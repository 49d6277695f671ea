"""Albums addressed to the persona as a whole.

Telegram sends an album as one message a picture and puts its caption on one of them, so in a
group only that message mentions the persona: the album's other pictures arrive unaddressed,
though they are part of what was asked. A message of an album one of whose messages was
addressed (the same platform, room, sender and album) is addressed too. One that arrives
before that message waits for it as long as the album's turn waits for its pictures
(:data:`~bot.turn.burst.ALBUM_WAIT`), and is let go, unanswered, if it never comes: an album
that names no one is not the persona's to answer. The :data:`ALBUMS_KEPT` albums seen last
are remembered.
"""

from __future__ import annotations

import asyncio
import contextlib

from adapters.base import Incoming
from bot.daemon.newest import keep_newest
from bot.turn.burst import ALBUM_WAIT

__all__ = ["ALBUMS_KEPT", "AddressedAlbums"]

#: albums remembered, the ones seen last
ALBUMS_KEPT = 256

_Key = tuple[str, str, str, str]


class AddressedAlbums:
    """Which albums one of their messages addressed to the persona."""

    __slots__ = ("_named", "wait")

    def __init__(self, *, wait: float = ALBUM_WAIT) -> None:
        self._named: dict[_Key, asyncio.Event] = {}
        #: seconds an album's unaddressed message waits for the one that names the persona
        self.wait = wait

    def addressed(self, incoming: Incoming) -> bool:
        """Whether ``incoming`` is addressed to the persona, by itself or as a message of an
        album another message of which was (synchronous: an addressed message marks its
        album before the next message is looked at)."""
        if not incoming.album:
            return incoming.addressed
        named = self._album(incoming)
        if incoming.addressed:
            named.set()
        return named.is_set()

    async def named_soon(self, incoming: Incoming) -> bool:
        """Whether a message of ``incoming``'s album that names the persona arrives within
        :attr:`wait` seconds (False at once for a message of no album)."""
        if not incoming.album:
            return False
        named = self._album(incoming)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.wait):
                await named.wait()
        return named.is_set()

    def _album(self, incoming: Incoming) -> asyncio.Event:
        key = (incoming.platform, incoming.room, incoming.sender, incoming.album)
        named = self._named.get(key) or asyncio.Event()
        keep_newest(self._named, key, named, ALBUMS_KEPT)
        return named
