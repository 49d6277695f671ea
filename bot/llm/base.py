"""The seam every language model backend implements.

The core speaks in provider-neutral :class:`Message` values; a backend translates them to its
wire format, translates its library's errors to :class:`~bot.daemon.errors.LLMError` (or
:class:`~bot.daemon.errors.LLMTransientError` when another try may work) and returns one
:class:`Completion` per call. The tool loop (:mod:`bot.toolloop`) and retries
(:mod:`bot.llm.retry`) live outside the backends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Completion",
    "LLMBackend",
    "Message",
    "Picture",
    "SystemPrompt",
    "TextSink",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
]

TextSink = Callable[[str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class SystemPrompt:
    """The system prompt in two parts.

    ``stable`` is the persona's own text (tiers 1-4), identical from one request to the next,
    so a provider with prompt caching can reuse it; ``dynamic`` is the per-request
    ``--- System ---`` block and recalled memories, placed after it.
    """

    stable: str
    dynamic: str = ""

    def joined(self) -> str:
        return "\n\n".join(part for part in (self.stable, self.dynamic) if part)

    def chars(self) -> int:
        """``len(self.joined())``, without building it."""
        return len(self.stable) + len(self.dynamic) + (2 if self.stable and self.dynamic else 0)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture as the model receives it (scaled down: :mod:`bot.media.images`)."""

    media_type: str
    data: bytes
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the conversation.

    ``role="user"`` with ``tool_results`` carries the answers to the previous assistant
    message's ``tool_calls``; ``pictures`` are shown with its text (only the message a
    turn answers carries them: earlier ones are their notes in the text).
    """

    role: Literal["user", "assistant"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    pictures: tuple[Picture, ...] = ()


@dataclass(slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(slots=True)
class Completion:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str = "end_turn"
    usage: Usage = field(default_factory=Usage)
    model: str = ""


class LLMBackend(ABC):
    """One configured language model."""

    name: str = "base"
    model: str = ""

    @abstractmethod
    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        """Ask the model once. When ``on_text`` is given, the backend streams and calls it
        with each piece of text as it arrives; the returned ``Completion`` holds all of it."""

    def warm(self) -> None:
        """Begin, in the background, whatever the first request would otherwise wait for
        (importing a client library); called once the daemon is serving."""
        return None

    async def close(self) -> None:
        """Release connections."""
        return None
