"""The holographic backend: structural recall, persistence, lifecycle, tools."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.holographic.backend import HolographicMemory
from bot.tools.registry import ToolFailed

Opener = Callable[[], Awaitable[HolographicMemory]]


@pytest.fixture
async def opener(tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens backends on one persona folder and closes every one of them, even after a
    failed assertion (an open SQLite connection would keep the test process alive)."""
    opened: list[HolographicMemory] = []

    async def open_one() -> HolographicMemory:
        backend = HolographicMemory(tmp_path)
        await backend.open()
        opened.append(backend)
        return backend

    yield open_one
    for backend in opened:
        await backend.close()


@pytest.fixture
async def memory(opener: Opener) -> HolographicMemory:
    return await opener()


def word_overlap(query: str, text: str) -> int:
    """A plain bag-of-words scorer: how many times the query's content words occur."""
    stop = {"what", "who", "does", "do", "for", "the", "a", "is"}
    words = re.findall(r"[a-z]+", text.lower())
    stems = [w[:-1] if w.endswith("s") else w for w in words]
    wanted = {w[:-1] if w.endswith("s") else w for w in re.findall(r"[a-z]+", query.lower())}
    return sum(1 for w in stems if w in wanted - stop)


async def remember(memory: HolographicMemory, *texts: str) -> list[str]:
    ids = []
    for text in texts:
        result = await memory.add(text, source="test", force=True)
        assert result.stored, result
        assert result.item_id is not None
        ids.append(result.item_id)
    return ids


def turn(user_text: str, reply: str = "Noted.") -> TurnRecord:
    return TurnRecord(user_text, reply, "telegram", datetime.now(UTC), "alice", "inara")


async def test_it_is_a_memory_backend_named_holographic(tmp_path: Path) -> None:
    backend = HolographicMemory(tmp_path)
    assert isinstance(backend, MemoryBackend)
    assert backend.name == "holographic"


# -- recall by structure --------------------------------------------------------------------


async def test_structure_answers_what_word_overlap_gets_wrong(memory: HolographicMemory) -> None:
    texts = [
        "Scott prefers tea for breakfast",
        "Holly prefers coffee for breakfast when Scott cooks Scott's breakfast",
    ]
    await remember(memory, *texts)
    query = "what does Scott prefer for breakfast"
    lexical_pick = max(texts, key=lambda text: word_overlap(query, text))
    assert lexical_pick == texts[1]  # more query words, wrong person

    top = memory.recall(query)[0]
    assert top.hit.item.text == texts[0]
    assert top.answer == ["tea"]
    assert "hrr" in top.hit.parts and "lexical" not in top.hit.parts

    holly = memory.recall("what does Holly prefer for breakfast")[0]
    assert holly.hit.item.text == texts[1]
    assert holly.answer == ["coffee"]


async def test_swapped_roles_are_told_apart(memory: HolographicMemory) -> None:
    await remember(memory, "Scott likes Holly", "Holly likes Scott")
    assert word_overlap("who does Scott like", "Scott likes Holly") == word_overlap(
        "who does Scott like", "Holly likes Scott"
    )
    found = memory.recall("who does Scott like")
    structural = [r for r in found if "hrr" in r.hit.parts]
    assert [r.hit.item.text for r in structural] == ["Scott likes Holly"]
    assert structural[0].answer == ["holly"]
    # the other sentence may still come back, but only as an explicitly lexical, lower hit
    for other in found[1:]:
        assert "lexical" in other.hit.parts and "hrr" not in other.hit.parts
        assert other.hit.score < structural[0].hit.score

    asked_subject = memory.recall("who likes Scott")[0]
    assert asked_subject.hit.item.text == "Holly likes Scott"
    assert asked_subject.answer == ["holly"]


async def test_negation_is_part_of_the_structure(memory: HolographicMemory) -> None:
    await remember(memory, "I don't like coffee", "I like tea")
    structural = [r for r in memory.recall("what do I like") if "hrr" in r.hit.parts]
    assert [r.hit.item.text for r in structural] == ["I like tea"]


