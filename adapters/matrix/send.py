"""What the Matrix adapter sends: answers, their edits, spoken answers and typing notices.

Sends and edits carry the core's idempotency ``key`` as the Matrix transaction id, so a retry,
even by a later process signed in on the same device, gets back the event already sent instead
of posting a second one (the homeserver remembers transaction ids per device). An answer too
long for one message is split, each piece under its own transaction id. A spoken answer is
uploaded to the media repository with nio's ``AsyncClient.upload`` (encrypted in an encrypted
room: nio returns the key, iv and hashes for the event's ``file``) and posted as an ``m.audio``
voice message under its key's transaction id. Nothing is uploaded for a room whose encryption
is not known: one the client has not synced, or (asked of the homeserver) an encrypted one
the client cannot encrypt events for.

Nothing goes into an encrypted room in plain text. Before the first event a process sends to a
room the client does not already know to be encrypted, the homeserver is asked
(``m.room.encryption``): after a restart the client syncs from its saved token and holds only
the state that changed, so it may take an encrypted room for a plain one. An encrypted room
is marked so on the client's room, and nio encrypts; a client without end-to-end encryption
(``adapters.matrix.e2e`` off) is refused for good there, in a sentence that names the setting.
A room found plain is not asked again (should it turn encrypted, the sync says so).

A homeserver's ``M_FORBIDDEN`` (the bot was kicked or banned, or may not post there) or
``M_NOT_FOUND`` (no such room) to a send, or ``M_TOO_LARGE`` to a send or an upload, is
:class:`~bot.daemon.errors.PermanentSendError`: sending again cannot help. Rate limits, server
errors and network failures stay ``AdapterError``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from collections.abc import Callable
from typing import Any

import aiohttp
import structlog
from nio import AsyncClient, RoomGetStateEventError, RoomSendError, UploadError, UploadResponse
from nio.exceptions import LocalProtocolError

from adapters.base import MessageGone, Speech, part_key
from adapters.matrix.attachments import voice_content
from adapters.matrix.render import ReplyTarget, chunks_that_fit, edit_content, message_content
from adapters.matrix.rooms import RoomEvents
from bot.daemon.connection_reason import connection_reason
from bot.daemon.errors import AdapterError, PermanentSendError

__all__ = ["NETWORK_ERRORS", "Outgoing", "transaction_id"]

log = structlog.get_logger(__name__)

NETWORK_ERRORS = (aiohttp.ClientError, TimeoutError, LocalProtocolError)
#: what a homeserver (Synapse) says to an edit whose message it does not have in the room
_GONE = ("Can't send relation to unknown event", "Relations must be in the same room")
_TYPING_REFRESH = 20.0
#: error codes of a send or an upload refused for good
_REFUSED = frozenset({"M_FORBIDDEN", "M_NOT_FOUND", "M_TOO_LARGE"})


def _unreachable(what: str, client: AsyncClient, exc: BaseException) -> AdapterError:
    return AdapterError(
        f"{what} failed: {connection_reason(exc, str(client.homeserver))}",
        user_message="The Matrix homeserver cannot be reached.",
    )


def _refused(problem: str, status_code: str | None) -> AdapterError:
    return PermanentSendError(problem) if status_code in _REFUSED else AdapterError(problem)


def transaction_id(key: str | None, part: int = 0) -> str | None:
    """The Matrix transaction id for piece ``part`` of the message ``key`` names (None: the
    client picks a fresh one). Hashed, so any key is a safe URL segment of fixed length."""
    key = part_key(key, part)
    if key is None:
        return None
    return "pd" + hashlib.sha256(key.encode()).hexdigest()[:40]


class Outgoing:
    """Sends through whatever client and rooms the adapter has at the time of the call."""

    def __init__(
        self,
        client: Callable[[], AsyncClient | None],
        rooms: Callable[[], RoomEvents | None],
        max_message_chars: int,
    ) -> None:
        self._get_client = client
        self._get_rooms = rooms
        self.max_message_chars = max_message_chars
        self._typing: dict[str, asyncio.Task[None]] = {}
        #: whether the homeserver said a room is encrypted, by room (asked once a process,
        #: a room the client has not synced included)
        self._server_says: dict[str, bool] = {}

    def _client(self) -> AsyncClient:
        client = self._get_client()
        if client is None or not client.logged_in:
            raise AdapterError(
                "the Matrix adapter is not running",
                user_message="Matrix is not connected right now.",
            )
        return client

    async def _room_send(self, room: str, content: dict[str, Any], tx_id: str | None) -> str:
        client = self._client()
        await self._sealed(client, room, "message")
        try:
            answer = await client.room_send(
                room, "m.room.message", content, tx_id=tx_id, ignore_unverified_devices=True
            )
        except NETWORK_ERRORS as exc:
            raise _unreachable(f"sending to {room}", client, exc) from exc
        if isinstance(answer, RoomSendError):
            problem = f"sending to {room} failed: {answer.status_code} {answer.message}"
            if content.get("m.new_content") is not None and answer.message in _GONE:
                raise MessageGone(problem)
            raise _refused(problem, answer.status_code)
        if (rooms := self._get_rooms()) is not None:
            rooms.own(answer.event_id, room)
        return str(answer.event_id)

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        """Send ``text``, split into messages that fit; with ``key``, piece N goes out under a
        transaction id derived from (key, N), so sending the same key again sends nothing new
        and returns the same last event."""
        pieces = chunks_that_fit(text, self.max_message_chars)
        if not pieces:
            raise AdapterError("refusing to send an empty Matrix message")
        target: ReplyTarget | None = None
        if reply_to:
            rooms = self._get_rooms()
            known = rooms.reply_targets.get(reply_to) if rooms else None
            target = known if isinstance(known, ReplyTarget) else ReplyTarget(reply_to)
        last = ""
        for index, piece in enumerate(pieces):
            if index and target is not None:
                target = ReplyTarget(last, None, target.thread_root, quote=False)
            content = message_content(piece, target)
            last = await self._room_send(room, content, transaction_id(key, index))
        log.info("matrix.sent", room=room, event_id=last, pieces=len(pieces))
        return last

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        if not text.strip():
            raise AdapterError("refusing to edit a Matrix message to nothing")
        await self._room_send(room, edit_content(message_id, text), transaction_id(key))

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        """Upload ``speech`` and post it to ``room`` as a voice message; its file is
        encrypted when the room is. Nothing is uploaded unless the room's encryption is known
        (:meth:`_encrypts`)."""
        client = self._client()
        encrypt = await self._encrypts(client, room)
        url, file = await self._upload(client, speech, encrypt)
        event_id = await self._room_send(
            room, voice_content(speech, url, file), transaction_id(key)
        )
        log.info(
            "matrix.voice_sent",
            room=room,
            event_id=event_id,
            size=len(speech.audio),
            encrypted=encrypt,
        )
        return event_id

    async def _encrypts(self, client: AsyncClient, room: str) -> bool:
        """Whether a file for ``room`` must be encrypted. A room the client has not synced is
        refused (a later try may find it synced); otherwise :meth:`_sealed` says."""
        if client.rooms.get(room) is None:
            raise AdapterError(
                f"No voice message was sent to {room}: the Matrix client has not synced that"
                " room yet, so it cannot tell whether the room is encrypted."
            )
        return await self._sealed(client, room, "voice message")

    async def _sealed(self, client: AsyncClient, room: str, what: str) -> bool:
        """Whether ``room`` is encrypted: the client's room says so, or the homeserver does
        (asked once a process; the client's room learns it, so nio encrypts).
        :class:`PermanentSendError` when it is and the client cannot encrypt."""
        joined = client.rooms.get(room)
        encrypted = bool(joined is not None and joined.encrypted)
        if not encrypted:
            if room not in self._server_says:
                self._server_says[room] = await self._encrypted_on_server(client, room, what)
            encrypted = self._server_says[room]
            if encrypted and joined is not None:
                joined.encrypted = True
        if encrypted and client.olm is None:
            raise PermanentSendError(
                f"No {what} was sent to {room}: the room is encrypted and this Matrix"
                " client has end-to-end encryption off (adapters.matrix.e2e)."
            )
        return encrypted

    async def _encrypted_on_server(self, client: AsyncClient, room: str, what: str) -> bool:
        """Whether the homeserver holds an ``m.room.encryption`` state event for ``room``."""
        try:
            answer = await client.room_get_state_event(room, "m.room.encryption")
        except NETWORK_ERRORS as exc:
            raise _unreachable(f"reading the encryption of {room}", client, exc) from exc
        if isinstance(answer, RoomGetStateEventError):
            if answer.status_code == "M_NOT_FOUND":
                return False
            problem = (
                f"No {what} was sent to {room}: its encryption could not be read"
                f" ({answer.status_code} {answer.message})."
            )
            raise _refused(problem, answer.status_code)
        return True

    async def _upload(
        self, client: AsyncClient, speech: Speech, encrypt: bool
    ) -> tuple[str, dict[str, Any] | None]:
        """Store the audio; its ``mxc://`` URL and, with ``encrypt``, the decryption info
        (``v``, ``key``, ``iv``, ``hashes``) an event's ``file`` carries beside the URL."""
        try:
            answer, keys = await client.upload(
                io.BytesIO(speech.audio),
                content_type=speech.mime,
                filename=speech.name,
                encrypt=encrypt,
                filesize=len(speech.audio),
            )
        except NETWORK_ERRORS as exc:
            raise _unreachable(f"uploading {speech.name}", client, exc) from exc
        if isinstance(answer, UploadError):
            problem = f"uploading {speech.name} failed: {answer.status_code} {answer.message}"
            raise _refused(problem, answer.status_code)
        assert isinstance(answer, UploadResponse)
        return str(answer.content_uri), keys

    async def typing(self, room: str, on: bool) -> None:
        current = self._typing.get(room)
        if on and current is not None and not current.done():
            return  # already refreshing it
        if current is not None:
            current.cancel()
            del self._typing[room]
        if on:
            self._typing[room] = asyncio.create_task(self._keep_typing(room))
        elif self._get_client() is not None:
            await self._typing_state(room, False)

    def stop_typing(self) -> None:
        """Stop refreshing every typing notice (the adapter is stopping)."""
        for typing in list(self._typing.values()):
            typing.cancel()
        self._typing.clear()

    async def _keep_typing(self, room: str) -> None:
        while True:
            await self._typing_state(room, True)
            await asyncio.sleep(_TYPING_REFRESH)

    async def _typing_state(self, room: str, on: bool) -> None:
        client = self._get_client()
        if client is None:
            return
        try:
            answer = await client.room_typing(room, typing_state=on, timeout=30_000)
        except NETWORK_ERRORS as exc:
            log.warning("matrix.typing_failed", room=room, error=repr(exc))
            return
        if not hasattr(answer, "room_id"):
            log.warning("matrix.typing_failed", room=room, error=getattr(answer, "message", ""))
