"""The seam between personad's core and a chat platform.

An adapter turns platform events into :class:`Incoming` events for the core's handler and
carries the core's answers back out through five methods: ``start``, ``stop``, ``send``,
``edit`` and ``typing``. It reports its liveness through :meth:`Adapter.health` so a
watchdog can restart a silently stalled connection.

``send`` and ``edit`` take an idempotency ``key``: a short token, stable across restarts,
naming one logical message (or edit). Sending the same key twice must not show a second
message where the platform allows it (Matrix transaction id, Discord nonce, Talk
reference id); :func:`part_key` derives the key of each part of a message that is split.

Media: an :class:`Incoming` lists its files as :class:`Attachment` s (what the platform says
of each, and the adapter's own handle to fetch it); the core fetches the bytes through
:meth:`Adapter.download` only when a turn reads them, and never writes them to disk. An
adapter that can post audio sends a spoken answer through :meth:`Adapter.send_voice`.
"""

from __future__ import annotations

import hashlib
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.daemon.errors import AdapterError, MediaError

__all__ = [
    "Adapter",
    "AdapterContext",
    "AdapterHealth",
    "AdapterSettings",
    "Attachment",
    "Handler",
    "Incoming",
    "KeyValueStore",
    "MessageGone",
    "Speech",
    "idempotency_key",
    "part_key",
]