async def test_portuguese_and_english_meet_in_one_structure(memory: HolographicMemory) -> None:
    await remember(memory, "o aniversário de Scott é 3 de março", "my wife is Holly")
    english = memory.recall("when is Scott's birthday")[0]
    assert english.hit.item.text == "o aniversário de Scott é 3 de março"
    assert set(english.answer) == {"3", "marco"}
    portuguese = memory.recall("quem é minha esposa")[0]
    assert portuguese.hit.item.text == "my wife is Holly"
    assert portuguese.answer == ["holly"]


async def test_who_prefers_asks_for_the_subject(memory: HolographicMemory) -> None:
    await remember(memory, "Scott prefers tea for breakfast", "Holly prefers coffee for lunch")
    top = memory.recall("who prefers coffee?")[0]
    assert top.hit.item.text == "Holly prefers coffee for lunch"
    assert top.answer == ["holly"]


async def test_unparseable_query_is_answered_explicitly_lexically(
    memory: HolographicMemory,
) -> None:
    await remember(memory, "Scott prefers tea for breakfast", "The boiler was serviced in May")
    found = memory.recall("boiler service history?")
    assert [r.hit.item.text for r in found] == ["The boiler was serviced in May"]
    assert set(found[0].hit.parts) == {"lexical"}
    assert memory.recall("quantum chromodynamics") == []


async def test_category_narrows_recall(memory: HolographicMemory) -> None:
    await memory.add(
        "Scott prefers tea for breakfast", source="t", category="preference", force=True
    )
    await memory.add("Scott prefers the night shift", source="t", category="decision", force=True)
    found = memory.recall("what does Scott prefer", category="decision")
    assert [r.hit.item.text for r in found] == ["Scott prefers the night shift"]


async def test_capacity_hundreds_of_items_still_answer_correctly(memory: HolographicMemory) -> None:
    rng = random.Random(11)
    drinks = ["tea", "coffee", "juice", "water", "milk", "cocoa", "soda", "kombucha", "cider"]
    truth: dict[tuple[str, str], str] = {}
    for number in range(150):
        for meal in rng.sample(["breakfast", "lunch", "dinner"], 2):
            drink = rng.choice(drinks)
            truth[(f"person{number}", meal)] = drink
            await memory.add(f"person{number} prefers {drink} for {meal}", source="t", force=True)
    assert (await memory.stats())["traces"] == 300
    sample = rng.sample(sorted(truth.items()), 60)
    correct = 0
    for (person, meal), drink in sample:
        top = memory.recall(f"what does {person} prefer for {meal}", limit=3)[0]
        correct += top.hit.item.text == f"{person} prefers {drink} for {meal}"
        correct += top.answer == [drink]
    assert correct == 2 * len(sample)


# -- persistence ----------------------------------------------------------------------------


async def test_recall_survives_a_restart(opener: Opener) -> None:
    first = await opener()
    ids = await remember(first, "Scott prefers tea for breakfast", "Holly prefers coffee")
    await first.forget(ids[1])
    await first.close()

    second = await opener()
    top = second.recall("what does Scott prefer for breakfast")[0]
    assert top.hit.item.id == ids[0]
    assert top.answer == ["tea"]
    assert all(r.hit.item.id != ids[1] for r in second.recall("what does Holly prefer"))
    stats = await second.stats()
    assert stats["traces"] == 1
    assert stats["by_status"] == {"active": 1, "forgotten": 1}


async def test_database_is_migrated_and_holds_the_trace(
    memory: HolographicMemory, tmp_path: Path
) -> None:
    await remember(memory, "Scott prefers tea for breakfast")
    await memory.close()
    with sqlite3.connect(tmp_path / "holographic.db") as db:
        assert db.execute("SELECT MAX(version) FROM schema_version").fetchone() == (4,)
        text, blob = db.execute("SELECT text, trace FROM items").fetchone()
    assert text == "Scott prefers tea for breakfast"
    assert len(blob) == 1024 * 4


