"""The bounded tool-use loop between the language model and the tools of a turn.

The model answers; if it asked for tools, each is run and its result sent back; this repeats
until the model answers without tools or ``max_steps`` is reached, when it is asked once more
with no tools offered so the user always gets words back. A tool that fails reports an error
result to the model; it never breaks the turn.

The registry's :class:`~bot.tools.registry.CallLimits` bound the calls: past the per-step
or the per-turn cap a call is answered with a refusal and not run (a hostile or looping
model cannot add two thousand tasks in one answer), and once the turn's cap is spent no
tools are offered any more. A call to a tool the gate withheld gets the gate's reason.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

import structlog

from bot.llm.base import (
    Completion,
    LLMBackend,
    Message,
    SystemPrompt,
    TextSink,
    ToolCall,
    ToolResult,
)
from bot.tools.registry import ToolFailed, ToolRegistry

__all__ = ["ToolLoopResult", "run_tool_loop"]

log = structlog.get_logger(__name__)

_MAX_RESULT_CHARS = 20_000


@dataclass(slots=True)
class ToolLoopResult:
    text: str
    steps: int
    tool_calls: list[ToolCall] = field(default_factory=list)
    completions: list[Completion] = field(default_factory=list)


def _over_cap(call: ToolCall, what: str, cap: int) -> ToolResult:
    return ToolResult(
        call.id,
        f"Refused: at most {cap} tool calls {what}; this call was not run. "
        "Do the most important ones first, fewer at a time.",
        is_error=True,
    )


def _names(tools: ToolRegistry, calls: Sequence[ToolCall]) -> list[str]:
    """The tools called, for the log: a name the model made up could carry any text, so
    only names of this turn's tools (offered or withheld) are written."""
    known = {c.name for c in calls if c.name in tools or tools.withheld(c.name) is not None}
    unknown = ["(unknown)"] if any(c.name not in known for c in calls) else []
    return sorted(known) + unknown


async def _run_tool(tools: ToolRegistry, call: ToolCall) -> ToolResult:
    tool = tools.get(call.name)
    if tool is None:
        reason = tools.withheld(call.name)
        if reason is not None:
            return ToolResult(call.id, reason, is_error=True)
        return ToolResult(call.id, f"There is no tool named {call.name!r}.", is_error=True)
    try:
        content = await tool.handler(call.arguments)
    except ToolFailed as exc:
        return ToolResult(call.id, str(exc), is_error=True)
    except Exception as exc:
        # the type and the place, not the message or a traceback: either may quote what
        # the model passed, which may be Off The Record text
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
        log.error("tool.failed", tool=call.name, error=type(exc).__name__, at=where)
        return ToolResult(call.id, f"The tool {call.name} failed internally.", is_error=True)
    if len(content) > _MAX_RESULT_CHARS:
        content = content[:_MAX_RESULT_CHARS] + "\n[… result cut]"
    return ToolResult(call.id, content)


class _Joiner:
    """Streams each step's text to the sink, separating steps by a blank line."""

    def __init__(self, sink: TextSink | None) -> None:
        self.sink = sink
        self.parts: list[str] = []
        self._step_started = False

    def start_step(self) -> None:
        self._step_started = False

    async def __call__(self, delta: str) -> None:
        if not delta:
            return
        if not self._step_started:
            self._step_started = True
            if self.parts and self.parts[-1] and self.sink is not None:
                await self.sink("\n\n")
        if self.sink is not None:
            await self.sink(delta)


async def run_tool_loop(
    llm: LLMBackend,
    *,
    system: SystemPrompt,
    messages: Sequence[Message],
    tools: ToolRegistry,
    max_steps: int,
    on_text: TextSink | None = None,
    max_tokens: int | None = None,
) -> ToolLoopResult:
    conversation = list(messages)
    joiner = _Joiner(on_text)
    sink = joiner if on_text is not None else None
    result = ToolLoopResult(text="", steps=0)
    limits = tools.limits
    run = 0  # calls run this turn
    for step in range(max_steps + 1):
        offer = tools.specs if step < max_steps and run < limits.per_turn else []
        joiner.start_step()
        completion = await llm.complete(
            system=system,
            messages=conversation,
            tools=offer,
            max_tokens=max_tokens,
            on_text=sink,
        )
        result.completions.append(completion)
        result.steps = step + 1
        if completion.text.strip():
            joiner.parts.append(completion.text.strip())
        if not completion.tool_calls or not offer:
            break
        result.tool_calls.extend(completion.tool_calls)
        calls = completion.tool_calls
        run_before = run
        log.info(
            "tools.called",
            step=step + 1,
            calls=len(calls),
            tools=_names(tools, calls),
            args_chars=sum(len(json.dumps(c.arguments)) for c in calls),
        )
        results: list[ToolResult] = []
        for index, call in enumerate(calls):
            if index >= limits.per_step:
                results.append(_over_cap(call, "in one answer", limits.per_step))
            elif run >= limits.per_turn:
                results.append(_over_cap(call, "in one turn", limits.per_turn))
            else:
                run += 1
                results.append(await _run_tool(tools, call))
        if refused := len(calls) - (run - run_before):
            log.warning("tools.capped", step=step + 1, calls=len(calls), refused=refused)
        conversation.append(Message("assistant", completion.text, tool_calls=tuple(calls)))
        conversation.append(Message("user", tool_results=tuple(results)))
    result.text = "\n\n".join(joiner.parts)
    return result
