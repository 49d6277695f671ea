"""The homeserver's media repository: attachments downloaded under a cap, audio uploaded.

:func:`download` fetches an ``mxc://`` URL through the client's own HTTP session from the
authenticated endpoint (``/_matrix/client/v1/media/download``, the one current homeservers
serve; the bot's access token goes in the header). nio's own ``AsyncClient.download`` reads
the whole body before it returns, so this reads the response itself and stops at the limit;
a declared size (the event's ``info.size``, the response's ``Content-Length``) over the
limit is refused before reading. An encrypted file is checked against its SHA-256 and
decrypted in memory; a mismatch is refused.

:func:`upload` stores bytes with nio's ``AsyncClient.upload``, encrypted for an encrypted
room (nio returns the key, iv and hashes for the event's ``file``).

Every failure to download is a :class:`~bot.daemon.errors.MediaError` (the caller bounds the
time); a failed upload is an ``AdapterError``, ``PermanentSendError`` when the homeserver
refuses the file for good.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import quote, urlsplit

import aiohttp
import structlog
from nio import AsyncClient, UploadError, UploadResponse
from nio.api import MATRIX_MEDIA_API_PATH
from nio.crypto.attachments import decrypt_attachment
from nio.exceptions import EncryptionError

from adapters.base import Attachment
from adapters.matrix.attachments import MediaRef
from bot.daemon.connection_reason import connection_reason
from bot.daemon.errors import AdapterError, MediaError, PermanentSendError
from bot.media.fetch import read_capped, too_large, unreachable

__all__ = ["download", "upload"]

log = structlog.get_logger(__name__)

_CHUNK = 64 * 1024
_NETWORK_ERRORS = (aiohttp.ClientError, TimeoutError)
#: what a homeserver says to an upload it will never take
_REFUSED_UPLOADS = frozenset({"M_TOO_LARGE", "M_FORBIDDEN"})


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


async def upload(
    client: AsyncClient, data: bytes, *, mime: str, name: str, encrypt: bool
) -> tuple[str, dict[str, Any] | None]:
    """Store ``data``; return its ``mxc://`` URL and, with ``encrypt``, the decryption info
    (``v``, ``key``, ``iv``, ``hashes``) an event's ``file`` carries next to the URL."""
    try:
        answer, keys = await client.upload(
            io.BytesIO(data), content_type=mime, filename=name, encrypt=encrypt, filesize=len(data)
        )
    except _NETWORK_ERRORS as exc:
        raise AdapterError(
            f"uploading {name} failed: {connection_reason(exc, str(client.homeserver))}",
            user_message="The Matrix homeserver cannot be reached.",
        ) from exc
    if isinstance(answer, UploadError):
        problem = f"uploading {name} failed: {answer.status_code} {answer.message}"
        if answer.status_code in _REFUSED_UPLOADS:
            raise PermanentSendError(problem)
        raise AdapterError(problem)
    assert isinstance(answer, UploadResponse)
    log.debug("matrix.uploaded", url=answer.content_uri, size=len(data), encrypted=encrypt)
    return str(answer.content_uri), keys
