"""Signing the Matrix client in, reusing one device across restarts.

With an access token from the config the client checks it with ``whoami`` and uses it. With a
password it first tries the token saved by an earlier run (``context.state``: ``user_id``,
``device_id``, ``access_token``); only when the homeserver no longer accepts that token does it
log in again, asking for the same device id, so end-to-end keys and the device list stay put.
"""

from __future__ import annotations

import aiohttp
import structlog
from nio import AsyncClient, LoginError, WhoamiError, WhoamiResponse

from adapters.base import KeyValueStore
from bot.daemon.connection_reason import connection_reason
from bot.daemon.errors import AdapterError, CredentialsRejected
from bot.daemon.logs import register_secret

__all__ = ["Credentials", "sign_in"]

log = structlog.get_logger(__name__)

_NETWORK_ERRORS = (aiohttp.ClientError, TimeoutError)


class Credentials:
    """What :func:`sign_in` needs: the account, and a token or a password (already resolved)."""

    def __init__(
        self, user_id: str, *, password: str | None, access_token: str | None, device_name: str
    ) -> None:
        self.user_id = user_id
        self.password = password
        self.access_token = access_token
        self.device_name = device_name


def _unreachable(client: AsyncClient, exc: BaseException) -> str:
    """One line naming the homeserver and why it did not answer (never a repr)."""
    url = str(client.homeserver)
    return f"cannot reach the homeserver {url}: {connection_reason(exc, url)}"


async def _whoami(client: AsyncClient, token: str) -> WhoamiResponse | WhoamiError:
    client.access_token = token
    try:
        return await client.whoami()
    except _NETWORK_ERRORS as exc:
        raise AdapterError(
            _unreachable(client, exc), user_message="The Matrix homeserver cannot be reached."
        ) from exc


#: answers that say the credentials themselves are wrong (not a passing problem)
_REJECTED = frozenset(
    {
        "M_FORBIDDEN",
        "M_UNKNOWN_TOKEN",
        "M_MISSING_TOKEN",
        "M_USER_DEACTIVATED",
        "M_INVALID_USERNAME",
    }
)


async def sign_in(client: AsyncClient, credentials: Credentials, state: KeyValueStore) -> None:
    """Log ``client`` in and remember its device; raise :class:`AdapterError` if refused."""
    if credentials.access_token:
        answer = await _whoami(client, credentials.access_token)
        if isinstance(answer, WhoamiError):
            if answer.status_code in _REJECTED:
                raise CredentialsRejected(
                    f"the homeserver refused the access token: {answer.message}"
                )
            raise AdapterError(f"the homeserver could not check the access token: {answer.message}")
        if credentials.user_id and answer.user_id != credentials.user_id:
            raise CredentialsRejected(
                f"the access token belongs to {answer.user_id}, not {credentials.user_id}"
            )
        device = answer.device_id or await state.get("device_id") or ""
        client.restore_login(answer.user_id, device, credentials.access_token)
        await state.set("device_id", device)
        log.info("matrix.signed_in", user=answer.user_id, device=device, via="access_token")
        return

    saved_user = await state.get("user_id")
    saved_token = await state.get("access_token")
    register_secret(saved_token)  # masked in every log line
    saved_device = await state.get("device_id")
    if saved_token and saved_user == credentials.user_id:
        answer = await _whoami(client, saved_token)
        if isinstance(answer, WhoamiResponse) and answer.user_id == credentials.user_id:
            device = answer.device_id or saved_device or ""
            client.restore_login(answer.user_id, device, saved_token)
            log.info("matrix.signed_in", user=answer.user_id, device=device, via="saved_token")
            return
        if isinstance(answer, WhoamiError) and answer.status_code not in (
            "M_UNKNOWN_TOKEN",
            "M_MISSING_TOKEN",
            "M_FORBIDDEN",
        ):
            raise AdapterError(f"the homeserver could not check the saved login: {answer.message}")
        client.access_token = ""

    if not credentials.password:
        raise CredentialsRejected(
            "no Matrix password or access token configured "
            "(adapters.matrix.password_env or adapters.matrix.access_token_env)"
        )
    client.user = credentials.user_id
    client.device_id = saved_device if saved_user == credentials.user_id else None
    try:
        answer_login = await client.login(
            password=credentials.password, device_name=credentials.device_name
        )
    except _NETWORK_ERRORS as exc:
        raise AdapterError(_unreachable(client, exc)) from exc
    if isinstance(answer_login, LoginError):
        problem = f"Matrix login as {credentials.user_id} failed: {answer_login.message}"
        if answer_login.status_code in _REJECTED:  # retrying cannot help: a person must act
            raise CredentialsRejected(problem)
        raise AdapterError(problem)
    await state.set("user_id", answer_login.user_id)
    await state.set("device_id", answer_login.device_id)
    register_secret(answer_login.access_token)
    await state.set("access_token", answer_login.access_token)
    log.info(
        "matrix.signed_in", user=answer_login.user_id, device=answer_login.device_id, via="password"
    )
