"""``personad memory ...``: look into and edit one persona's long-term memory from a shell.

    personad memory add "I take my coffee black" --user scott --persona inara [--category C]
                                                                 [--shared]
    personad memory search "coffee" --user scott --persona inara [--limit N]
                                                                 [--room PLATFORM:ID]
    personad memory explain ID [--query Q] --user scott --persona inara
    personad memory share ID | unshare ID
    personad memory list [--all] [--limit N] | forget ID | stats | export [--output FILE|-]

Every command opens the configured backend for ``DATA_DIR/USER/persona/PERSONA`` and closes it
when done. ``add`` forces the write (you are being explicit) but the policy still classifies the
sentence and its verdict is printed; secrets are refused even then. What you add is private
(recalled only in your direct conversations) unless ``--shared`` lets every room know it.
``share ID`` makes any fact or episode known in every room, ``unshare ID`` private again (both
recorded in its history). ``search --room PLATFORM:ID`` shows what a turn in that shared room
would recall; ``list``, ``explain`` and ``export`` say who may be shown each item (``private``,
``shared with every room``, ``room PLATFORM:ID``: :mod:`bot.turn.audience`). Recall blends durable
facts (ids ``42``) and episodes, the messages as they were said (ids ``e42``, cited with their
date); ``explain ID --query Q`` shows where one of them ranks for ``Q`` and the parts of its score
(``bm25``, ``cosine``, ``recency``, and ``importance`` for a fact or ``time`` for an episode
said within the time the query names).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import stat
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.daemon.errors import MemoryStoreError, PersonadError, PersonaError
from bot.daemon.invocation import with_config
from bot.memory.base import (
    CATEGORIES,
    MemoryBackend,
    MemoryHit,
    MemoryItem,
    format_citation,
)
from bot.memory.factory import open_memory
from bot.memory.policy import classify
from bot.memory.shared_lines import shared_file_line
from bot.persona.atomic import atomic_write_text
from bot.persona.names import validate_name
from bot.setup.config import Config
from bot.turn.audience import DIRECT, DIRECT_ROOM, SHARED, Audience, describe, is_label

__all__ = ["register"]

Handler = Callable[[argparse.Namespace, MemoryBackend], Awaitable[int]]


def _persona_dir(config: Config, args: argparse.Namespace) -> Path:
    user: str = args.user
    persona: str = args.persona
    validate_name(user, "user")
    validate_name(persona, "persona")
    directory = config.data_dir / user / "persona" / persona
    if not directory.is_dir():
        # with the --config and --data-dir this ran with: pasted, it makes the persona here
        again = with_config(config.source, getattr(args, "data_dir", None))
        raise PersonaError(
            f"no persona at {directory}",
            user_message=f"There is no persona '{persona}' for user '{user}' in"
            f" {config.data_dir}; create it first with: {again} persona new {user} {persona}",
        )
    return directory


def _sentence(exc: PersonadError) -> str:
    """What the shell shows for ``exc``. A memory store's own message names the file and what
    to do (corrupt: restore or move it aside; locked: close what holds it); its user message
    is the vague one meant for a chat, where the file is no one's business."""
    return str(exc) if isinstance(exc, MemoryStoreError) else exc.user_message


def _runner(handler: Handler) -> Callable[[argparse.Namespace, Config], Awaitable[int]]:
    """Wrap a handler: find and open the persona's memory, report errors in one sentence."""

    async def run(args: argparse.Namespace, config: Config) -> int:
        try:
            memory = await open_memory(config, _persona_dir(config, args))
        except PersonadError as exc:
            print(f"personad: {_sentence(exc)}", file=sys.stderr)
            return 2
        try:
            return await handler(args, memory)
        except PersonadError as exc:
            print(f"personad: {_sentence(exc)}", file=sys.stderr)
            return 1
        finally:
            await memory.close()

    return run


def _line(item: MemoryItem) -> str:
    who = describe(item.audience)
    return f"{item.id}  {item.status:<10}  {who:<22}  {format_citation(item)}  {item.text}"


