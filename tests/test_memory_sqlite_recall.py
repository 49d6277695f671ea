"""Recall of the sqlite-fts5 memory backend: accents, ranking, score parts, hostile queries."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.query import (
    EXACT_BUDGET,
    NEWEST_WINDOW,
    MatchPlan,
    build_match_query,
    plan_match,
    query_tokens,
)

__all__: list[str] = []


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def memory(tmp_path: Path, clock: Clock) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path / "ana", now=clock) as backend:
        yield backend


async def _ids(memory: SqliteFtsMemory, query: str, limit: int = 5) -> list[str]:
    return [hit.item.text for hit in await memory.search(query, limit=limit)]


async def test_portuguese_without_accents_finds_accented_memory(memory: SqliteFtsMemory) -> None:
    await memory.add("Prefiro café sem açúcar e sem leite.", source="test", force=True)
    await memory.add("O meu irmão mora em Berlim.", source="test", force=True)
    assert await _ids(memory, "cafe acucar") == ["Prefiro café sem açúcar e sem leite."]
    assert await _ids(memory, "irmao") == ["O meu irmão mora em Berlim."]


async def test_english_accent_insensitive_both_ways(memory: SqliteFtsMemory) -> None:
    await memory.add("I studied at the École Polytechnique in Paris.", source="t", force=True)
    await memory.add("My favourite drink is a cafe latte with oat milk.", source="t", force=True)
    assert await _ids(memory, "ecole") == ["I studied at the École Polytechnique in Paris."]
    assert await _ids(memory, "café latte") == ["My favourite drink is a cafe latte with oat milk."]


async def test_best_lexical_match_ranks_first(memory: SqliteFtsMemory) -> None:
    await memory.add("My sister Ana lives in Porto and works as a nurse.", source="t")
    await memory.add("I visited Porto last spring with friends from work.", source="t", force=True)
    await memory.add("My brother Pedro lives in Berlin.", source="t")
    hits = await memory.search("where does my sister live")
    assert hits[0].item.text.startswith("My sister Ana")
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


async def test_every_hit_has_score_parts_that_sum_to_the_score(memory: SqliteFtsMemory) -> None:
    await memory.add("We decided to paint the kitchen blue.", source="t")
    (hit,) = await memory.search("kitchen")
    assert set(hit.parts) == {"bm25", "recency", "importance", "cosine"}
    assert hit.parts["bm25"] == pytest.approx(1.0)
    assert hit.parts["cosine"] == 0.0
    assert hit.score == pytest.approx(sum(hit.parts.values()))
    assert hit.citation.startswith("[decision · t · ")


async def test_importance_breaks_a_lexical_tie(memory: SqliteFtsMemory) -> None:
    await memory.add(
        "Garage door opener: the blue remote.", source="t", category="fact", force=True
    )
    await memory.add(
        "Garage door opener: the green remote.", source="t", category="decision", force=True
    )
    hits = await memory.search("garage door opener")
    assert hits[0].parts["bm25"] == pytest.approx(hits[1].parts["bm25"])
    assert [hit.item.category for hit in hits] == ["decision", "fact"]


async def test_recent_memory_wins_an_equal_match(memory: SqliteFtsMemory, clock: Clock) -> None:
    start = clock.now
    clock.now = start - timedelta(days=400)
    await memory.add("Our wifi router is a grey Fritzbox.", source="t", category="fact", force=True)
    clock.now = start
    await memory.add(
        "Our wifi router is a white Fritzbox.", source="t", category="fact", force=True
    )
    hits = await memory.search("wifi router fritzbox")
    assert "white" in hits[0].item.text
    assert hits[0].parts["recency"] > hits[1].parts["recency"]


async def test_recall_does_not_refresh_recency(memory: SqliteFtsMemory, clock: Clock) -> None:
    start = clock.now
    clock.now = start - timedelta(days=300)
    await memory.add("My old bike is a red Peugeot.", source="t", force=True)
    clock.now = start
    first = (await memory.search("bike peugeot"))[0]
    for _ in range(5):
        await memory.prefetch("bike peugeot")
    again = (await memory.search("bike peugeot"))[0]
    assert again.parts["recency"] == pytest.approx(first.parts["recency"])
    details = await memory.explain(again.item.id)
    assert details["last_seen"] == details["created"]


async def test_stopwords_are_dropped_but_a_stopword_only_query_still_works() -> None:
    assert query_tokens("What is the name of my cat?") == ["name", "cat"]
    assert query_tokens("Qual é o nome do meu gato?") == ["nome", "gato"]
    assert query_tokens("who are you") == ["who", "are", "you"]
    # "used to" says a habit, as "did" says a past: "useful" and "use" shared its stem
    assert query_tokens("What did Clive used to teach?") == ["clive", "teach"]


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        "NEAR(cafe acucar, 2)",
        "cafe* OR -acucar",
        "title:cafe ^acucar",
        "(((cafe)",
        "AND OR NOT",
        'say "hello" * 3 - 1 : ^',
        "café\x00sem\x1baçúcar",
    ],
)
async def test_fts_syntax_in_queries_is_never_an_error(memory: SqliteFtsMemory, query: str) -> None:
    await memory.add("Prefiro café sem açúcar.", source="t", force=True)
    hits = await memory.search(query)
    assert all(hit.item.text == "Prefiro café sem açúcar." for hit in hits)


@pytest.mark.parametrize("query", ["", "   \n\t ", "?!?", "***", '""'])
async def test_empty_queries_give_no_hits(memory: SqliteFtsMemory, query: str) -> None:
    await memory.add("Prefiro café sem açúcar.", source="t", force=True)
    assert await memory.search(query) == []
    assert await memory.prefetch(query) == []
    assert build_match_query(query) == ""


async def test_a_one_megabyte_query_is_truncated_safely(memory: SqliteFtsMemory) -> None:
    await memory.add("The boiler pressure must stay above one bar.", source="t", force=True)
    huge = "boiler " + ("lorem ipsum dolor " * 60_000)
    assert len(huge) > 1_000_000
    hits = await memory.search(huge)
    assert [hit.item.text for hit in hits] == ["The boiler pressure must stay above one bar."]


async def test_limit_is_respected_and_forgotten_items_are_not_recalled(
    memory: SqliteFtsMemory,
) -> None:
    ids = []
    for n in range(12):
        result = await memory.add(f"Plant number {n} on the balcony is a basil.", source="t")
        ids.append(result.item_id)
    assert len(await memory.search("basil balcony", limit=3)) == 3
    assert await memory.search("basil", limit=0) == []
    assert await memory.forget(str(ids[0]))
    texts = await _ids(memory, "basil balcony", limit=20)
    assert len(texts) == 11
    assert "Plant number 0 on the balcony is a basil." not in texts


def test_query_plan_is_exact_on_small_stores_and_all_words_first_on_large() -> None:
    assert plan_match(["cat", "miso"], {"cat": 40, "miso": 3}) == [MatchPlan('"cat" OR "miso"')]
    assert plan_match(["cat", "zebra"], {"cat": 40}) == [MatchPlan('"cat"')]
    assert plan_match(["zebra"], {}) == []
    assert plan_match(["ana"], {"ana": 90_000}) == [MatchPlan('"ana"', NEWEST_WINDOW)]
    big = {"ana": 9_000, "porto": 3_000, "e119": 12}
    assert plan_match(["ana", "porto", "e119"], big) == [
        MatchPlan('"ana" AND "porto" AND "e119"'),
        MatchPlan('"e119"'),
    ]
    assert plan_match(["ana", "porto"], big) == [
        MatchPlan('"ana" AND "porto"'),
        MatchPlan('"ana" OR "porto"', NEWEST_WINDOW),
    ]


async def test_large_store_prefers_memories_with_every_word(memory: SqliteFtsMemory) -> None:
    for n in range(EXACT_BUDGET + 50):
        await memory.add(f"Note {n}: Ana borrowed a book.", source="t", category="fact", force=True)
    await memory.add("Ana moved to Porto with her cat Miso.", source="t", force=True)
    hits = await memory.search("Ana Miso", limit=3)
    assert hits[0].item.text == "Ana moved to Porto with her cat Miso."
    # "ana" alone matches thousands: those weak matches are not ranked one by one
    assert len(hits) == 1
    newest_first = await memory.search("Ana", limit=3)
    assert len(newest_first) == 3
    # one word in more memories than the budget: ranked among the newest of them
    assert all(int(hit.item.id) > EXACT_BUDGET + 50 - NEWEST_WINDOW for hit in newest_first)


async def test_a_new_word_is_found_right_after_a_search_missed_it(
    memory: SqliteFtsMemory,
) -> None:
    await memory.add("My sister lives in Porto.", source="t")
    assert await memory.search("porto zebra") != []
    assert await memory.search("zebra") == []
    await memory.add("My daughter's favourite animal is the zebra.", source="t", force=True)
    assert [hit.item.text for hit in await memory.search("zebra")] == [
        "My daughter's favourite animal is the zebra."
    ]


def test_a_large_plan_wants_every_word_in_any_of_its_forms() -> None:
    frequencies = {"run": 900, "running": 800, "lesson": 700, "lessons": 400}
    groups = [["run", "running"], ["lesson", "lessons"]]
    tokens = ["run", "running", "lesson", "lessons"]
    plans = plan_match(tokens, frequencies, groups)
    assert plans[0].expression == '("run" OR "running") AND ("lesson" OR "lessons")'


async def test_without_a_model_age_does_not_outrank_a_better_match(
    memory: SqliteFtsMemory, clock: Clock
) -> None:
    """BM25 alone: recency only breaks ties, so a newer memory that matches the question a
    little less well (a word longer) stays below the older one that matches it better."""
    older = "The spare house keys are with Marta, in the blue tin on her kitchen shelf."
    start = clock.now
    clock.now = start - timedelta(days=700)
    await memory.add(older, source="t", category="fact", force=True)
    clock.now = start
    await memory.add(
        "The spare house keys are with Marta, in the old blue tin on her kitchen shelf.",
        source="t",
        category="fact",
        force=True,
    )
    hits = await memory.search("spare house keys Marta")
    assert hits[0].item.text == older
    # so close that recency at its weight with a model (0.05) would have put the newer first
    assert hits[0].parts["bm25"] - hits[1].parts["bm25"] < 0.04