# -- write policy ---------------------------------------------------------------------------


async def test_policy_rejects_trivia_unless_forced(memory: HolographicMemory) -> None:
    refused = await memory.add("ok", source="chat")
    assert not refused.stored and refused.reason.startswith("rejected")
    forced = await memory.add("ok then, noted", source="cli", force=True)
    assert forced.stored and forced.category == "fact"
    accepted = await memory.add("I like green tea", source="chat")
    assert accepted.stored and accepted.category == "preference"
    item = (await memory.list_items())[0]
    assert item.text == "I like green tea" and 0 < item.confidence < 1


async def test_secrets_are_never_stored_even_when_forced(memory: HolographicMemory) -> None:
    result = await memory.add("my password is hunter2", source="cli", force=True)
    assert not result.stored and "secret" in result.reason
    assert await memory.export() == []


async def test_duplicates_reinforce_and_inject_shows_them(memory: HolographicMemory) -> None:
    assert await memory.inject() == ""
    (first,) = await remember(memory, "I love Lisbon")
    again = await memory.add("I love Lisbon.", source="chat")
    assert not again.stored and again.duplicate_of == first
    block = await memory.inject()
    assert "I love Lisbon" in block
    assert "[preference · test · 1.00]" in block


async def test_a_functional_fact_supersedes_the_old_value(memory: HolographicMemory) -> None:
    (old,) = await remember(memory, "Scott prefers coffee for breakfast")
    (new,) = await remember(memory, "Scott prefers tea for breakfast")
    await remember(memory, "Scott prefers juice for lunch")  # another topic: no conflict
    items = {item.id: item for item in await memory.list_items(include_inactive=True)}
    assert items[old].status == "superseded" and items[new].status == "active"
    assert len(await memory.list_items()) == 2
    explained = await memory.explain(old)
    assert any(entry["event"] == "superseded" for entry in explained["history"])


# -- lifecycle hooks ------------------------------------------------------------------------


async def test_sync_stores_what_the_user_said_not_the_reply(memory: HolographicMemory) -> None:
    await memory.sync(turn("I love Lisbon. ok", reply="I love Paris"))
    texts = [item.text for item in await memory.list_items()]
    assert texts == ["I love Lisbon."]
    assert (await memory.list_items())[0].source == "telegram"


async def test_extract_counts_new_facts_only(memory: HolographicMemory) -> None:
    turns = [turn("I love Lisbon"), turn("I love Lisbon"), turn("eu prefiro chá verde")]
    assert await memory.extract(turns) == 2
    assert await memory.extract(turns) == 0
    assert all(item.reinforced == 0 for item in await memory.list_items())


async def test_mirror_follows_the_file(memory: HolographicMemory) -> None:
    await memory.mirror("MEMORY.md", "# Memory\n- Scott's birthday is March 3\n- I love Lisbon\n")
    items = await memory.list_items()
    assert {item.text for item in items} == {"Scott's birthday is March 3", "I love Lisbon"}
    assert {item.source for item in items} == {"file:MEMORY.md"}
    await memory.mirror("MEMORY.md", "# Memory\n- I love Lisbon\n")
    active = await memory.list_items()
    assert [item.text for item in active] == ["I love Lisbon"]
    everything = await memory.list_items(include_inactive=True)
    assert {item.status for item in everything} == {"active", "superseded"}
    assert memory.recall("when is Scott's birthday") == []


async def test_prefetch_and_search_return_cited_hits(memory: HolographicMemory) -> None:
    await remember(memory, "Scott prefers tea for breakfast")
    (hit,) = await memory.prefetch("what does Scott prefer for breakfast", limit=3)
    assert hit.citation == "[fact · test · 1.00]"
    (searched,) = await memory.search("what does Scott prefer for breakfast")
    assert searched.parts["hrr"] == pytest.approx(hit.score)
    assert {"hrr_subject", "hrr_relation", "hrr_topic", "answer"} <= set(searched.parts)


