"""Episodes: every on-record message is recallable (with its date), whatever the write policy
keeps as a durable fact; stems, accents and time words find them; rooms and secrets hold."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.episodes.time_query import read_time
from bot.memory.sqlite import second_search
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.stemming import index_terms, query_stems
from bot.turn.audience import DIRECT_ROOM, Audience
from tests.test_memory_embeddings import ConceptEmbedder

__all__: list[str] = []

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: NOW) as backend:
        yield backend


async def said(
    memory: MemoryBackend,
    text: str,
    reply: str = "Nice!",
    *,
    at: datetime = NOW,
    heard_by: Audience = DIRECT_ROOM,
) -> None:
    turn = TurnRecord(text, reply, "telegram", at, "ana", "zoe", audience=heard_by.label)
    await memory.sync(turn)


PUB = Audience("telegram:-100pub")
OFFICE = Audience("matrix:!office:example.org")


def episodes(hits: list[MemoryHit]) -> list[str]:
    """The messages recalled: episodes, and the messages recalled facts were told in."""
    return [
        hit.item.context or hit.item.text
        for hit in hits
        if hit.item.kind == "episode" or hit.item.context
    ]


def texts(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.text for hit in hits]


async def test_a_past_tense_story_is_no_fact_but_is_recalled_with_its_date(
    memory: SqliteFtsMemory,
) -> None:
    told = "Yesterday I went to Lisbon with Marta and we ate grilled sardines."
    await said(memory, told, at=datetime(2026, 5, 9, 20, 0, tzinfo=UTC))
    assert not any(item.text == told for item in await memory.list_items())  # no durable fact
    hits = await memory.prefetch("when did I go to Lisbon?", limit=4)
    assert episodes(hits)[0] == told
    assert hits[0].citation == "[episode · 2026-05-09 · dm]"


async def test_both_sides_are_kept_and_the_reply_is_never_a_fact(memory: SqliteFtsMemory) -> None:
    await said(memory, "What should I plant on the balcony?", "Try basil and cherry tomatoes.")
    hits = await memory.prefetch("basil tomatoes", limit=4)
    assert texts(hits) == ["Try basil and cherry tomatoes."]
    assert await memory.list_items() == []


async def test_a_repeat_reinforces_one_episode(memory: SqliteFtsMemory) -> None:
    for day in (1, 2, 3):
        await said(memory, "Going for a run by the river.", at=NOW - timedelta(days=day))
    hits = await memory.prefetch("run river", limit=8)
    assert episodes(hits) == ["Going for a run by the river."]
    assert hits[0].item.reinforced == 2
    assert (await memory.stats())["episodes"] == {"active": 2}  # the run and one "Nice!"


async def test_a_turn_keeps_what_is_new_and_reinforces_what_is_not(
    memory: SqliteFtsMemory,
) -> None:
    """Both sides of a turn are written together; each is still its own episode, new or a
    repeat of what that speaker said before, in the order they were said."""
    await said(memory, "I adopted a cat named Miso.", "Congratulations!")
    await said(memory, "Congratulations!", "Congratulations!")
    kept = [
        (row["id"], row["speaker"], row["text"], row["reinforced"])
        for row in await memory.export()
        if row["kind"] == "episode"
    ]
    assert kept == [
        ("e1", "user", "I adopted a cat named Miso.", 0),
        ("e2", "persona", "Congratulations!", 1),
        ("e3", "user", "Congratulations!", 0),
    ]
    hits = await memory.prefetch("cat Miso", limit=4)
    assert episodes(hits)[0] == "I adopted a cat named Miso."


@pytest.mark.parametrize("kind", ["bm25", "vectors"])
async def test_a_direct_episode_is_never_recalled_in_a_shared_room_nor_a_rooms_in_another(
    kind: str, memory: SqliteFtsMemory, embedded: SqliteFtsMemory
) -> None:
    store = embedded if kind == "vectors" else memory
    await said(store, "I went to the clinic about my knee.", "Get well soon.")
    await said(store, "We watched the match at the pub.", heard_by=PUB)
    await said(store, "The printer on floor two is jammed.", heard_by=OFFICE)
    for query in ("clinic knee", "get well soon", "match pub", "printer jammed"):
        found = texts(await store.prefetch(query, limit=8, audience=PUB))
        assert "I went to the clinic about my knee." not in found
        assert "Get well soon." not in found
        assert "The printer on floor two is jammed." not in found
        found = texts(await store.prefetch(query, limit=8, audience=OFFICE))
        assert "We watched the match at the pub." not in found
    assert "We watched the match at the pub." in texts(
        await store.prefetch("match pub", limit=5, audience=PUB)
    )
    assert "Get well soon." in episodes(await store.prefetch("get well soon", limit=5))
    assert "The printer on floor two is jammed." in episodes(
        await store.prefetch("printer jammed", limit=5)
    )
    # said again in a shared room, that room keeps its own copy, and no other room sees it
    await said(store, "I went to the clinic about my knee.", heard_by=PUB)
    assert "I went to the clinic about my knee." in episodes(
        await store.prefetch("clinic knee", limit=5, audience=PUB)
    )
    assert "I went to the clinic about my knee." not in texts(
        await store.prefetch("clinic knee", limit=5, audience=OFFICE)
    )


async def test_an_episode_is_stored_with_its_secret_redacted(memory: SqliteFtsMemory) -> None:
    await said(memory, "My wifi password is hunter2-Blue-77 and the router is in the hall.")
    raw = b"".join(path.read_bytes() for path in memory.path.parent.iterdir() if path.is_file())
    assert b"hunter2-Blue-77" not in raw
    assert episodes(await memory.prefetch("hunter2-Blue-77", limit=5)) == []
    assert episodes(await memory.prefetch("wifi", limit=5)) == [
        "My wifi password is [secret withheld: password]."
    ]


async def test_forget_and_explain_an_episode(memory: SqliteFtsMemory) -> None:
    await said(memory, "Hi!", "Did you find the keys you lost at the gym?")
    hit = (await memory.prefetch("keys gym", limit=1))[0]
    assert hit.item.id.startswith("e")
    details = await memory.explain(hit.item.id)
    assert details["kind"] == "episode" and details["speaker"] == "persona"
    assert details["said"].startswith("2026-05-20")
    assert await memory.forget(hit.item.id)
    assert episodes(await memory.prefetch("keys gym", limit=5)) == []
    with sqlite3.connect(memory.path) as db:  # kept, only marked
        rowid = int(hit.item.id.removeprefix("e"))
        status = db.execute("SELECT status FROM episodes WHERE id = ?", (rowid,)).fetchall()
        assert status == [("forgotten",)]
    assert [event["kind"] for event in (await memory.explain(hit.item.id))["history"]] == [
        "forgotten"
    ]


async def test_stems_and_accents_find_a_fact_the_words_differ_from(
    memory: SqliteFtsMemory,
) -> None:
    await memory.add("Scott is allergic to peanuts", source="cli", force=True)
    assert [hit.item.text for hit in await memory.search("peanut allergy")] == [
        "Scott is allergic to peanuts"
    ]
    await said(memory, "A minha irmã viajou para Coimbra com as crianças.")
    assert texts(await memory.prefetch("viagem da irma a coimbra", limit=3)) == [
        "A minha irmã viajou para Coimbra com as crianças."
    ]


async def test_time_words_prefer_what_was_said_then(memory: SqliteFtsMemory) -> None:
    await said(memory, "Dinner with Rita at the Thai place.", at=datetime(2026, 3, 14, tzinfo=UTC))
    await said(
        memory, "Dinner with Rita at the new ramen bar.", at=datetime(2026, 5, 12, tzinfo=UTC)
    )
    march = episodes(await memory.prefetch("jantar com a Rita em março dinner", limit=1))
    assert march == ["Dinner with Rita at the Thai place."]
    last_week = episodes(await memory.prefetch("dinner with Rita last week", limit=1))
    assert last_week == ["Dinner with Rita at the new ramen bar."]


async def test_a_window_finds_its_episode_behind_a_full_pool_of_better_matches(
    memory: SqliteFtsMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty stronger word matches from other months fill the BM25 pool; the one said in the
    week asked about still comes first, and both rankings come back in one statement (of
    one search: the second, with the first's words, is counted out)."""
    monkeypatch.setattr(second_search, "SEED_HITS", 0)
    for day in range(40):
        await said(
            memory,
            f"Dinner with Rita, dinner again with Rita, Rita's dinner number {day}.",
            at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=day),
        )
    await said(memory, "Dinner with Rita downtown.", at=datetime(2026, 5, 13, tzinfo=UTC))
    await memory.prefetch("dinner with Rita", limit=3)  # the words' counts are read
    seen: list[str] = []
    await memory._store.db.set_trace_callback(seen.append)
    hits = episodes(await memory.prefetch("dinner with Rita last week", limit=3))
    await memory._store.db.set_trace_callback(None)
    assert hits[0] == "Dinner with Rita downtown."
    assert sum(not sql.startswith("--") and "episodes_fts MATCH" in sql for sql in seen) == 1


