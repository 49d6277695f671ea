"""Resident memory of recall at scale: a process that recalls from N memories, with and
without the embedding model loaded.

    python bench/recall_resident.py [-n 100000] [--messages]

Builds one persona's store of ``n`` synthetic memories (``bench/recall.py``'s) with vectors
(300 embedded by the model, the others near copies of them, as ``bench/recall.py`` does), or
with ``--messages`` ``n`` messages (episodes) like set B's (``tests/data/recall_conversations_b
.json``'s, both sides, each made unique), with their vectors and their sentences' (near copies
of 300 embedded, as many sentences as :func:`~bot.memory.episodes.sentence_vectors.sentences_of`
gives), then
starts a fresh process for each case that opens the store as the daemon does, answers 100
queries and prints its resident memory (``VmRSS``) and its peak (``VmHWM``). The figures are
the process's own: Python, SQLite's cache, the index of vectors, the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import structlog

from bench.recall import synthetic_memories, synthetic_queries
from bot.memory.embedding.models import load_embedder
from bot.memory.episodes.engine import analyse
from bot.memory.episodes.rows import Said
from bot.memory.episodes.sentence_vectors import sentences_of
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.turn.audience import DIRECT

SET_B = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_conversations_b.json"

#: the embedding model (``--model``): auto, e5 or minilm
MODEL = "auto"

_CHILD = """
import asyncio, json, sys
sys.path.insert(0, {root!r})
import structlog, logging
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
from pathlib import Path
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.embedding.models import load_embedder

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

async def main():
    start = status("VmRSS")
    embedder = load_embedder({model!r}) if {embed} else None
    async with SqliteFtsMemory(Path({folder!r}), embedder=embedder) as memory:
        for query in json.loads({queries!r}):
            await memory.search(query, limit=5)
        print(json.dumps({{"start": start, "rss": status("VmRSS"), "peak": status("VmHWM")}}))

asyncio.run(main())
"""


async def build(folder: Path, n: int) -> None:
    embedder = load_embedder(MODEL)
    texts = synthetic_memories(n)
    started = time.perf_counter()
    async with SqliteFtsMemory(folder) as memory:
        for text in texts:
            await memory.add(text, source="bench", force=True)
        if embedder is not None:
            unique = np.asarray(await embedder.embed(texts[:300]))
            ids = [int(item.id) for item in await memory.list_items(limit=n + 1)]
            vectors = _near(unique, len(ids), np.random.default_rng(3))
            await memory._store.put_vectors(ids, vectors, getattr(embedder, "name", "model"))
    print(f"built {n:,} memories in {time.perf_counter() - started:.0f} s")


async def build_messages(folder: Path, n: int) -> None:
    """``n`` messages of set B's, both sides, each made unique by a number of its own."""
    embedder = load_embedder(MODEL)
    data = json.loads(SET_B.read_text(encoding="utf-8"))
    said = [
        (side, turn[side])
        for user in data["users"]
        for session in user["sessions"]
        for turn in session["turns"]
        for side in ("user", "reply")
    ]
    started = time.perf_counter()
    rng = np.random.default_rng(3)
    unique = np.asarray(await embedder.embed([text for _, text in said[:300]]))
    model = getattr(embedder, "name", "model")
    async with SqliteFtsMemory(folder) as memory:
        store = memory.episodes.store
        at = datetime(2025, 1, 1, tzinfo=UTC).timestamp()
        for first in range(0, n, 2_000):
            batch = []
            for i in range(first, min(n, first + 2_000)):
                side, text = said[i % len(said)]
                text, norm, terms = analyse(f"{text} (number {i})")
                speaker = "user" if side == "user" else "persona"
                batch.append(Said(at + i * 60, speaker, DIRECT, "bench", text, norm, terms))
            rows = await store.record(batch)
            ids = [row.rowid for row in rows]
            await store.put_vectors(ids, _near(unique, len(ids), rng), model)
            owners = [
                rowid for rowid, one in zip(ids, batch, strict=True) for _ in sentences_of(one.text)
            ]
            if owners:
                await store.put_sentence_vectors(
                    owners, _near(unique, len(owners), rng), model, filled_through=ids[-1]
                )
        sentences = await memory._store._all("SELECT count(*) FROM sentence_vectors")
    print(
        f"built {n:,} messages and {sentences[0][0]:,} sentence vectors"
        f" in {time.perf_counter() - started:.0f} s"
    )


def _near(unique: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` near copies of the rows of ``unique``, normalised."""
    vectors = unique[rng.integers(0, len(unique), count)]
    vectors = vectors + rng.normal(0, 0.02, vectors.shape)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def measure(folder: Path, *, embed: bool) -> dict[str, float]:
    queries = json.dumps(synthetic_queries(100))
    code = _CHILD.format(
        root=str(Path(__file__).resolve().parent.parent),
        embed=embed,
        model=MODEL,
        folder=str(folder),
        queries=queries,
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="memories (default 100,000)")
    parser.add_argument("--keep", type=Path, help="build the store here once, reuse it after")
    parser.add_argument("--messages", action="store_true", help="messages like set B's, not facts")
    parser.add_argument("--model", choices=("auto", "e5", "minilm"), default="auto")
    args = parser.parse_args(argv)
    global MODEL
    MODEL = args.model
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    with tempfile.TemporaryDirectory(prefix="personad-resident-") as tmp:
        folder = args.keep or Path(tmp) / "memory"
        if not (folder / "memory.db").exists():
            asyncio.run((build_messages if args.messages else build)(folder, args.n))
        what = "messages" if args.messages else "memories"
        for embed in (False, True):
            found = measure(folder, embed=embed)
            label = "with the model" if embed else "BM25 only     "
            print(
                f"recall from {args.n:,} {what}, {label}: resident {found['rss']:.0f} MB"
                f" (peak {found['peak']:.0f} MB; {found['start']:.0f} MB at start)"
            )


if __name__ == "__main__":
    main()
