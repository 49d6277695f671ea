"""The persona's task list, TASKS.json, and the model's tools for it.

TASKS.json is a JSON list of objects::

    [{"id": 1, "title": "Renew the passport", "status": "open",
      "created": "2026-11-30T09:00-05:00", "due": "2026-12-15"}]

``status`` is ``open``, ``done`` (with ``done_at``) or ``removed`` (with ``removed_at``):
removing a task keeps it in the file, so nothing the user wrote is ever deleted. The file is
read and written through :mod:`bot.tools.jsonlist`: keys the tools do not know are kept, and a
file that cannot be read is refused, never overwritten.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.persona.store import PersonaStore
from bot.tools.clock import Clock
from bot.tools.jsonlist import (
    Item,
    corrupt_file_as_tool_failure,
    edit_json_list,
    load_json_list,
)
from bot.tools.registry import Tool, ToolFailed, find_by_words
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["FILENAME", "edit_task", "task_tools"]

FILENAME = "TASKS.json"


# -- tools for the model ------------------------------------------------------------------


def _title(item: Item) -> str:
    return str(item.get("title") or "(untitled)")


def _describe(item: Item) -> str:
    status = item.get("status", "open")
    mark = {"open": "", "done": "✓ "}.get(str(status), f"[{status}] ")
    due = f" (due {item['due']})" if item.get("due") else ""
    done = (
        f" (done {str(item['done_at'])[:10]})" if status == "done" and item.get("done_at") else ""
    )
    return f"#{item.get('id', '?')} {mark}{_title(item)}{due}{done}"


def _due_arg(value: object, zone: ZoneInfo) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        with contextlib.suppress(ValueError):
            return date.fromisoformat(text).isoformat()
        when: datetime | None = None
        with contextlib.suppress(ValueError):
            when = datetime.fromisoformat(text)
        if when is not None:
            if when.tzinfo is not None:
                when = when.astimezone(zone)
            return when.replace(tzinfo=None).isoformat(timespec="minutes")
    raise ToolFailed("'due' must be a date like 2026-12-15 or a local time like 2026-12-15T17:00")


def _title_arg(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolFailed("'title' must say what the task is")
    title = " ".join(value.split())
    if len(title) > 300:
        raise ToolFailed("keep a task title under 300 characters")
    return title


async def edit_task(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    task_id: int,
    args: dict[str, Any],
) -> str:
    """Change an open task's ``title`` and ``due`` in place (same id; no ``due``: none),
    checked as ``task_add`` checks them; a refused change writes nothing."""
    title, due = _title_arg(args.get("title")), _due_arg(args.get("due"), zone)

    def change(items: list[Item]) -> str:
        task = _pick(items, {"id": task_id}, ("open",))
        task["title"] = title
        if due:
            task["due"] = due
        else:
            task.pop("due", None)
        return f"Task changed: {_describe(task)}"

    with corrupt_file_as_tool_failure(FILENAME):
        return await edit_json_list(store, user, persona, FILENAME, change)


def _pick(items: list[Item], args: dict[str, Any], statuses: tuple[str, ...]) -> Item:
    live = [item for item in items if item.get("status", "open") in statuses]
    ident, match = args.get("id"), args.get("match")
    if ident is not None and ident != "":
        for item in live:
            if str(item.get("id")) == str(ident):
                return item
        raise ToolFailed(f"there is no {' or '.join(statuses)} task #{ident}; see task_list")
    if not isinstance(match, str) or not match.strip():
        raise ToolFailed("give the task's 'id' or 'match' (words of its title)")
    return find_by_words(
        live,
        match,
        _title,
        _describe,
        subject=f"{' or '.join(statuses)} task",
        plural="tasks",
        key="id",
    )


def task_tools(
    store: PersonaStore,
    user: str,
    persona: str,
    zone: ZoneInfo,
    clock: Clock,
    audience: Audience = DIRECT_ROOM,
) -> list[Tool]:
    """``task_add``, ``task_list``, ``task_done`` and ``task_remove`` for one persona, on
    the task list of ``audience`` (a shared room keeps its own, ``rooms/<room>/TASKS.json``;
    it shows nothing private, so it is not withheld there)."""
    path = audience.own(FILENAME)
    private = audience.private

    def stamp() -> str:
        return clock().astimezone(zone).isoformat(timespec="minutes")

    async def edit(change: Callable[[list[Item]], str]) -> str:
        with corrupt_file_as_tool_failure(path):
            return await edit_json_list(store, user, persona, path, change)

    async def add(args: dict[str, Any]) -> str:
        title = _title_arg(args.get("title"))
        due = _due_arg(args.get("due"), zone)

        def change(items: list[Item]) -> str:
            ids = [item["id"] for item in items if isinstance(item.get("id"), int)]
            task: Item = {"id": max(ids, default=0) + 1, "title": title, "status": "open"}
            task["created"] = stamp()
            if due:
                task["due"] = due
            items.append(task)
            return f"Task added: {_describe(task)}"

        return await edit(change)

    async def list_(args: dict[str, Any]) -> str:
        with corrupt_file_as_tool_failure(path):
            items = load_json_list(store, user, persona, path)
        wanted = ("open", "done") if args.get("include_done") else ("open",)
        shown = [_describe(item) for item in items if item.get("status", "open") in wanted]
        return "\n".join(shown) if shown else "No open tasks."

    async def done(args: dict[str, Any]) -> str:
        def change(items: list[Item]) -> str:
            task = _pick(items, args, ("open",))
            task["status"], task["done_at"] = "done", stamp()
            return f"Done: {_describe(task)}"

        return await edit(change)

    async def remove(args: dict[str, Any]) -> str:
        def change(items: list[Item]) -> str:
            task = _pick(items, args, ("open", "done"))
            task["status"], task["removed_at"] = "removed", stamp()
            return f"Removed from the list (kept in {path} as removed): {_title(task)}"

        return await edit(change)

    pick_schema = {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "description": "the task's number"},
            "match": {"type": "string", "description": "words of the task's title"},
        },
    }
    return [
        Tool(
            name="task_add",
            description=(
                "Add a task to the user's task list (TASKS.json). 'due' is optional: "
                "a date like 2026-12-15 or a local time like 2026-12-15T17:00."
            ),
            input_schema={
                "type": "object",
                "properties": {"title": {"type": "string"}, "due": {"type": "string"}},
                "required": ["title"],
            },
            handler=add,
            persists=True,
        ),
        Tool(
            name="task_list",
            description="List the open tasks; 'include_done' lists finished ones too.",
            input_schema={
                "type": "object",
                "properties": {"include_done": {"type": "boolean"}},
            },
            handler=list_,
            private=private,
        ),
        Tool(
            name="task_done",
            description="Mark an open task done, by 'id' or 'match'.",
            input_schema=pick_schema,
            handler=done,
            persists=True,
            private=private,
        ),
        Tool(
            name="task_remove",
            description="Take a task off the list, by 'id' or 'match' (it stays in the file).",
            input_schema=pick_schema,
            handler=remove,
            persists=True,
            private=private,
        ),
    ]