async def test_the_farm_is_found_when_its_name_is_also_a_weekday(
    memory: SqliteFtsMemory,
) -> None:
    """Thursday or the farm, "na quinta": the episodes said on a Thursday rank higher, and the
    one about the farm is still found by its word."""
    await said(
        memory, "Plantámos couves e alfaces na quinta do avô.", at=datetime(2026, 5, 2, tzinfo=UTC)
    )
    for day in (7, 14):  # Thursdays: planting too, but in the garden
        await said(memory, "Plantámos flores no jardim.", at=datetime(2026, 5, day, tzinfo=UTC))
    hits = episodes(await memory.prefetch("o que plantámos na quinta?", limit=3))
    assert hits[0] == "Plantámos couves e alfaces na quinta do avô."


def test_time_windows() -> None:
    def days(query: str) -> list[str]:
        window = read_time(query, NOW).window
        assert window is not None, query
        return [datetime.fromtimestamp(edge, UTC).date().isoformat() for edge in window]

    assert days("what did I do last week") == ["2026-05-11", "2026-05-18"]
    assert days("o que fiz em março") == ["2026-03-01", "2026-04-01"]
    assert days("in December") == ["2025-12-01", "2026-01-01"]
    assert days("ontem") == ["2026-05-19", "2026-05-20"]
    assert read_time("I may go, Marco said", NOW).window is None
    assert read_time("when did I go to Lisbon", NOW).asks_when
    assert read_time("quando é que fui a Lisboa", NOW).asks_when


