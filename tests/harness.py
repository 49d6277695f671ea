"""Building blocks for tests that run the whole daemon in-process.

``ScriptedLLM`` is an in-process language model: it answers ``echo: <last user text>`` (or
what a test queued), streams its answer in small pieces, and records every request's system
prompt and messages. ``make_config`` writes nothing: it returns a validated ``Config`` for a
temporary data directory with the users and adapters a test names. ``RecordingAdapter`` is
an in-process adapter that keeps what the core sends; like a Matrix homeserver it answers a
repeated idempotency key with the message it already made, and ``down`` makes it refuse
every send and edit, as a platform that cannot be reached. Its ``files`` are the attachments
it serves (by ``ref``, under the download cap) and ``voices`` the spoken answers it posted.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import Adapter, AdapterContext, Attachment, Incoming, Speech
from bot.daemon.errors import AdapterError, MediaError, PermanentSendError
from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolCall, ToolSpec
from bot.media.fetch import read_capped
from bot.persona.store import PersonaStore
from bot.persona.template import create_persona
from bot.setup.config import Config

__all__ = [
    "RecordedCall",
    "RecordingAdapter",
    "ScriptedLLM",
    "make_config",
    "make_persona",
]


@dataclass
class RecordedCall:
    system: SystemPrompt
    messages: list[Message]
    tools: list[ToolSpec]


@dataclass
class ScriptedLLM(LLMBackend):
    """A zero-latency model. Queue answers with ``queue(text)`` or ``queue_tool(...)``."""

    name: str = "scripted"
    model: str = "scripted-1"
    calls: list[RecordedCall] = field(default_factory=list)
    _queue: deque[Completion | Exception] = field(default_factory=deque)
    chunk: int = 8
    delay: float = 0.0
    #: when given, streaming stops after the first piece until it is set (a slow model)
    hold: asyncio.Event | None = None
    #: when given, awaited once, at the next call, before it answers (what happens meanwhile)
    before_next: Callable[[], Awaitable[object]] | None = None

    def queue(self, text: str) -> None:
        self._queue.append(Completion(text=text))

    def queue_tool(self, name: str, arguments: dict[str, Any], text: str = "") -> None:
        call = ToolCall(id=f"call_{len(self._queue)}_{name}", name=name, arguments=arguments)
        self._queue.append(Completion(text=text, tool_calls=[call], stop_reason="tool_use"))

    def queue_error(self, error: Exception) -> None:
        self._queue.append(error)

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        self.calls.append(RecordedCall(system, list(messages), list(tools)))
        if self.before_next is not None:
            meanwhile, self.before_next = self.before_next, None
            await meanwhile()
        if self.delay:
            await asyncio.sleep(self.delay)
        if self._queue:
            item = self._queue.popleft()
            if isinstance(item, Exception):
                raise item
            completion = item
        else:
            last = next((m.text for m in reversed(messages) if m.role == "user" and m.text), "")
            completion = Completion(text=f"echo: {last}")
        if on_text is not None and completion.text:
            for start in range(0, len(completion.text), self.chunk):
                await on_text(completion.text[start : start + self.chunk])
                if self.hold is not None:
                    await self.hold.wait()
        return completion


class RecordingAdapter(Adapter):
    """An adapter whose platform is the test itself."""

    def __init__(
        self,
        context: AdapterContext,
        *,
        platform: str = "console",
        supports_edit: bool = False,
        max_message_chars: int = 4000,
    ) -> None:
        super().__init__(context)
        self.platform = platform
        self.supports_edit = supports_edit
        self.idempotent = True
        self.max_message_chars = max_message_chars
        self.sent: list[tuple[str, str]] = []
        self.edits: list[tuple[str, str, str]] = []
        self.typing_calls: list[tuple[str, bool]] = []
        self._ids = 0
        #: idempotency key -> the message id it made
        self.keys: dict[str, str] = {}
        #: while set, every send and edit fails as an unreachable platform would
        self.down = False
        self.refused = 0
        #: rooms the bot was removed from: a send or edit there is refused for good
        self.removed_from: set[str] = set()
        #: attachment ref -> its bytes, served by ``download``; how many bytes were read
        self.files: dict[str, bytes] = {}
        self.bytes_served = 0
        #: (room, speech) of each voice message posted
        self.voices: list[tuple[str, Speech]] = []

    async def start(self) -> None:
        self.health.running = True
        self.health.touch()

    async def stop(self) -> None:
        self.health.running = False

    def _refuse(self, room: str = "") -> None:
        if self.down:
            self.refused += 1
            raise AdapterError("the platform cannot be reached")
        if room in self.removed_from:
            self.refused += 1
            raise PermanentSendError(f"the bot was removed from {room}")

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        self._refuse(room)
        if key is not None and key in self.keys:
            return self.keys[key]
        self._ids += 1
        self.sent.append((room, text))
        if key is not None:
            self.keys[key] = str(self._ids)
        return str(self._ids)

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        self._refuse(room)
        self.edits.append((room, message_id, text))

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        data = self.files.get(attachment.ref)
        if data is None:
            raise MediaError("no such file", user_message="That file is gone from the server.")

        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(data), 65536):
                self.bytes_served += len(data[start : start + 65536])
                yield data[start : start + 65536]

        return await read_capped(chunks(), limit, attachment.name)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        self._refuse(room)
        if key is not None and key in self.keys:
            return self.keys[key]
        self._ids += 1
        self.voices.append((room, speech))
        if key is not None:
            self.keys[key] = str(self._ids)
        return str(self._ids)

    def final_texts(self) -> list[str]:
        """Each sent message's text after its last edit, in the order sent."""
        final = {str(i + 1): text for i, (_room, text) in enumerate(self.sent)}
        for _room, message_id, text in self.edits:
            final[message_id] = text
        return list(final.values())

    async def typing(self, room: str, on: bool) -> None:
        self.typing_calls.append((room, on))

    async def deliver(
        self, text: str, *, sender: str, room: str = "room1", event_id: str, **kw: Any
    ) -> None:
        await self.context.handler(
            Incoming(
                platform=self.platform, sender=sender, room=room, text=text, event_id=event_id, **kw
            )
        )

    def texts(self) -> list[str]:
        return [text for _room, text in self.sent]


