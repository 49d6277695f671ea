"""Tools the language model may call, and the registry the tool loop dispatches through.

A :class:`Tool` pairs the schema the model sees with an async handler that takes the
arguments the model gave and returns text, and declares what it does: ``persists`` (it
writes something that outlives the turn), ``private`` (its result shows the user's private
material), ``memory`` (it consults long-term memory) and ``admin`` (only for admins). Which
of them a turn may use is decided in one place, :mod:`bot.tools.gate`; a registry holds the
tools a turn may call, the reason each withheld one was withheld, and the turn's
:class:`CallLimits`. A handler raises :class:`ToolFailed` for an error the model should read
and correct; any other exception is logged and reported to the model as an internal error,
never raised into the turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.llm.base import ToolSpec

T = TypeVar("T")

__all__ = [
    "CallLimits",
    "Tool",
    "ToolFailed",
    "ToolHandler",
    "ToolRegistry",
    "find_by_words",
    "saving",
]

ToolHandler = Callable[[dict[str, Any]], Awaitable[str]]


class ToolFailed(Exception):
    """A tool call that cannot be carried out, explained for the model."""


@contextlib.contextmanager
def saving(filename: str) -> Iterator[None]:
    """Inside a tool: a file that cannot be written (disk full, read-only folder) becomes a
    ToolFailed the model can pass on; the atomic write left the old file as it was."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ToolFailed(f"{filename} could not be saved ({reason}); nothing changed") from None


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: ToolHandler
    #: writes something that outlives the turn (a persona file, the memory store)
    persists: bool = False
    #: its result shows the user's private material (notes, lists, memories)
    private: bool = False
    #: consults long-term memory, which Off The Record leaves alone entirely
    memory: bool = False
    #: only an admin's turn may use it
    admin: bool = False

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)


@dataclass(frozen=True, slots=True)
class CallLimits:
    """How many tool calls the model may make in one step (one answer) and in one turn;
    calls past either are refused, not run (``llm.max_tool_calls_per_step`` and
    ``llm.max_tool_calls_per_turn``)."""

    per_step: int = 8
    per_turn: int = 32

    def __post_init__(self) -> None:
        if self.per_step < 1 or self.per_turn < 1:
            raise ValueError("tool call limits must be at least 1")


class ToolRegistry:
    """The tools of one turn, by name, with the ones withheld from it and why."""

    def __init__(self, tools: Iterable[Tool] = (), *, limits: CallLimits | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._withheld: dict[str, str] = {}
        self._specs: list[ToolSpec] | None = None
        self.limits = limits or CallLimits()
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools or tool.name in self._withheld:
            raise ValueError(f"duplicate tool name {tool.name!r}")
        self._tools[tool.name] = tool
        self._specs = None

    def withhold(self, tool: Tool, reason: str) -> None:
        """Keep ``tool`` from the turn: it is not offered, and a call to it gets ``reason``."""
        if tool.name in self._tools or tool.name in self._withheld:
            raise ValueError(f"duplicate tool name {tool.name!r}")
        self._withheld[tool.name] = reason

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def withheld(self, name: str) -> str | None:
        """Why the tool ``name`` may not be used this turn, or None."""
        return self._withheld.get(name)

    @property
    def specs(self) -> list[ToolSpec]:
        if self._specs is None:
            self._specs = [tool.spec for tool in self._tools.values()]
        return list(self._specs)

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools


def find_by_words(
    items: Sequence[T],
    match: str,
    text: Callable[[T], str],
    describe: Callable[[T], str],
    *,
    subject: str,
    plural: str,
    key: str,
) -> T:
    """The one item whose ``text`` contains ``match`` (an exact match wins among several),
    or a ToolFailed naming the candidates and telling the model to use ``key`` instead."""
    needle = match.strip().casefold()
    found = [item for item in items if needle in text(item).casefold()]
    exact = [item for item in found if text(item).casefold() == needle]
    if len(exact) == 1 or len(found) == 1:
        return (exact or found)[0]
    if not found:
        raise ToolFailed(f"no {subject} mentions {match!r}")
    listing = "; ".join(describe(item) for item in found)
    raise ToolFailed(f"{match!r} matches several {plural} ({listing}); use {key!r}")