def test_stems_meet_across_forms_and_languages() -> None:
    assert set(query_stems("peanut")) & set(index_terms("peanuts").split())
    assert set(query_stems("viajar")) & set(index_terms("Eu viajei com a minha mãe").split())
    assert index_terms("École") == index_terms("ecole")
    # a short Portuguese fact without articles is still stemmed as Portuguese, so another
    # gender or number of its words finds it
    for fact, asked in (
        ("Trabalho como enfermeira", "enfermeiro"),
        ("Tenho dois gatos pretos", "gato preto"),
    ):
        assert set(query_stems(asked)) & set(index_terms(fact).split()), fact
    assert index_terms("I live near Lake Como") == "i live near lake como"


async def test_asked_when_the_dated_episode_wins_over_the_same_fact(
    memory: SqliteFtsMemory,
) -> None:
    told = (
        "The house is chaos this week, boxes everywhere and the boiler is making that noise"
        " again. We adopted a cat called Miso."
    )
    await said(memory, told, at=datetime(2026, 2, 3, tzinfo=UTC))
    assert "We adopted a cat called Miso." in [item.text for item in await memory.list_items()]
    what = await memory.prefetch("the cat Miso we adopted", limit=1)
    assert what[0].item.kind == "fact"  # asked what, the fact (with its category) answers
    when = await memory.prefetch("when did we adopt Miso?", limit=1)
    assert when[0].citation == "[episode · 2026-02-03 · dm]"


async def test_a_fact_told_in_a_short_message_is_searched_as_that_message(
    memory: SqliteFtsMemory,
) -> None:
    """A short message is its fact: the fact's row, shorter, is not searched beside it (it
    won BM25 on one common word over longer messages that say more)."""
    await said(memory, "We adopted a cat called Miso.", "A cat! What colour is she?")
    await said(
        memory,
        "Work was long, the trains were late again, and then at the vet they told us Miso is"
        " a she and about two years old.",
        "Two years old, so still a young cat then.",
    )
    assert "We adopted a cat called Miso." in [item.text for item in await memory.list_items()]
    hits = await memory.prefetch("Miso the cat", limit=3)
    assert [hit.item.kind for hit in hits] == ["episode"] * len(hits)
    assert hits[0].item.text == "We adopted a cat called Miso."


