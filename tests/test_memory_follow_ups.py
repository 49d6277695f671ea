"""A message that refers back, resolved against the room's last messages before memory is
searched; one that needs nothing is searched as it is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.memory.base import MemoryHit, TurnRecord
from bot.memory.follow_ups import (
    RECENT_MESSAGES,
    Resolved,
    recall,
    refers_back,
    resolve,
)
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.turn.audience import DIRECT_ROOM, Audience
from bot.turn.conversation import Conversation, Entry
from bot.turn.session_memory import _recent

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


def test_after_a_change_of_subject_only_the_newest_names_lead() -> None:
    said = [
        "My cousin Ana started at the bakery on Monday",
        "That is great news about Ana!",
        "Guess what, Tomasz rang this morning",
        "How is he doing?",
    ]
    both = resolve("Where is he living now?", said).query.split()
    assert {"tomasz", "ana"} <= set(both)
    newest = resolve("Where is he living now?", said, newest_names=True).query.split()
    assert "tomasz" in newest and "ana" not in newest
    # the words of the newest exchange take the places the old subject's names had
    assert "rang" in newest and "morning" in newest
    # with one subject only, the same names lead either way
    alone = said[2:]
    assert resolve("Where is he now?", alone, newest_names=True) == resolve(
        "Where is he now?", alone
    )


class _Asked(SqliteFtsMemory):
    """A memory that says what it was asked, and whether it searches by meaning."""

    def __init__(self, persona_dir: Path, *, meaning: bool) -> None:
        super().__init__(persona_dir, now=lambda: T0)
        self.meaning = meaning
        self.asked: list[str] = []

    @property
    def searches_meaning(self) -> bool:
        return self.meaning

    async def prefetch(
        self, query: str, *, limit: int = 8, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        self.asked.append(query)
        return await super().prefetch(query, limit=limit, audience=audience)


async def test_only_a_memory_that_searches_by_meaning_takes_the_newest_names(
    tmp_path: Path,
) -> None:
    said = ["So Ana got the job at the bakery", "Good!", "Guess what, Tomasz rang", "Nice."]
    asked = {}
    for meaning in (False, True):
        memory = _Asked(tmp_path / str(meaning), meaning=meaning)
        async with memory:
            await recall(memory, "where does he live?", said, limit=5)
        asked[meaning] = memory.asked[0].split()
    assert "ana" in asked[False] and "tomasz" in asked[False]
    assert "ana" not in asked[True] and "tomasz" in asked[True]
    assert not SqliteFtsMemory(tmp_path).searches_meaning


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
        later = T0 + timedelta(days=30)
        await memory.sync(TurnRecord(live[0], live[1], "telegram", later, "scott", "inara"))
        question = "Where is he living now?"
        alone = await memory.prefetch(question, limit=5)
        assert not any("Gdansk" in hit.item.text for hit in alone)
        hits = await recall(memory, question, live, limit=5)
        assert hits and "Gdansk" in hits[0].item.text
        # the live messages themselves are in the prompt already: not recalled again
        assert not any(hit.item.text in live for hit in hits)
    finally:
        await memory.close()
