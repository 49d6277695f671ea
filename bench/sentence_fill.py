"""The background fill of older messages' sentence vectors: how long it takes, and what a
turn's recall waits meanwhile.

    python bench/sentence_fill.py [--people N] [--model auto|e5|minilm] [--all]

Feeds set B's people (``tests/data/recall_conversations_b.json``, every one by default) into
one persona's store through the write path with the embedding model (``--model``), then takes
away every sentence vector and how far the fill had come: the store as a ``memory.db`` of v7
left it, whose messages have their own vectors and no sentences'. It opens that store as
the daemon does and prints how long the open took, how long the fill took and how many
sentence vectors it made, and the time of a recall (set B's questions, one after another)
while the fill runs and after it. ``--all`` takes away the messages' and the facts' own
vectors too, as a change of model leaves a store: the fill embeds those first. Needs the
embedding model (``make embeddings``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from bench.recall_quality import load, records
from bot.memory.embedding.models import load_embedder
from bot.memory.sqlite.backend import SqliteFtsMemory


def _ms(times: list[float]) -> str:
    if not times:
        return "none"
    ordered = sorted(times)
    return (
        f"p50 {statistics.median(ordered) * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"
        f" ({len(ordered)} recalls)"
    )


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=10, help="how many of set B's people")
    parser.add_argument("--model", choices=("auto", "e5", "minilm"), default="auto")
    parser.add_argument(
        "--all", action="store_true", help="every vector taken away, as a change of model"
    )
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    embedder = load_embedder(args.model)
    if embedder is None:
        raise SystemExit("the embedding model is not installed: run `make embeddings`")
    users = load("b")["users"][: args.people]
    questions = [q["question"] for user in users for q in user["questions"]]
    with tempfile.TemporaryDirectory() as folder:
        persona = Path(folder)
        async with SqliteFtsMemory(persona, embedder=embedder) as memory:
            for user in users:
                for session in records(user):
                    for turn in session:
                        await memory.sync(turn)
        with sqlite3.connect(persona / "memory.db") as raw:
            messages = raw.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
            made_at_record = raw.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()[0]
            raw.execute("DELETE FROM sentence_vectors")
            raw.execute("DELETE FROM sentence_fill")
            if args.all:
                raw.execute("DELETE FROM episode_vectors")
                raw.execute("DELETE FROM vectors")
        taken = "every vector" if args.all else "the sentence vectors"
        print(f"{messages} messages; {made_at_record} sentence vectors as recorded; {taken} gone")
        started = time.perf_counter()
        async with SqliteFtsMemory(persona, embedder=embedder) as memory:
            opened = time.perf_counter()
            filling = memory.filling
            assert filling is not None
            during: list[float] = []
            for question in questions:
                if filling.done():
                    break
                asked = time.perf_counter()
                await memory.search(question, limit=5)
                during.append(time.perf_counter() - asked)
            filled_in = await filling
            made = filled_in.sentences
            filled = time.perf_counter()
            after: list[float] = []
            for question in questions[:100]:
                asked = time.perf_counter()
                await memory.search(question, limit=5)
                after.append(time.perf_counter() - asked)
        print(f"open: {(opened - started) * 1000:.0f} ms")
        texts = made + (filled_in.facts + filled_in.episodes if args.all else 0)
        model = getattr(embedder, "name", type(embedder).__name__)
        print(
            f"model {model}; fill: {made} sentence vectors"
            + (f", {filled_in.episodes} messages, {filled_in.facts} facts" if args.all else "")
            + f" in {filled - opened:.1f} s ({texts / max(filled - opened, 1e-9):.0f} a second)"
        )
        print(f"recall while filling: {_ms(during)}")
        print(f"recall after: {_ms(after)}")


if __name__ == "__main__":
    asyncio.run(main())
