"""The HTTP endpoint Nextcloud Talk delivers webhooks to.

Every request is checked in this order, and nothing is read past a failed step:

1. the three headers are present (``X-Nextcloud-Talk-Random``, ``-Signature``, ``-Backend``)
   and the backend names the configured server (trailing slash ignored): else **401**;
2. the body is at most ``max_body_bytes`` (read in chunks, never all at once): else **413**;
3. the signature matches HMAC-SHA256(secret, random + raw body): else **401**;
4. the body is JSON of the shape Talk sends: else **400** with a log line;
5. events that are not a chat message (joins, reactions, system messages): **200**, ignored.

A chat message is answered **200** at once and handed to ``deliver`` (which runs the slow
turn in the background), since Talk gives a webhook five seconds before counting an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import structlog
from aiohttp import web

from adapters.base import Incoming
from adapters.nctalk.payload import Ignored, PayloadError, parse_event
from adapters.nctalk.signing import (
    BACKEND_HEADER,
    RANDOM_HEADER,
    SIGNATURE_HEADER,
    normalise_backend,
    verify,
)

__all__ = ["WebhookEndpoint"]

log = structlog.get_logger(__name__)

_CHUNK = 64 * 1024


class _TooLarge(Exception):
    """The webhook body was larger than the configured limit."""


async def _read_capped(request: web.Request, limit: int) -> bytes:
    if request.content_length is not None and request.content_length > limit:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(status: int, text: str) -> web.Response:
    return web.json_response({"status": text}, status=status)


class WebhookEndpoint:
    """An aiohttp handler: verifies, parses and passes chat messages on to ``deliver``.

    ``on_verified`` is called for every delivery whose signature checks out (liveness);
    ``accepting`` says whether the adapter is running (503 otherwise, so Talk logs it).
    """

    def __init__(
        self,
        *,
        secret: str,
        backend_url: str,
        deliver: Callable[[Incoming], None],
        on_verified: Callable[[], None],
        accepting: Callable[[], bool],
        mention_name: str = "",
        direct_rooms: frozenset[str] = frozenset(),
        max_body_bytes: int = 1 << 20,
    ) -> None:
        self._secret = secret
        self._backend = normalise_backend(backend_url)
        self._deliver = deliver
        self._on_verified = on_verified
        self._accepting = accepting
        self._mention_name = mention_name
        self._direct_rooms = direct_rooms
        self._max_body_bytes = max_body_bytes

    async def handle(self, request: web.Request) -> web.Response:
        random = request.headers.get(RANDOM_HEADER, "")
        signature = request.headers.get(SIGNATURE_HEADER, "")
        backend = request.headers.get(BACKEND_HEADER, "")
        if not random or not signature or not backend:
            log.warning(
                "nctalk.webhook_refused", reason="missing signature headers", remote=request.remote
            )
            return _answer(401, "unauthorized")
        if normalise_backend(backend) != self._backend:
            log.warning(
                "nctalk.webhook_refused",
                reason="unknown backend",
                backend=backend,
                remote=request.remote,
            )
            return _answer(401, "unauthorized")
        try:
            body = await _read_capped(request, self._max_body_bytes)
        except _TooLarge:
            log.warning(
                "nctalk.webhook_refused",
                reason="body too large",
                limit=self._max_body_bytes,
                remote=request.remote,
            )
            return _answer(413, "too large")
        if not verify(self._secret, random, body, signature):
            log.warning("nctalk.webhook_refused", reason="bad signature", remote=request.remote)
            return _answer(401, "unauthorized")
        self._on_verified()
        if not self._accepting():
            log.warning("nctalk.webhook_while_stopped")
            return _answer(503, "not running")
        return self._handle(body)

    def _handle(self, body: bytes) -> web.Response:
        try:
            payload = json.loads(body)
            event = parse_event(
                payload, mention_name=self._mention_name, direct_rooms=self._direct_rooms
            )
        except (ValueError, PayloadError) as exc:
            log.warning("nctalk.webhook_malformed", error=str(exc), size=len(body))
            return _answer(400, "malformed")
        if isinstance(event, Ignored):
            log.debug("nctalk.webhook_ignored", reason=event.reason)
            return _answer(200, "ignored")
        log.info(
            "nctalk.message",
            room=event.room,
            event_id=event.event_id,
            kind=event.kind,
            direct=event.is_direct,
            addressed=event.addressed,
        )
        self._deliver(event)
        return _answer(200, "accepted")