async def test_forget_marks_and_never_deletes(memory: HolographicMemory) -> None:
    (item_id,) = await remember(memory, "Scott prefers tea for breakfast")
    assert await memory.forget(item_id)
    assert await memory.forget(item_id)  # already forgotten: still known
    assert not await memory.forget("no-such-id")
    assert memory.recall("what does Scott prefer for breakfast") == []
    exported = await memory.export()
    assert [(e["id"], e["status"]) for e in exported] == [(item_id, "forgotten")]
    assert await memory.list_items() == []


async def test_explain_shows_structure_decoding_and_history(memory: HolographicMemory) -> None:
    (item_id,) = await remember(memory, "Scott prefers tea for breakfast")
    await memory.add("Scott prefers tea for breakfast", source="chat")
    explained = await memory.explain(item_id)
    assert explained["structure"]["subject"] == ["scott"]
    assert explained["decoded"]["object"] == ["tea"]
    assert explained["decoded"]["topic"] == ["breakfast"]
    assert [entry["event"] for entry in explained["history"]] == ["created", "reinforced"]
    assert explained["citation"] == "[fact · test · 1.00]"
    assert await memory.explain("missing") == {}


async def test_stats_and_export(memory: HolographicMemory) -> None:
    await remember(memory, "Scott prefers tea for breakfast", "The boiler was serviced in May")
    stats = await memory.stats()
    assert stats["backend"] == "holographic"
    assert stats["dimension"] == 1024
    assert stats["traces"] == 2 and stats["structured"] == 2
    assert stats["by_category"] == {"fact": 2}
    assert stats["symbols"] >= 6
    exported = await memory.export()
    assert [e["text"] for e in exported] == [
        "Scott prefers tea for breakfast",
        "The boiler was serviced in May",
    ]
    assert exported[0]["structure"]["relation"] == ["prefer"]


# -- tools ----------------------------------------------------------------------------------


async def test_tools_search_add_forget(memory: HolographicMemory) -> None:
    tools = {tool.name: tool for tool in memory.tools()}
    assert set(tools) == {"memory_search", "memory_add", "memory_forget"}

    added = await tools["memory_add"].handler({"text": "I like green tea"})
    assert added.startswith("Stored as preference")
    item_id = added.rsplit("id ", 1)[1].rstrip(").")
    refused = await tools["memory_add"].handler({"text": "ok"})
    assert refused.startswith("Not stored")

    found = await tools["memory_search"].handler({"query": "what do I like"})
    assert "I like green tea [preference · persona · " in found
    assert "answer: green tea" in found
    assert item_id in found

    assert (await tools["memory_forget"].handler({"id": item_id})) == f"Forgotten: {item_id}."
    assert await tools["memory_search"].handler({"query": "what do I like"}) == (
        "No stored memory matches."
    )


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("memory_search", {}),
        ("memory_search", {"query": "x", "limit": 0}),
        ("memory_add", {"text": "  "}),
        ("memory_add", {"text": "I like tea", "category": "gossip"}),
        ("memory_forget", {"id": "nope"}),
    ],
)
async def test_tools_reject_bad_arguments(
    memory: HolographicMemory, name: str, args: dict[str, object]
) -> None:
    tool = next(tool for tool in memory.tools() if tool.name == name)
    with pytest.raises(ToolFailed):
        await tool.handler(args)


async def test_an_unreadable_database_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "holographic.db").write_bytes(b"this is not a database " * 64)
    with pytest.raises(MemoryStoreError, match=r"cannot read .*holographic\.db"):
        await HolographicMemory(tmp_path).open()


async def test_words_no_memory_holds_do_not_drown_the_one_that_matches(
    memory: HolographicMemory,
) -> None:
    await memory.add("Scott plays the cello on Thursdays.", source="t", force=True)
    await memory.add("The boiler was serviced in March.", source="t", force=True)
    hits = await memory.search("cello lessons teacher orchestra fingers practice", limit=3)
    assert [hit.item.text for hit in hits][:1] == ["Scott plays the cello on Thursdays."]
