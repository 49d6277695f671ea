"""A chat message sent from the browser with files: read into memory, never to disk.

aiohttp's own form reader spools a file field over 1 MB to a temporary file; a picture or a
voice note sent Off The Record must not touch the disk at all, so a message's multipart body
is read part by part here, each file under its cap. The page's script sends the form with the
CSRF token in its header (:mod:`bot.web.guard`), so nothing here needs the ``csrf`` field.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from aiohttp import BodyPartReader, web

from bot.daemon.errors import MediaError
from bot.media.fetch import read_capped

__all__ = ["Sent", "Upload", "read_sent"]

_CHUNK = 64 * 1024
#: characters of the text field read at most (the router says if it is too long)
_TEXT_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class Upload:
    name: str
    mime: str
    data: bytes
    #: recorded in the page as a voice note
    voice: bool = False


@dataclass(slots=True)
class Sent:
    text: str = ""
    uploads: list[Upload] = field(default_factory=list)


async def _chunks(part: BodyPartReader) -> AsyncIterator[bytes]:
    while chunk := await part.read_chunk(_CHUNK):
        yield chunk


async def read_sent(request: web.Request, *, file_limit: int, max_files: int) -> Sent:
    """The text and files of a multipart chat message; 413 for a file over ``file_limit``
    bytes or more than ``max_files`` files, 400 for a body that is not a form."""
    sent = Sent()
    try:
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                raise ValueError("nested multipart")
            if part.filename is None:
                value = await read_capped(_chunks(part), _TEXT_LIMIT)
                if part.name == "text":
                    sent.text = value.decode("utf-8", errors="replace")
                continue
            if part.name not in ("file", "voice"):
                continue
            if len(sent.uploads) >= max_files:
                raise MediaError(
                    "too many files", user_message=f"At most {max_files} files go in one message."
                )
            data = await read_capped(_chunks(part), file_limit, part.filename)
            # a file input left empty comes as a part without a name; a chosen file of no
            # bytes is kept, so its turn says it is empty instead of the text going alone
            if data or part.filename:
                mime = part.headers.get("Content-Type", "application/octet-stream")
                sent.uploads.append(Upload(part.filename, mime, data, part.name == "voice"))
    except MediaError as exc:
        raise web.HTTPRequestEntityTooLarge(
            max_size=file_limit, actual_size=file_limit + 1, text=exc.user_message
        ) from exc
    except ValueError as exc:
        raise web.HTTPBadRequest(text="That message could not be read as a form.") from exc
    return sent
