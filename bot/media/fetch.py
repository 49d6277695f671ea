"""Reading an attachment's bytes under a cap and a time limit.

Adapters fetch through their platform's client; whatever the transport, reading stops at
``limit`` bytes (a declared size is not believed). The caller bounds the time
(``asyncio.timeout``: :mod:`bot.media.prepare`). Each failure is a
:class:`~bot.daemon.errors.MediaError` whose ``user_message`` is one sentence for the chat.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable

import aiohttp

from bot.daemon.errors import MediaError

__all__ = ["fetch_url", "read_capped", "too_large", "unreachable"]

_CHUNK = 64 * 1024


def _megabytes(limit: int) -> str:
    return f"{limit / 1_000_000:.0f} MB" if limit >= 1_000_000 else f"{limit / 1000:.0f} kB"


def too_large(limit: int, name: str = "") -> MediaError:
    label = f"“{name}”" if name else "That file"
    return MediaError(
        f"attachment over {limit} bytes",
        user_message=f"{label} is larger than the {_megabytes(limit)} I accept for that kind"
        " of file, so I did not open it.",
    )


def unreachable(why: str) -> MediaError:
    return MediaError(
        f"attachment download failed: {why}",
        user_message="I couldn't fetch your attachment from the chat server; please send it again.",
    )


async def read_capped(chunks: AsyncIterable[bytes], limit: int, name: str = "") -> bytes:
    """Join ``chunks`` into bytes; :func:`too_large` once they pass ``limit``."""
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise too_large(limit, name)
    return bytes(data)


async def fetch_url(
    session: aiohttp.ClientSession,
    url: str,
    *,
    limit: int,
    name: str = "",
    headers: dict[str, str] | None = None,
    check: Callable[[aiohttp.ClientResponse], Awaitable[None]] | None = None,
) -> bytes:
    """GET ``url`` with ``session``: its body under ``limit`` bytes. A declared
    ``Content-Length`` over the limit is refused before reading; ``check`` may look at the
    response first (and raise)."""
    try:
        async with session.get(url, headers=headers) as response:
            if check is not None:
                await check(response)
            if response.status != 200:
                raise unreachable(f"HTTP {response.status}")
            if response.content_length is not None and response.content_length > limit:
                raise too_large(limit, name)
            return await read_capped(response.content.iter_chunked(_CHUNK), limit, name)
    except aiohttp.ClientError as exc:
        raise unreachable(type(exc).__name__) from exc