def _hit_lines(hit: MemoryHit) -> list[str]:
    parts = "  ".join(f"{name}={value:.3f}" for name, value in sorted(hit.parts.items()))
    return [f"{hit.item.id}  {hit.score:.3f}  {hit.citation}  {hit.item.text}", f"    {parts}"]


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


async def _add(args: argparse.Namespace, memory: MemoryBackend) -> int:
    verdict = classify(args.text)
    judged = verdict.category or "rejected"
    print(f"policy: {judged} ({verdict.reason}; confidence {verdict.confidence:.2f})")
    audience = SHARED if args.shared else DIRECT
    result = await memory.add(
        args.text, source="cli", category=args.category, force=True, audience=audience
    )
    if result.duplicate_of:
        print(f"already known as {result.duplicate_of} [{result.category}]: {result.reason}")
        return 0
    if not result.stored:
        print(f"not stored: {result.reason}")
        return 1
    print(f"stored as {result.item_id} [{result.category}], {describe(audience)}: {result.reason}")
    return 0


async def _search(args: argparse.Namespace, memory: MemoryBackend) -> int:
    audience = DIRECT_ROOM if args.room is None else Audience(args.room)
    if not is_label(audience.label):
        print(f"personad: --room wants PLATFORM:ID, not {args.room!r}", file=sys.stderr)
        return 2
    hits = await memory.search(args.query, limit=args.limit, audience=audience)
    if not hits:
        print("no memories match")
    for hit in hits:
        print("\n".join(_hit_lines(hit)))
    return 0


async def _list(args: argparse.Namespace, memory: MemoryBackend) -> int:
    items = await memory.list_items(include_inactive=args.all, limit=args.limit)
    if not items:
        print("no memories yet")
    for item in items:
        print(_line(item))
    return 0


async def _explain(args: argparse.Namespace, memory: MemoryBackend) -> int:
    try:
        details = await memory.explain(args.id)
    except KeyError:
        details = {}
    if not details:
        print(f"personad: no memory with id {args.id}", file=sys.stderr)
        return 1
    if "audience" in details:
        details["audience_in_words"] = describe(str(details["audience"]))
    if args.query:
        details["score"] = await _score_for(memory, str(args.id), args.query)
    print(_json(details))
    return 0


_EXPLAIN_DEPTH = 50


async def _score_for(memory: MemoryBackend, item_id: str, query: str) -> dict[str, Any]:
    """Where the item ranks for ``query`` among facts and episodes, and its score by part."""
    hits = await memory.search(query, limit=_EXPLAIN_DEPTH)
    for rank, hit in enumerate(hits, 1):
        if hit.item.id == item_id.strip().lstrip("#"):
            return {
                "query": query,
                "kind": hit.item.kind,
                "rank": rank,
                "score": round(hit.score, 4),
                "parts": {name: round(value, 4) for name, value in hit.parts.items()},
                "ahead": [
                    {"id": other.item.id, "kind": other.item.kind, "score": round(other.score, 4)}
                    for other in hits[: rank - 1]
                ],
            }
    return {"query": query, "rank": None, "note": f"not among the best {_EXPLAIN_DEPTH}"}


async def _forget(args: argparse.Namespace, memory: MemoryBackend) -> int:
    if await memory.forget(args.id):
        print(f"forgot {args.id} (kept in the file as 'forgotten'; never recalled again)")
        return 0
    print(f"personad: no memory with id {args.id}", file=sys.stderr)
    return 1


async def _share(args: argparse.Namespace, memory: MemoryBackend) -> int:
    return await _give(memory, args.id, SHARED)


async def _unshare(args: argparse.Namespace, memory: MemoryBackend) -> int:
    return await _give(memory, args.id, DIRECT)


