"""The local console: one message per line from stdin, each answer printed to stdout.

It goes through the same router and sessions as every chat platform. In a terminal the answer
streams in as the model writes it (the adapter "edits" by printing what is new); through a
pipe each answer is printed whole, followed by a newline. Blank lines are skipped. The
adapter reads the next line only after the previous one was answered, so piped
conversations keep their order.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import uuid
from typing import TextIO

from adapters.base import Adapter, AdapterContext, AdapterSettings, Incoming

__all__ = ["ConsoleAdapter", "Settings", "create"]


class Settings(AdapterSettings):
    user: str = ""
    stream: bool | None = None


class ConsoleAdapter(Adapter):
    platform = "console"
    max_message_chars = 1_000_000

    def __init__(
        self,
        context: AdapterContext,
        *,
        sender: str,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stream: bool | None = None,
    ) -> None:
        super().__init__(context)
        self.sender = sender
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        interactive = self.stdin.isatty() and self.stdout.isatty()
        self.interactive = interactive
        self.supports_edit = interactive if stream is None else stream
        self._ids = itertools.count(1)
        self._run_id = uuid.uuid4().hex[:12]
        self._printed = ""
        self._open_line = False
        self._reader: asyncio.Task[None] | None = None
        self.finished = asyncio.Event()

    async def start(self) -> None:
        self.health.running = True
        self.health.touch("reading stdin")
        self.finished.clear()
        self._reader = asyncio.create_task(self._read_loop())

    async def stop(self) -> None:
        self.health.running = False
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._reader = None
        self.finished.set()

    def _prompt(self) -> None:
        if self.interactive:
            self.stdout.write("› ")
            self.stdout.flush()

    async def _read_loop(self) -> None:
        try:
            while True:
                self._prompt()
                line = await asyncio.to_thread(self.stdin.readline)
                if not line:
                    break
                text = line.rstrip("\r\n")
                if not text.strip():
                    continue
                self.health.touch()
                incoming = Incoming(
                    platform=self.platform,
                    sender=self.sender,
                    room="console",
                    text=text,
                    event_id=f"{self._run_id}:{next(self._ids)}",
                )
                await self.context.handler(incoming)
        finally:
            if self.interactive:
                self.stdout.write("\n")
                self.stdout.flush()
            self.finished.set()

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if self._open_line:
            self._write("\n")
        if self.supports_edit:
            self._write(text)
            self._printed = text
            self._open_line = True
        else:
            self._write(text + "\n")
        return str(next(self._ids))

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        if text.startswith(self._printed):
            self._write(text[len(self._printed) :])
        else:
            self._write("\n" + text)
        self._printed = text
        self._open_line = True

    async def reply_done(self, room: str) -> None:
        if self._open_line:
            self._write("\n")
            self._open_line = False
            self._printed = ""


def create(settings: Settings, context: AdapterContext) -> ConsoleAdapter:
    return ConsoleAdapter(context, sender=settings.user, stream=settings.stream)