def make_config(
    data_dir: Path,
    *,
    users: dict[str, dict[str, Any]] | None = None,
    adapters: dict[str, dict[str, Any]] | None = None,
    memory_backend: str = "none",
    extra: dict[str, Any] | None = None,
) -> Config:
    """A validated config for tests: chat role on a backend named ``scripted``."""
    tree: dict[str, Any] = {
        "daemon": {"data_dir": str(data_dir), "stream_edit_seconds": 0.1},
        "http": {"enabled": False, "port": 0},
        "llm": {
            "backends": {
                "scripted": {
                    "kind": "openai_compat",
                    "model": "scripted-1",
                    "base_url": "http://127.0.0.1:9/v1",
                }
            },
            "roles": {"chat": {"backend": "scripted"}, "distill_mid": {}, "distill_long": {}},
        },
        "memory": {"backend": memory_backend, "embeddings": "off"},
        "users": users
        or {
            "scott": {
                "identities": ["console:scott"],
                "admin": True,
                "timezone": "America/New_York",
            },
            "holly": {"identities": ["console:holly"], "timezone": "Europe/Lisbon"},
        },
        "adapters": adapters or {},
    }
    for key, value in (extra or {}).items():
        tree.setdefault(key, {}).update(value)
    return Config.model_validate(tree)


def make_persona(data_dir: Path, user: str, persona: str = "inara") -> Path:
    return create_persona(PersonaStore(data_dir), user, persona, template="inara")
