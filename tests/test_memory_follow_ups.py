"""A message that refers back, resolved against the room's last messages before memory is
searched; one that needs nothing is searched as it is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.memory.base import TurnRecord
from bot.memory.follow_ups import (
    RECENT_MESSAGES,
    Resolved,
    recall,
    refers_back,
    resolve,
)
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.turn.conversation import Entry
from bot.turn.session import Conversation, _recent

T0 = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)


def test_a_pronoun_takes_the_name_just_said() -> None:
    resolved = resolve("Where is he living now?", ["I spoke to Tomasz on the phone", "And?"])
    assert "tomasz" in resolved.query.split()
    assert resolved.query.startswith("Where is he living now?")
    assert resolved.drawn_from == ("I spoke to Tomasz on the phone", "And?")


def test_there_takes_the_place_and_a_vague_phrase_the_subject() -> None:
    there = resolve("What did we live above there?", ["Mum sent photos from Whitby", "Lovely!"])
    assert "whitby" in there.query.split()
    vague = resolve(
        "What was the present in the end?",
        ["Mum is still talking about her seventieth", "A lovely day."],
    )
    assert "seventieth" in vague.query.split()


def test_portuguese_pronouns_and_la_point_back() -> None:
    person = resolve("e o que é que ela faz mesmo?", ["a Rui ligou-me ontem", "Como está ela?"])
    assert "rui" in person.query.split()
    place = resolve("quando é que fomos lá?", ["vi as fotografias de Salamanca", "Que saudades!"])
    assert "salamanca" in place.query.split()
    # "está" is a verb, "esta" a demonstrative
    assert not refers_back("como está o Pedro hoje?")
    assert refers_back("quando comprei esta mota?")


def test_a_full_question_is_searched_as_it_is() -> None:
    said = ["It rained all day and the garden is a pond", "Oh dear."]
    for question in (
        "What do I do for a living?",
        "Where did Marta go to university?",
    ):
        assert resolve(question, said) == Resolved(question)


def test_without_a_live_conversation_nothing_changes() -> None:
    assert resolve("Where is he living now?", []) == Resolved("Where is he living now?")
    assert resolve("Where is he living now?", ["", " "]) == Resolved("Where is he living now?")


def test_only_the_last_messages_lend_words() -> None:
    older = ["Tomasz moved to Gdansk", "Nice."]
    newer = [f"message {n} about Beatriz" for n in range(RECENT_MESSAGES)]
    resolved = resolve("Where is she now?", [*older, *newer])
    assert "beatriz" in resolved.query.split()
    assert "tomasz" not in resolved.query.split() and "gdansk" not in resolved.query.split()


def test_the_conversation_lends_only_on_record_turns() -> None:
    def entry(text: str, **kw: object) -> Entry:
        return Entry("user", text, T0, **kw)  # type: ignore[arg-type]

    conversation = Conversation(
        [
            entry("Tomasz moved to Gdansk"),
            entry("Beatriz is in Porto"),
            entry("the door code is 4417, Holly knows it", otr=True),
            entry("Earlier turns now live in memory", kind="pointer"),
        ]
    )
    recent = _recent(conversation)
    assert "Beatriz is in Porto" in recent
    assert not any("4417" in text or "Earlier turns" in text for text in recent)


async def test_a_follow_up_recalls_what_only_the_live_words_find(tmp_path: Path) -> None:
    memory = SqliteFtsMemory(tmp_path, now=lambda: T0 + timedelta(days=30))
    await memory.open()
    try:
        await memory.sync(
            TurnRecord(
                "My brother Tomasz got a flat in Gdansk right over the harbour",
                "A harbour view!",
                "telegram",
                T0,
                "scott",
                "inara",
            )
        )
        live = ["Tomasz rang this morning and talked for ages", "How is he doing?"]
        await memory.sync(TurnRecord(*live, "telegram", T0 + timedelta(days=30), "scott", "inara"))
        question = "Where is he living now?"
        alone = await memory.prefetch(question, limit=5)
        assert not any("Gdansk" in hit.item.text for hit in alone)
        hits = await recall(memory, question, live, limit=5)
        assert hits and "Gdansk" in hits[0].item.text
        # the live messages themselves are in the prompt already: not recalled again
        assert not any(hit.item.text in live for hit in hits)
    finally:
        await memory.close()
