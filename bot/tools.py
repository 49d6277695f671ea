"""Tools the language model may call, and the registry the tool loop dispatches through.

A :class:`Tool` pairs the schema the model sees with an async handler that takes the
arguments the model gave and returns text. A handler raises :class:`ToolFailed` for an
error the model should read and correct; any other exception is logged and reported to the
model as an internal error, never raised into the turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.llm.base import ToolSpec

T = TypeVar("T")

__all__ = ["Tool", "ToolFailed", "ToolHandler", "ToolRegistry", "find_by_words"]

ToolHandler = Callable[[dict[str, Any]], Awaitable[str]]


class ToolFailed(Exception):
    """A tool call that cannot be carried out, explained for the model."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: ToolHandler

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)


class ToolRegistry:
    """The tools of one turn, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: list[ToolSpec] | None = None
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"duplicate tool name {tool.name!r}")
        self._tools[tool.name] = tool
        self._specs = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

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
