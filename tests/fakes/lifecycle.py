"""``async with`` for the fake servers: each defines ``start`` and ``stop``."""

from __future__ import annotations

import random
import socket
from typing import Self

__all__ = ["ServerContext", "quiet_port"]


def quiet_port() -> int:
    """A free loopback port below the ephemeral range, for a daemon started as a process:
    polling a port the kernel may also hand out as a client's own can connect the poller to
    itself before the daemon listens."""
    while True:
        port = random.randrange(20_000, 30_000)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


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
