"""The local console: one message per line from stdin, each answer printed to stdout.

It goes through the same router and sessions as every chat platform. In a terminal the answer
streams in as the model writes it (the adapter "edits" by printing what is new); through a
pipe each answer is printed whole, followed by a newline. Blank lines are skipped. Lines
are handled one after the other, so piped conversations keep their order.

Standard input is read by a daemon thread of its own with ``os.read``: a read that blocks on
a pipe or terminal that stays open (``personad run`` under a supervisor) must not hold up
shutdown, and a thread of the loop's executor would be waited for at exit.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import io
import itertools
import os
import sys
import threading
import uuid
from collections.abc import Callable
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
        #: lines read so far; one reading thread for the adapter's life, so a restart does
        #: not leave two threads taking turns at the same input
        self._lines: asyncio.Queue[str] | None = None
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
        if self._lines is None:
            self._lines = asyncio.Queue()
            _start_reader(self.stdin, asyncio.get_running_loop(), self._lines.put_nowait)
        try:
            while True:
                self._prompt()
                line = await self._lines.get()
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


def _start_reader(
    stdin: TextIO, loop: asyncio.AbstractEventLoop, deliver: Callable[[str], None]
) -> None:
    """Hand each line of ``stdin`` to ``deliver`` on the loop, then ``""`` at its end."""
    try:
        fd: int | None = stdin.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None  # an in-memory stream (tests): it never blocks

    def to_loop(line: str) -> bool:
        try:
            loop.call_soon_threadsafe(deliver, line)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            return False
        return True

    def read_fd(fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            pending += decoder.decode(chunk, final=not chunk)
            *complete, pending = pending.split("\n")
            for line in complete:
                if not to_loop(line + "\n"):
                    return
            if not chunk:
                if pending:
                    to_loop(pending)
                to_loop("")
                return

    def read_stream() -> None:
        while True:
            line = stdin.readline()
            if not to_loop(line) or not line:
                return

    target = read_stream if fd is None else (lambda: read_fd(fd))
    threading.Thread(target=target, name="console-stdin", daemon=True).start()


def create(settings: Settings, context: AdapterContext) -> ConsoleAdapter:
    return ConsoleAdapter(context, sender=settings.user, stream=settings.stream)
