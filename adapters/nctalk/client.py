"""Posting messages as a Nextcloud Talk bot through the OCS bot API.

``POST {backend}/ocs/v2.php/apps/spreed/api/v1/bot/{token}/message`` with a JSON body
``{message, replyTo, referenceId, silent}``, signed over the message text (see
:mod:`adapters.nctalk.signing`). Talk answers:

====  ==================================================================================
201   posted
400   empty message or a ``replyTo`` outside the conversation     → :class:`TalkRejected`
401   signature refused (wrong secret, bot not enabled there)     → :class:`AdapterError`
403   the bot may not post there (removed from the conversation)  → ``PermanentSendError``
404   no such conversation                                        → ``PermanentSendError``
413   longer than the server's limit (32000 by default)           → :class:`MessageTooLong`
429   throttled after repeated 401s; 5xx; network errors          → retried with backoff
====  ==================================================================================

``PermanentSendError`` (:mod:`bot.daemon.errors`) tells the outbox to give the answer up; a 401 is
left to retry, since fixing the secret makes the same answer go through.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import aiohttp
import structlog

from adapters.nctalk.signing import (
    BOT_RANDOM_HEADER,
    BOT_SIGNATURE_HEADER,
    new_random,
    sign,
)
from bot.daemon.errors import AdapterError, PermanentSendError

__all__ = ["MessageTooLong", "TalkBotClient", "TalkRejected"]

log = structlog.get_logger(__name__)

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 60.0


class TalkRejected(AdapterError):
    """Talk answered 400: the message was empty or its ``replyTo`` was not accepted."""


class MessageTooLong(AdapterError):
    """Talk answered 413: the message is longer than this server accepts."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 5
    base_seconds: float = 1.0
    max_seconds: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, _MAX_RETRY_AFTER)
        backoff: float = min(self.max_seconds, self.base_seconds * 2.0**attempt)
        return backoff * (0.5 + random.random() / 2)


def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    raw = response.headers.get("Retry-After")
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:
        return None


class TalkBotClient:
    """One HTTP session to one Nextcloud server, posting signed bot messages."""

    def __init__(
        self,
        backend_url: str,
        secret: str,
        *,
        retry: RetryPolicy | None = None,
        timeout: float = 30.0,
    ) -> None:
        self._base = backend_url.rstrip("/")
        self._secret = secret
        self._retry = retry or RetryPolicy()
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def open(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def message_url(self, token: str) -> str:
        return f"{self._base}/ocs/v2.php/apps/spreed/api/v1/bot/{token}/message"

    async def post_message(
        self,
        token: str,
        message: str,
        *,
        reference_id: str,
        reply_to: int | None = None,
        silent: bool = False,
    ) -> None:
        """Post ``message`` to the conversation ``token``; return once Talk answered 201."""
        if self._session is None:
            raise AdapterError("nctalk: the adapter is not started")
        body: dict[str, object] = {
            "message": message,
            "referenceId": reference_id,
            "silent": silent,
        }
        if reply_to is not None:
            body["replyTo"] = reply_to
        attempt = 0
        while True:
            nonce = new_random()
            headers = {
                BOT_RANDOM_HEADER: nonce,
                BOT_SIGNATURE_HEADER: sign(self._secret, nonce, message),
                "OCS-APIRequest": "true",
                "Accept": "application/json",
            }
            retry_after: float | None = None
            try:
                async with self._session.post(
                    self.message_url(token), json=body, headers=headers
                ) as response:
                    status = response.status
                    retry_after = _retry_after(response)
                    await response.read()
            except (aiohttp.ClientError, TimeoutError) as exc:
                status = 0
                cause: BaseException | None = exc
            else:
                cause = None
            if status == 201:
                return
            if status not in _RETRY_STATUSES and status != 0:
                raise self._error(status, token)
            attempt += 1
            if attempt >= self._retry.attempts:
                what = f"HTTP {status}" if status else type(cause).__name__
                raise AdapterError(
                    f"nctalk: sending to {token} failed after {attempt} attempts ({what})",
                    user_message="Nextcloud Talk did not accept the message; try again later.",
                ) from cause
            delay = self._retry.delay(attempt - 1, retry_after)
            log.warning(
                "nctalk.send_retry",
                room=token,
                status=status,
                attempt=attempt,
                delay=round(delay, 2),
            )
            await asyncio.sleep(delay)

    @staticmethod
    def _error(status: int, token: str) -> AdapterError:
        if status == 401:
            return AdapterError(
                f"nctalk: Talk refused the bot's signature for {token} (HTTP 401): the secret "
                "does not match the one given to occ talk:bot:install, or the bot is not "
                "enabled in that conversation with the 'response' feature",
                user_message="Nextcloud Talk refused the bot's signature.",
            )
        if status == 403:
            return PermanentSendError(f"nctalk: Talk refused the bot in {token} (HTTP 403)")
        if status == 404:
            return PermanentSendError(f"nctalk: conversation {token} not found (HTTP 404)")
        if status == 413:
            return MessageTooLong(f"nctalk: message too long for {token} (HTTP 413)")
        if status == 400:
            return TalkRejected(f"nctalk: Talk refused the message for {token} (HTTP 400)")
        return AdapterError(f"nctalk: unexpected HTTP {status} sending to {token}")