async def test_a_message_that_only_repeats_words_of_a_better_one_takes_no_place(
    memory: SqliteFtsMemory,
) -> None:
    """A greeting of one word ("morning") is a phrase of the better message that holds it:
    the place goes to the next message that says something of its own."""
    await said(memory, "morning", "Morning! Sleep well?")
    await said(memory, "I only drink black coffee in the morning, can't function otherwise")
    await said(memory, "switched to green tea in the mornings, coffee was wrecking my sleep")
    hits = await memory.prefetch("what do I drink in the morning these days?", limit=2)
    texts = [hit.item.text for hit in hits]
    assert "morning" not in texts
    assert "switched to green tea in the mornings, coffee was wrecking my sleep" in texts


LONG = (
    "Long week at work. I am allergic to peanuts, so no satay for me. "
    "My sister Ana works as a nurse in Leeds."
)


@pytest.mark.parametrize("kind", ["bm25", "vectors"])
async def test_a_fact_and_the_message_it_was_told_in_are_one_hit(
    memory: SqliteFtsMemory, embedded: SqliteFtsMemory, kind: str
) -> None:
    """The facts of a message and its episode take one place among the hits: the best fact,
    citing the episode, with the message for context; the budget goes to other messages."""
    backend = memory if kind == "bm25" else embedded
    await said(backend, LONG, "Noted!")
    await said(backend, "Ana and I went to Leeds market, peanuts everywhere.", "Fun!")
    hits = await backend.prefetch("peanuts sister nurse Leeds", limit=5)
    told_in_first = [hit for hit in hits if "e1" in (hit.item.id, hit.item.episode)]
    assert len(told_in_first) == 1
    (hit,) = told_in_first
    assert hit.item.kind == "fact" and hit.item.episode == "e1" and hit.item.context == LONG
    assert "Ana and I went to Leeds market, peanuts everywhere." in texts(hits)


async def test_a_recalled_fact_cites_its_episode_even_when_the_episode_is_not_recalled(
    memory: SqliteFtsMemory,
) -> None:
    await said(memory, LONG, "Noted!")
    hits = await memory.prefetch("allergic peanuts", limit=1)
    assert [(hit.item.kind, hit.item.episode, hit.item.context) for hit in hits] == [
        ("fact", "e1", LONG)
    ]
    assert (await memory.explain(hits[0].item.id))["episode"] == "e1"


async def test_a_forgotten_episode_is_not_shown_beside_its_fact(memory: SqliteFtsMemory) -> None:
    await said(memory, LONG, "Noted!")
    assert await memory.forget("e1")
    hits = await memory.prefetch("allergic peanuts", limit=5)
    assert [hit.item.text for hit in hits] == ["I am allergic to peanuts, so no satay for me."]
    assert hits[0].item.context == ""


async def test_asked_when_a_fact_and_its_episode_are_the_dated_episode(
    memory: SqliteFtsMemory,
) -> None:
    await said(memory, LONG, "Noted!", at=NOW - timedelta(days=3))
    hits = await memory.prefetch("when did I say I am allergic to peanuts?", limit=5)
    assert [hit.item.id for hit in hits if "e1" in (hit.item.id, hit.item.episode)] == ["e1"]


async def test_a_fact_no_message_said_stands_alone(memory: SqliteFtsMemory) -> None:
    await memory.add("I am allergic to peanuts.", source="cli", force=True)
    (hit,) = await memory.prefetch("allergic peanuts", limit=5)
    assert hit.item.episode == "" and hit.item.context == ""


async def newer_message_matching_less_stays_below(memory: MemoryBackend) -> None:
    """BM25 alone ranks messages as it ranks facts: recency only breaks ties, so a message
    from long ago that matches a little better stays above a newer one."""
    older = "The spare house keys are with Marta, in the blue tin on her kitchen shelf."
    newer = "The spare house keys are with Marta, in the old blue tin on her kitchen shelf."
    await said(memory, "Before I forget.", older, at=NOW - timedelta(days=700))
    await said(memory, "Also this.", newer, at=NOW)
    found = await memory.search("spare house keys Marta")
    hits = [hit for hit in found if hit.item.kind == "episode"]
    assert texts(hits)[:2] == [older, newer]
    # so close that recency at its weight with a model (0.05) would have put the newer first
    assert hits[0].parts["bm25"] - hits[1].parts["bm25"] < 0.04


async def test_without_a_model_a_newer_message_matching_less_stays_below(
    memory: SqliteFtsMemory,
) -> None:
    await newer_message_matching_less_stays_below(memory)