async def _give(memory: MemoryBackend, item_id: str, label: str) -> int:
    line = await shared_file_line(memory, item_id) if label == DIRECT else None
    if line is not None:
        source, text = line
        print(
            f"personad: {item_id} is a line of {source}, which every room reads: take the line"
            f" out of the file ({text!r}) or say `/unshare {text}` in a direct room",
            file=sys.stderr,
        )
        return 1
    if await memory.share(item_id, label):
        print(f"{item_id} is now {describe(label)}")
        return 0
    print(f"personad: no memory with id {item_id}", file=sys.stderr)
    return 1


async def _stats(args: argparse.Namespace, memory: MemoryBackend) -> int:
    print(_json(await memory.stats()))
    return 0


async def _export(args: argparse.Namespace, memory: MemoryBackend) -> int:
    items = [
        {**item, "audience_in_words": describe(str(item["audience"]))}
        if "audience" in item
        else item
        for item in await memory.export()
    ]
    document = {
        "backend": memory.name,
        "user": args.user,
        "persona": args.persona,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "items": items,
    }
    text = _json(document) + "\n"
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    try:
        output = await asyncio.to_thread(_write_file, args.output, text)
    except OSError as exc:
        print(f"personad: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {len(items)} memories to {output}")
    return 0


def _write_file(name: str, text: str) -> Path:
    output = Path(name).expanduser()
    try:
        mode = output.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # a rename over /dev/stdout, a pipe or a device would replace it, not write to it
        raise OSError(errno.EINVAL, "not a regular file (leave out --output to print it)")
    if mode is None and not output.parent.is_dir():
        # the atomic write would make the folders: a mistyped path would quietly become some
        raise OSError(errno.ENOENT, f"there is no folder {output.parent}")
    atomic_write_text(output, text)
    return output


def _at_least_one(text: str) -> int:
    """``--limit``: 0 or less would list nothing and say there is nothing to list."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"a whole number of 1 or more, not {text!r}")
    return number


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``memory`` and its subcommands to the ``personad`` command line."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config", default=argparse.SUPPRESS, help="TOML config file (default: $PERSONAD_CONFIG)"
    )
    common.add_argument(
        "--data-dir", default=argparse.SUPPRESS, help="data directory (overrides the config)"
    )
    common.add_argument("--user", required=True, help="the user who owns the persona")
    common.add_argument("--persona", required=True, help="the persona whose memory to use")

    memory = subparsers.add_parser("memory", help="inspect and edit a persona's memory")
    sub = memory.add_subparsers(dest="memory_command", required=True)

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, parents=[common], help=help_text)
        parser.set_defaults(func=_runner(handler))
        return parser

    add = command("add", _add, "store a fact (forced, but still classified)")
    add.add_argument("text", help="the fact, one sentence")
    add.add_argument("--category", choices=CATEGORIES, help="override the policy's category")
    add.add_argument(
        "--shared", action="store_true", help="let every room know it (default: private)"
    )
    search = command("search", _search, "find memories, with their score parts")
    search.add_argument("query")
    search.add_argument("--limit", type=_at_least_one, default=10)
    search.add_argument(
        "--room", metavar="PLATFORM:ID", help="only what that shared (group) room may recall"
    )
    listing = command("list", _list, "newest memories first")
    listing.add_argument("--all", action="store_true", help="include forgotten and superseded")
    listing.add_argument("--limit", type=_at_least_one, default=100)
    explain = command("explain", _explain, "everything known about one memory or episode")
    explain.add_argument("id", help="a fact's id (42) or an episode's (e42)")
    explain.add_argument(
        "--query", help="also show its rank and score parts (episode or fact) for this query"
    )
    command("forget", _forget, "mark a memory forgotten (it is never deleted)").add_argument("id")
    command("share", _share, "let every room know a fact or episode").add_argument("id")
    command("unshare", _unshare, "make a fact or episode private again").add_argument("id")
    command("stats", _stats, "counts by status and category")
    export = command("export", _export, "every fact and episode as JSON")
    export.add_argument(
        "--output", help="write to this file (atomically) instead of stdout ('-': stdout)"
    )
