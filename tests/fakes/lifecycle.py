"""``async with`` for the fake servers: each defines ``start`` and ``stop``."""

from __future__ import annotations

from typing import Self

__all__ = ["ServerContext"]


class ServerContext:
    """``async with fake:`` starts the server and stops it on the way out."""

    async def start(self) -> None:
        raise RuntimeError(f"{type(self).__name__} must define start()")

    async def stop(self) -> None:
        raise RuntimeError(f"{type(self).__name__} must define stop()")

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