EventKind = Literal["text", "attachment", "other"]


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file that came with a message, as the platform describes it.

    ``ref`` is the adapter's own handle to the bytes (a Telegram ``file_id``, an ``mxc://``
    URL with its decryption keys, a download URL): plain text, so the inbox can keep it while
    the message is unanswered. ``mime``, ``size`` and ``duration`` are what the platform
    declares; the core decides the kind from the bytes themselves. ``voice`` marks a recorded
    voice note rather than an audio file.
    """

    ref: str
    name: str = ""
    mime: str = ""
    size: int | None = None
    voice: bool = False
    duration: float | None = None


@dataclass(frozen=True, slots=True)
class Speech:
    """A spoken answer, ready to post: ``audio`` in ``mime`` (Ogg Opus where the platform
    shows voice messages), ``duration`` in seconds when known."""

    audio: bytes
    mime: str = "audio/ogg"
    duration: float | None = None
    name: str = "answer.ogg"


@dataclass(frozen=True, slots=True)
class Incoming:
    """One event from a platform, already reduced to what the core needs.

    ``sender`` is the platform's own id of the sender (``@scott:example.org``, ``123456``);
    the router joins it with ``platform`` into an identity such as ``matrix:@scott:example.org``.
    ``event_id`` is the platform's id of this event, unique within the platform; the router
    drops an event whose id it has already handled, across restarts.
    """

    platform: str
    sender: str
    room: str
    text: str
    event_id: str
    is_direct: bool = True
    addressed: bool = True
    kind: EventKind = "text"
    reply_to: str | None = None
    sender_name: str | None = None
    received_at: float = field(default_factory=time.time)
    #: the files of the message (a caption, if any, is ``text``)
    attachments: tuple[Attachment, ...] = ()
    #: the platform's id of an album this message is one of (Telegram's media group): the
    #: router answers an album's messages in one turn
    album: str = ""

    @property
    def identity(self) -> str:
        return f"{self.platform}:{self.sender}"


Handler = Callable[[Incoming], Awaitable[None]]


class MessageGone(AdapterError):
    """The message to edit no longer exists, or the platform no longer lets it be edited:
    retrying the edit can never succeed."""


def idempotency_key(name: str) -> str:
    """The key a send goes out under, made from what names it (an event's answer, a
    reminder): 24 hex characters (Discord's nonce allows 25), the same in every process, and
    nothing of the words it is made from."""
    return hashlib.sha256(name.encode()).hexdigest()[:24]


def part_key(key: str | None, index: int) -> str | None:
    """The idempotency key of part ``index`` of a split message: the key itself for the
    first part, one made from it for the others."""
    if key is None or index == 0:
        return key
    return idempotency_key(f"{key}/{index}")


@dataclass(slots=True)
class AdapterHealth:
    """Liveness as an adapter reports it; ``last_ok`` is a ``time.monotonic()`` reading."""

    running: bool = False
    last_ok: float = 0.0
    detail: str = ""
    reconnects: int = 0
    restarts: int = 0
    #: the last failure talking to the platform (cleared by the next success)
    last_error: str = ""
    #: ``time.monotonic()`` of the first failed attempt to receive since the last success
    #: (0.0: receiving works): an outage the adapter knows of, before any stall limit passes
    down_since: float = 0.0

    def touch(self, detail: str = "") -> None:
        self.last_ok = time.monotonic()
        self.last_error = ""
        self.down_since = 0.0
        if detail:
            self.detail = detail

    def disconnected(self, error: str) -> None:
        """Record that receiving from the platform failed (a refused connection, a sync
        refused): health says so at once, not only once the stall limit has passed."""
        self.last_error = error
        if not self.down_since:
            self.down_since = time.monotonic()

    def failed(self, error: str) -> None:
        """Record a failure without touching ``last_ok``: the age keeps growing."""
        self.last_error = error

    def synced(self, stall_seconds: float) -> bool:
        """Running, and a success within ``stall_seconds``."""
        return self.running and self.age() <= stall_seconds

    def age(self) -> float:
        return time.monotonic() - self.last_ok if self.last_ok else float("inf")


class AdapterSettings(BaseModel):
    """Common settings of every adapter section (``[adapters.NAME]`` in the config)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    stall_seconds: float = Field(300.0, gt=0)


class KeyValueStore(ABC):
    """Durable small state an adapter keeps across restarts (sync tokens, offsets)."""

    @abstractmethod
    async def get(self, key: str) -> str | None: ...

    @abstractmethod
    async def set(self, key: str, value: str) -> None: ...


@dataclass(slots=True)
class AdapterContext:
    """What the core hands an adapter when it creates it.

    ``web_routes`` lets an adapter that receives webhooks (Nextcloud Talk) add routes to the
    daemon's aiohttp application before it starts: ``add_route(method, path, handler)``.
    """

    handler: Handler
    state: KeyValueStore
    data_dir: Path
    command_menu: list[tuple[str, str, bool]] = field(default_factory=list)
    add_route: Callable[[str, str, Callable[..., Awaitable[Any]]], None] | None = None
    #: turns an answer's words into :class:`Speech` (the ``speech`` model role); None when
    #: no speech server is configured
    speak: Callable[[str], Awaitable[Speech]] | None = None
    #: whether someone is Off The Record in a room (by its id): what the adapter remembers of
    #: a send there stays in memory, nothing of it is written down
    off_the_record: Callable[[str], bool] = field(default=lambda room: False)


class Adapter(ABC):
    """One chat platform. Subclasses implement the five methods; the rest is shared."""

    platform: str = "base"
    #: the longest message the platform accepts, in characters of the rendered text
    max_message_chars: int = 4000
    #: whether :meth:`edit` works, so answers can stream in by editing one message
    supports_edit: bool = False
    #: whether the platform answers a repeated ``key`` with the message it already made
    idempotent: bool = False
    #: whether :meth:`post_audio` works, so an answer can also be spoken
    supports_voice: bool = False

    def __init__(self, context: AdapterContext) -> None:
        self.context = context
        self.health = AdapterHealth()

    @abstractmethod
    async def start(self) -> None:
        """Connect and begin delivering events to ``context.handler``; return once running."""

    @abstractmethod
    async def stop(self) -> None:
        """Disconnect; safe to call twice and after a failed start."""

    @abstractmethod
    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        """Send markdown ``text`` to ``room`` (split as the platform needs); return the id of
        the last message sent. With ``key``, sending again with the same key shows no second
        message where the platform can tell (see :func:`part_key` for split messages)."""

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        """Replace the text of a message this adapter sent. Only called if ``supports_edit``.
        ``key`` names this edit, for platforms that take one for edits too."""
        raise AdapterError(f"{self.platform} cannot edit messages")

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        """The bytes of ``attachment``: :class:`~bot.daemon.errors.MediaError` if there are
        more than ``limit`` of them (stop reading there: :func:`bot.media.fetch.read_capped`)
        or the platform will not give them. Called only for configured identities' messages;
        the caller bounds the time it takes."""
        raise MediaError(
            f"{self.platform} cannot fetch attachments",
            user_message=f"I can't open files sent on {self.platform}; please paste the text.",
        )

    @property
    def can_speak(self) -> bool:
        """Whether answers can be spoken here: the platform takes voice messages and a
        speech server is configured."""
        return self.supports_voice and self.context.speak is not None

    async def send_voice(self, room: str, text: str, *, key: str | None = None) -> str:
        """Speak ``text`` (the answer just sent as text) into ``room`` as a voice message;
        return its id. ``key`` works as in :meth:`send`."""
        if self.context.speak is None:
            raise MediaError("no speech server is configured")
        speech = await self.context.speak(text)
        return await self.post_audio(room, speech, key=key)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        """Post ``speech`` as the platform's voice message (or an audio file where it has
        none). Only called if ``supports_voice``."""
        raise AdapterError(f"{self.platform} cannot send voice messages")

    async def typing(self, room: str, on: bool) -> None:
        """Show or hide a typing indicator; a platform without one does nothing."""
        return None

    async def reply_done(self, room: str) -> None:
        """Called once a whole answer has been delivered by ``send``/``edit`` calls."""
        return None

    async def __aenter__(self) -> Adapter:
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
