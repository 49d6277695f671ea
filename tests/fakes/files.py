"""Files on the fake servers: what a user sent (served to the bot in writes it can cut off)
and what the bot uploaded (read from a multipart body)."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

__all__ = ["StoredFile", "Upload", "serve", "upload"]

_WRITE = 64 * 1024


@dataclass(slots=True)
class StoredFile:
    """A file a user sent: its bytes, the size the platform declares, how it is served
    (``chunked``: with no ``Content-Length``)."""

    path: str
    data: bytes
    size: int | None
    chunked: bool = False


@dataclass(frozen=True, slots=True)
class Upload:
    """A file the bot uploaded in a multipart request."""

    filename: str
    content_type: str
    data: bytes


def upload(field: web.FileField) -> Upload:
    return Upload(field.filename, field.content_type, field.file.read())


async def serve(
    request: web.Request, stored: StoredFile, served: dict[str, int]
) -> web.StreamResponse:
    """Send ``stored``'s bytes in 64 kB writes; once the download ends (finished, or cut off by
    the bot), ``served[stored.path]`` is how many bytes were written."""
    response = web.StreamResponse()
    response.content_type = "application/octet-stream"
    if not stored.chunked:
        response.content_length = len(stored.data)
    sent = 0
    try:
        await response.prepare(request)
        for start in range(0, len(stored.data), _WRITE):
            chunk = stored.data[start : start + _WRITE]
            await response.write(chunk)
            sent += len(chunk)
        await response.write_eof()
    except ConnectionError:
        pass  # the bot stopped reading
    finally:
        served[stored.path] = sent
    return response
