"""Attachments downloaded from the homeserver's media repository, under a cap.

:func:`download` fetches an ``mxc://`` URL through the client's own HTTP session from the
authenticated endpoint (``/_matrix/client/v1/media/download``, the one current homeservers
serve; the bot's access token goes in the header). nio's own ``AsyncClient.download`` reads
the whole body before it returns, so this reads the response itself and stops at the limit;
a declared size (the event's ``info.size``, the response's ``Content-Length``) over the
limit is refused before reading. An encrypted file is checked against its SHA-256 and
decrypted in memory; a mismatch is refused.

Every failure is a :class:`~bot.daemon.errors.MediaError` (the caller bounds the time).
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import aiohttp
from nio import AsyncClient
from nio.api import MATRIX_MEDIA_API_PATH
from nio.crypto.attachments import decrypt_attachment
from nio.exceptions import EncryptionError

from adapters.base import Attachment
from adapters.matrix.attachments import MediaRef
from bot.daemon.connection_reason import connection_reason
from bot.daemon.errors import MediaError
from bot.media.fetch import read_capped, too_large, unreachable

__all__ = ["download"]

_CHUNK = 64 * 1024
_NETWORK_ERRORS = (aiohttp.ClientError, TimeoutError)


def _damaged(name: str, why: str) -> MediaError:
    label = f"“{name}”" if name else "Your file"
    return MediaError(
        f"encrypted attachment cannot be opened: {why}",
        user_message=f"{label} arrived damaged (it fails its encryption check), so I did not"
        " open it; please send it again.",
    )


def _download_path(mxc: str) -> str:
    parts = urlsplit(mxc)
    server, media_id = parts.netloc, parts.path.lstrip("/")
    if not server or not media_id or "/" in media_id:
        raise unreachable(f"not a media URL: {mxc}")
    return f"{MATRIX_MEDIA_API_PATH}/download/{quote(server, safe='')}/{quote(media_id, safe='')}"


async def _fetch(client: AsyncClient, url: str, limit: int, name: str) -> bytes:
    headers = {"Authorization": f"Bearer {client.access_token}"}
    try:
        # timeout 0: no limit of nio's own; the caller bounds the whole download
        response = await client.send("GET", _download_path(url), headers=headers, timeout=0)
        async with response:
            if response.status != 200:
                raise unreachable(f"HTTP {response.status} for {url}")
            if response.content_length is not None and response.content_length > limit:
                raise too_large(limit, name)
            return await read_capped(response.content.iter_chunked(_CHUNK), limit, name)
    except _NETWORK_ERRORS as exc:
        raise unreachable(connection_reason(exc, str(client.homeserver))) from exc


async def download(client: AsyncClient, attachment: Attachment, *, limit: int) -> bytes:
    """The bytes of ``attachment``, decrypted if it is an encrypted file."""
    ref = MediaRef.parse(attachment.ref)
    if ref is None:
        raise unreachable("the attachment's handle is not a Matrix media reference")
    if attachment.size is not None and attachment.size > limit:
        raise too_large(limit, attachment.name)
    data = await _fetch(client, ref.url, limit, attachment.name)
    if not ref.encrypted:
        return data
    try:
        plain: bytes = decrypt_attachment(data, ref.key, ref.sha256, ref.iv)
    except EncryptionError as exc:
        raise _damaged(attachment.name, str(exc)) from exc
    return plain
