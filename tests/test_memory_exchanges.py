"""A message and the persona's answer to it are one recalled exchange, for both backends that
keep episodes, and in the prompt; and a message that answers the persona's question is found
by the question's words ("Hotel Dieu, Thursday at eight" by "cataract surgery"), only when the
question came just before, to the same audience, while it is not forgotten, and only where
the two were said together (or in a direct room, which sees everything)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.memory.base import MemoryBackend, MemoryHit
from bot.memory.episodes.engine import analyse
from bot.memory.episodes.file import EPISODE_FILE
from bot.memory.episodes.question_asked import ANSWER_WINDOW, question_in
from bot.memory.episodes.rows import Said
from bot.memory.follow_ups import recall
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.reinforcement import visible_sql
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.schema import SCHEMA_VERSION
from bot.memory.sqlite.stemming import index_terms
from bot.turn.audience import DIRECT, DIRECT_ROOM, SHARED, Audience
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon
from tests.test_memory_episodes import NOW, OFFICE, PUB, said

__all__: list[str] = []

ASKED = "My balcony gets sun all afternoon, what should I plant on it?"
ANSWER = "Basil and cherry tomatoes love an afternoon balcony."


@pytest.fixture(params=["sqlite-fts5", "holographic"])
async def memory(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryBackend]:
    backend: MemoryBackend
    if request.param == "sqlite-fts5":
        backend = SqliteFtsMemory(tmp_path, now=lambda: NOW)
    else:
        backend = HolographicMemory(tmp_path, now=lambda: NOW)
    await backend.open()
    yield backend
    await backend.close()


def _other(side: MemoryHit | None) -> str:
    """The text of the other side taken into a hit ("" when none was)."""
    return side.message if side is not None else ""


def _sides(hits: list[MemoryHit]) -> list[tuple[str, str, str]]:
    return [(hit.item.text, _other(hit.reply), _other(hit.replying_to)) for hit in hits]


async def test_a_message_and_its_answer_take_one_place_and_the_next_moves_up(
    memory: MemoryBackend,
) -> None:
    await said(memory, ASKED, ANSWER, at=NOW - timedelta(days=2))
    await said(memory, "I bought a folding chair for the balcony.", "Sounds cosy.")
    hits = await memory.prefetch("balcony plant basil", limit=3)
    first, second = _sides(hits)
    assert first in ((ASKED, ANSWER, ""), (ANSWER, "", ASKED))
    assert second == ("I bought a folding chair for the balcony.", "", "")


async def test_an_answer_said_again_keeps_a_place_of_its_own(memory: MemoryBackend) -> None:
    """A message said in several exchanges stands for all of them: it is joined to none."""
    await said(memory, "I need to sleep, early start tomorrow.", "Sleep well, sleep long!")
    later = NOW + timedelta(days=1)
    await said(memory, "Going to sleep now, long day.", "Sleep well, sleep long!", at=later)
    hits = await memory.prefetch("sleep well long", limit=4)
    assert "Sleep well, sleep long!" in [hit.item.text for hit in hits]
    assert [(_other(hit.reply), _other(hit.replying_to)) for hit in hits] == [("", "")] * len(hits)


async def test_in_a_room_a_message_shared_alone_never_brings_its_answer(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await said(memory, ASKED, ANSWER)
        assert await memory.share("e1", PUB.label)
        (hit,) = await memory.prefetch("balcony plant basil", limit=4, audience=PUB)
        assert _sides([hit]) == [(ASKED, "", "")]
        direct = await memory.prefetch("balcony plant basil", limit=4)
        assert len(direct) == 1 and ANSWER in (_other(direct[0].reply), direct[0].item.text)


async def test_in_another_room_an_exchange_of_the_direct_chat_is_not_recalled(
    tmp_path: Path,
) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await said(memory, ASKED, ANSWER)
        room = Audience("matrix:!office:example.org")
        assert await memory.prefetch("balcony plant basil", limit=4, audience=room) == []


async def test_the_prompt_shows_a_recalled_message_with_the_answer_it_had(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)
    try:
        llm.queue("Try a lemon tree: the Meyer kind stays small in a pot.")
        await adapter.deliver(
            "Which fruit tree could grow in a pot on my terrace?", sender="scott", event_id="m1"
        )
        llm.queue("Noted.")
        await adapter.deliver("/new", sender="scott", event_id="m2")
        llm.queue("The Meyer lemon.")
        await adapter.deliver(
            "What was that fruit tree for my terrace?", sender="scott", event_id="m3"
        )
        prompt = llm.calls[-1].system.dynamic
        (line,) = [line for line in prompt.splitlines() if "terrace" in line and "Meyer" in line]
        assert "(your reply: Try a lemon tree: the Meyer kind stays small in a pot.)" in line or (
            "(in reply to: Which fruit tree could grow in a pot on my terrace?)" in line
        )
    finally:
        await daemon.stop()


async def test_the_memory_search_tool_lists_each_side_with_its_id_to_forget(
    memory: MemoryBackend,
) -> None:
    """The tool (and the web page, the CLI) search as before: each message its own line and
    id, so the model can forget either side."""
    await said(memory, ASKED, ANSWER)
    tools = {tool.name: tool for tool in memory.tools()}
    found = await tools["memory_search"].handler({"query": "balcony plant basil"})
    assert any(ANSWER in line and "(id e2)" in line for line in found.splitlines())
    assert any(ASKED in line and "e1" in line for line in found.splitlines())
    assert "your reply" not in found and "in reply to" not in found


async def test_a_follow_up_keeps_the_message_whose_answer_is_still_on_screen(
    memory: MemoryBackend,
) -> None:
    """The answer is among the last messages (left out of recall, the prompt holds it): the
    message it answered, joined to it, is recalled on its own."""
    told = "My sister lives in Coimbra now."
    await said(memory, told, "Coimbra is lovely, right by the river.", at=NOW - timedelta(hours=1))
    on_screen = ["Coimbra is lovely, right by the river."]
    hits = await recall(memory, "Does she enjoy it there?", on_screen, limit=4)
    assert told in [hit.item.context or hit.item.text for hit in hits]
    assert all(on_screen[0] not in (hit.item.text, hit.item.context) for hit in hits)


# -- the question a message answers ------------------------------------------------------

OPERATION = "I finally got a date for the eye operation."
WHICH_HOSPITAL = "Oh good! Which hospital is doing the cataract surgery?"
HOSPITAL = "Hotel Dieu, Thursday at eight."
WHERE_SURGERY = "Where is my cataract surgery happening?"


def messages(hits: list[MemoryHit]) -> list[str]:
    """Every message a hit shows: its own, and the other side of its exchange."""
    shown = []
    for hit in hits:
        shown.append(hit.item.text)
        shown.extend(side.message for side in (hit.reply, hit.replying_to) if side is not None)
    return shown


async def hospital_answered(memory: MemoryBackend) -> None:
    """The persona asks which hospital; the person answers two minutes later."""
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(days=3, minutes=2))
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=NOW - timedelta(days=3))


def test_the_last_question_of_a_reply_is_the_one_answered() -> None:
    assert question_in(WHICH_HOSPITAL) == "Which hospital is doing the cataract surgery?"
    two = "Did the plumber fix the boiler? And which day is your sister's wedding, then?"
    assert question_in(two) == "And which day is your sister's wedding, then?"
    assert question_in("E Cabo Verde, sempre em outubro?") == "E Cabo Verde, sempre em outubro?"


def test_a_question_that_says_little_or_no_question_lends_nothing() -> None:
    assert question_in("Good morning! Sleep well?") is None
    assert question_in("Ooh, was it any good?") is None
    # the last question is the one answered, even when an earlier one said more
    assert question_in("Which hospital is doing the cataract surgery? All good?") is None
    assert question_in("Sounds like a lovely day at the beach.") is None
    assert question_in("") is None


async def test_an_answer_is_found_by_the_words_of_the_question_it_answers(
    memory: MemoryBackend,
) -> None:
    await hospital_answered(memory)
    hits = await memory.prefetch(WHERE_SURGERY, limit=5)
    assert HOSPITAL in messages(hits)
    # the message is kept as it was said: the question's words are only in the index
    assert HOSPITAL in [hit.item.text for hit in await memory.prefetch("Hotel Dieu", limit=5)]
    assert WHICH_HOSPITAL not in [hit.item.text for hit in hits if hit.item.text == HOSPITAL]


async def test_an_answer_long_after_the_question_is_not_taken_for_its_answer(
    memory: MemoryBackend,
) -> None:
    later = timedelta(seconds=ANSWER_WINDOW + 60)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(days=3) - later)
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=NOW - timedelta(days=3))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_a_question_asked_in_another_room_lends_no_words(memory: MemoryBackend) -> None:
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(minutes=3), heard_by=PUB)
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=NOW - timedelta(minutes=1))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=DIRECT_ROOM))


async def test_a_forgotten_question_lends_its_words_no_more(memory: MemoryBackend) -> None:
    await hospital_answered(memory)
    question = next(
        hit.item.id
        for hit in await memory.search(WHICH_HOSPITAL, limit=10)
        if hit.item.text == WHICH_HOSPITAL
    )
    assert await memory.forget(question)
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    # the answer itself is still found by its own words
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5))


async def test_an_answer_shared_with_a_room_takes_no_words_of_a_question_the_room_never_heard(
    memory: MemoryBackend,
) -> None:
    await hospital_answered(memory)
    answer = next(
        hit.item.id
        for hit in await memory.search("Hotel Dieu", limit=10)
        if hit.item.text == HOSPITAL
    )
    assert await memory.share(answer, PUB.label)
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_the_index_stays_whole_when_an_answer_is_indexed_again(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await hospital_answered(memory)
        for _ in range(2):  # forgotten, then forgetting it again changes nothing
            assert await memory.forget("e2")
        db = memory._store.db  # rank 1: the index is compared with the table's text too
        await db.execute(
            "INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 1)"
        )
        assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5))
        assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_a_message_never_takes_the_words_of_the_answer_to_it(tmp_path: Path) -> None:
    """The persona's answer is said at the message's moment: it is not the message before,
    even when the message is indexed again (here, on being said once more)."""
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        flights = "I booked the flights for Lisbon."
        asks = "Lovely! Which hotel are you staying at in Alfama?"
        # said again at the same moment, with no answer this time: only the order they were
        # stored in tells the first answer from a message before
        await said(memory, flights, asks, at=NOW - timedelta(days=3))
        await said(memory, flights, "", at=NOW - timedelta(days=3))
        rows = await memory._store.db.execute_fetchall(
            "SELECT terms FROM episodes WHERE text = ?", (flights,)
        )
        assert [terms for (terms,) in rows] == [index_terms(flights)]


async def test_messages_stored_with_one_moment_still_answer_the_question_before_them(
    memory: MemoryBackend,
) -> None:
    """Turns given the same time (a day's conversation brought in at once) are told apart by
    the order they were stored in: the answer takes the question before it, not its own."""
    moment = NOW - timedelta(days=3)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=moment)
    await said(memory, HOSPITAL, "Which ward are they putting you on afterwards?", at=moment)
    await said(memory, "No idea yet.", "Fingers crossed for you.", at=moment)
    assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    assert "No idea yet." in messages(await memory.prefetch("which ward afterwards", limit=5))


ROOT_CANAL = "Which dentist is doing the root canal on Friday?"


def locked(memory: MemoryBackend, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """The episode store's ``step`` fails from now on, as on a database another writer holds."""

    async def refused(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(memory.episodes.store, step, refused)  # type: ignore[attr-defined]


async def test_a_forgotten_question_leaves_its_answer_to_no_older_question(
    memory: MemoryBackend,
) -> None:
    await said(memory, "My tooth still hurts.", ROOT_CANAL, at=NOW - timedelta(days=3, minutes=9))
    await hospital_answered(memory)
    assert await memory.forget("e4")  # the persona's question about the hospital
    assert HOSPITAL not in messages(await memory.prefetch("which dentist root canal", limit=5))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_an_answer_to_a_question_asked_again_takes_that_question(
    memory: MemoryBackend,
) -> None:
    await said(memory, "My tooth still hurts.", ROOT_CANAL, at=NOW - timedelta(days=3, minutes=9))
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(days=3, minutes=5))
    await said(memory, "Sorry, what?", ROOT_CANAL, at=NOW - timedelta(days=3, minutes=2))
    await said(memory, "Dr Okafor, first thing.", "Good luck!", at=NOW - timedelta(days=3))
    assert "Dr Okafor, first thing." in messages(
        await memory.prefetch("Who is doing my root canal?", limit=5)
    )
    assert "Dr Okafor, first thing." not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_an_answer_said_again_in_a_room_keeps_no_words_of_the_direct_question(
    memory: MemoryBackend,
) -> None:
    await hospital_answered(memory)
    await said(memory, HOSPITAL, "Noted.", at=NOW - timedelta(days=1), heard_by=PUB)
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_a_question_forgotten_before_its_answer_lends_nothing_nor_does_an_older_one(
    memory: MemoryBackend,
) -> None:
    await said(memory, "My tooth still hurts.", ROOT_CANAL, at=NOW - timedelta(days=3, minutes=9))
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(days=3, minutes=2))
    assert await memory.forget("e4")  # the hospital question, before it is answered
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=NOW - timedelta(days=3))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    assert HOSPITAL not in messages(await memory.prefetch("which dentist root canal", limit=5))


@pytest.mark.parametrize(
    ("step", "change"),
    [
        ("share", lambda memory: memory.share("e3", PUB.label)),
        ("forget", lambda memory: memory.forget("e2")),
    ],
)
async def test_a_change_that_fails_leaves_the_answer_with_fewer_words_never_more(
    memory: MemoryBackend,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
    change: Callable[[MemoryBackend], Awaitable[bool]],
) -> None:
    """Sharing the answer or forgetting the question fails in the store: the question's
    words left the answer before, and it is still found by its own."""
    await hospital_answered(memory)
    locked(memory, monkeypatch, step)
    with pytest.raises(sqlite3.OperationalError):
        await change(memory)
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5))


@pytest.mark.parametrize("apart", [timedelta(minutes=1), timedelta(0)])
async def test_an_answer_takes_a_question_said_again_where_it_was_first_said_elsewhere(
    memory: MemoryBackend, apart: timedelta
) -> None:
    """The root canal question was first asked in a group room; asked again in the direct
    room (its episode stays the room's), then answered there: the answer takes it, not the
    hospital question between, whether the turns are a minute apart or share one moment."""
    start = NOW - timedelta(days=3)
    await said(memory, "My tooth still hurts.", ROOT_CANAL, at=start, heard_by=PUB)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=start + apart)
    await said(memory, "Sorry, what?", ROOT_CANAL, at=start + 2 * apart)
    await said(memory, "Dr Okafor, first thing.", "Good luck!", at=start + 3 * apart)
    found = messages(await memory.prefetch("Who is doing my root canal?", limit=5))
    assert "Dr Okafor, first thing." in found
    assert "Dr Okafor, first thing." not in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_a_repeat_to_a_room_is_the_rooms_own_with_its_own_words_and_keeps_the_turn(
    memory: MemoryBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    await hospital_answered(memory)
    locked(memory, monkeypatch, "reindex")
    reply = "Noted, I'll tell the others."
    await said(memory, HOSPITAL, reply, at=NOW - timedelta(days=1), heard_by=PUB)
    assert reply in messages(await memory.prefetch("tell the others", limit=5, audience=PUB))
    # the room keeps its own copy of the answer, which never heard the question
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_a_question_said_again_reads_none_of_its_answers(
    memory: MemoryBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question the persona asks in every conversation gathers answers; said again where
    it was said, nothing about them changes, so none is read (the cost of a repeat does not
    grow with them); said again to a room, the room keeps its own copy and the direct
    question stays where it was, its answers as they were."""
    await hospital_answered(memory)
    store = memory.episodes.store  # type: ignore[attr-defined]
    read: list[int] = []
    answers_to = store.answers_to

    async def counted(rowid: int) -> list[tuple[int, str]]:
        read.append(rowid)
        return list(await answers_to(rowid))

    monkeypatch.setattr(store, "answers_to", counted)
    await said(memory, "Any news from the clinic?", WHICH_HOSPITAL, at=NOW - timedelta(days=2))
    assert read == []
    assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    await said(memory, "Tell the club.", WHICH_HOSPITAL, at=NOW - timedelta(days=1), heard_by=PUB)
    assert read == []
    assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5))


async def test_a_question_said_again_in_a_room_still_lends_its_words_to_a_direct_answer(
    memory: MemoryBackend,
) -> None:
    """The direct room heard the question, and still sees it once a room heard it too: its
    answer keeps the question's words; the room sees neither the answer nor its words."""
    await hospital_answered(memory)
    await said(memory, "Tell the club.", WHICH_HOSPITAL, at=NOW - timedelta(days=1), heard_by=PUB)
    assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))


async def test_an_answer_in_a_room_takes_no_words_of_a_question_made_private_again(
    tmp_path: Path,
) -> None:
    """A room's answer keeps its question's words only while the room sees the question."""
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        at = NOW - timedelta(days=3)
        await said(memory, OPERATION, WHICH_HOSPITAL, at=at - timedelta(minutes=2), heard_by=PUB)
        await said(memory, HOSPITAL, "Fingers crossed for you.", at=at, heard_by=PUB)
        assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))
        question = next(
            hit.item.id
            for hit in await memory.search(WHICH_HOSPITAL, limit=10, audience=PUB)
            if hit.item.text == WHICH_HOSPITAL
        )
        assert await memory.share(question, DIRECT_ROOM.label)
        assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))
        assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))


async def _episode(memory: MemoryBackend, text: str, audience: Audience = DIRECT_ROOM) -> str:
    hits = await memory.search(text, limit=10, audience=audience)
    return next(hit.item.id for hit in hits if hit.item.text == text)


@pytest.mark.parametrize("seen", ["shared", "said again there"])
async def test_an_answer_said_again_in_a_room_never_takes_its_question_there(
    memory: MemoryBackend, seen: str
) -> None:
    """The question and its answer were linked in a direct room: the room that later hears the
    answer, and then sees the question too, never learns that one answers the other."""
    await hospital_answered(memory)
    await said(memory, HOSPITAL, "Noted.", at=NOW - timedelta(days=1), heard_by=PUB)
    if seen == "shared":
        assert await memory.share(await _episode(memory, WHICH_HOSPITAL), SHARED)
    else:
        await said(memory, "Ask me.", WHICH_HOSPITAL, at=NOW - timedelta(hours=2), heard_by=PUB)
    assert WHICH_HOSPITAL in messages(await memory.prefetch(WHICH_HOSPITAL, limit=5, audience=PUB))
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_an_answer_shared_with_everyone_never_takes_a_shared_question(
    memory: MemoryBackend,
) -> None:
    await hospital_answered(memory)
    assert await memory.share(await _episode(memory, WHICH_HOSPITAL), SHARED)
    assert await memory.share(await _episode(memory, HOSPITAL), SHARED)
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_a_question_made_private_is_answered_by_no_later_message_of_the_room(
    memory: MemoryBackend,
) -> None:
    at = NOW - timedelta(days=3)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=at - timedelta(minutes=2), heard_by=PUB)
    assert await memory.share(await _episode(memory, WHICH_HOSPITAL, PUB), DIRECT)
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=at, heard_by=PUB)
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


HEARD = {
    DIRECT: {DIRECT, SHARED, PUB.label, OFFICE.label},  # a direct room sees every label
    SHARED: {SHARED},  # every audience sees it, and they share only what is shared
    PUB.label: {SHARED, PUB.label},
    OFFICE.label: {SHARED, OFFICE.label},
}


@pytest.mark.parametrize("answer", list(HEARD))
@pytest.mark.parametrize("question", list(HEARD))
async def test_a_question_is_heard_where_everyone_who_sees_the_answer_sees_it(
    tmp_path: Path, question: str, answer: str
) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        store = memory.episodes.store
        text, norm, terms = analyse(WHICH_HOSPITAL)
        [kept] = await store.record(
            [Said(NOW.timestamp(), "persona", question, "telegram", text, norm, terms)]
        )
        heard = await store.question_heard(kept.rowid, answer)
        assert (heard == text) is (question in HEARD[answer])
        assert await store.forget(kept.rowid)
        assert await store.question_heard(kept.rowid, answer) is None


async def test_a_question_made_private_by_another_process_lends_the_room_nothing(
    memory: MemoryBackend, tmp_path: Path
) -> None:
    """`personad memory unshare` opens the store in a process of its own while the daemon
    runs: the daemon's answer said next in the room takes no words of that question."""
    at = NOW - timedelta(days=3)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=at - timedelta(minutes=2), heard_by=PUB)
    question = await _episode(memory, WHICH_HOSPITAL, PUB)
    other = type(memory)(tmp_path, now=lambda: NOW)  # type: ignore[call-arg]
    await other.open()
    try:
        assert await other.share(question, DIRECT)
    finally:
        await other.close()
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=at, heard_by=PUB)
    assert HOSPITAL in messages(await memory.prefetch("Hotel Dieu", limit=5, audience=PUB))
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


async def test_a_question_made_private_lends_nothing_though_the_index_then_fails(
    memory: MemoryBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = NOW - timedelta(days=3)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=at - timedelta(minutes=2), heard_by=PUB)
    question = await _episode(memory, WHICH_HOSPITAL, PUB)

    async def refused(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    # the label is stored; the indexes' change of it fails (its sentences are read)
    monkeypatch.setattr(memory.episodes, "set_label", refused)  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.OperationalError):
        await memory.share(question, DIRECT)
    monkeypatch.undo()
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=at, heard_by=PUB)
    assert HOSPITAL not in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))


@pytest.mark.parametrize(
    ("kind", "file", "version"),
    [(SqliteFtsMemory, "memory.db", 10), (HolographicMemory, EPISODE_FILE, 5)],
)
async def test_an_answer_that_kept_its_link_in_a_room_before_the_upgrade_is_unlinked(
    tmp_path: Path, kind: type[SqliteFtsMemory] | type[HolographicMemory], file: str, version: int
) -> None:
    """Before the upgrade an answer said again in a room kept the link made in a direct room
    (its words too, had the question been said again there): once opened, it has its own
    words alone and no question, and a direct room's answers keep theirs."""
    memory = kind(tmp_path, now=lambda: NOW)
    await memory.open()
    await hospital_answered(memory)
    await said(memory, "My tooth still hurts.", ROOT_CANAL, at=NOW - timedelta(days=2, minutes=1))
    await said(memory, "Dr Okafor, first thing.", "Good luck!", at=NOW - timedelta(days=2))
    await memory.close()
    with sqlite3.connect(tmp_path / file) as db:
        db.execute("UPDATE episodes SET audience = ? WHERE text = ?", (PUB.label, HOSPITAL))
        db.execute("DROP TABLE old_words")
        db.execute("DELETE FROM schema_version WHERE version > ?", (version,))
    upgraded = kind(tmp_path, now=lambda: NOW)
    await upgraded.open()
    try:
        await said(upgraded, "Ask me.", WHICH_HOSPITAL, at=NOW - timedelta(hours=2), heard_by=PUB)
        assert HOSPITAL in messages(await upgraded.prefetch("Hotel Dieu", limit=5, audience=PUB))
        for room in (PUB, DIRECT_ROOM):
            found = messages(await upgraded.prefetch(WHERE_SURGERY, limit=5, audience=room))
            assert HOSPITAL not in found
        assert "Dr Okafor, first thing." in messages(
            await upgraded.prefetch("Who is doing my root canal?", limit=5)
        )
    finally:
        await upgraded.close()
    with sqlite3.connect(tmp_path / file) as db:
        assert db.execute("SELECT count(*) FROM old_words").fetchone() == (0,)
        (answers,) = db.execute("SELECT answers FROM episodes WHERE text = ?", (HOSPITAL,))
        assert answers == (None,)


async def test_a_rooms_answer_takes_the_words_of_a_shared_question_said_in_the_room(
    memory: MemoryBackend,
) -> None:
    """The persona's question, shared with everyone already, said in the room: the room heard
    it, and its answer there is found by its words."""
    await said(memory, OPERATION, WHICH_HOSPITAL, at=NOW - timedelta(days=5))
    assert await memory.share(await _episode(memory, WHICH_HOSPITAL), SHARED)
    at = NOW - timedelta(days=3)
    await said(memory, OPERATION, WHICH_HOSPITAL, at=at - timedelta(minutes=2), heard_by=PUB)
    await said(memory, HOSPITAL, "Fingers crossed for you.", at=at, heard_by=PUB)
    assert HOSPITAL in messages(await memory.prefetch(WHERE_SURGERY, limit=5, audience=PUB))
    assert HOSPITAL not in messages(
        await memory.prefetch(WHERE_SURGERY, limit=5, audience=Audience("telegram:-100other"))
    )


async def test_every_message_that_took_words_before_the_upgrade_has_its_own_alone(
    tmp_path: Path,
) -> None:
    """Before v10 an answer took its question's words with no link: where they were heard is
    not known, so on the upgrade every such message, more than one batch of them, keeps its own
    words alone; a direct room's linked answer keeps its question's."""
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await hospital_answered(memory)
        store = memory.episodes.store
        start = NOW.timestamp() - 86_400
        batch = []
        for n in range(1_100):
            text, norm, terms = analyse(f"Message number {n} about the garden")
            lent = f"{terms} cataract surgeri" if n % 100 == 7 else terms
            batch.append(Said(start + n, "user", PUB.label, "telegram", text, norm, lent))
        await store.record(batch)
    with sqlite3.connect(tmp_path / "memory.db") as db:
        db.execute("DROP TABLE old_words")
        db.execute("DELETE FROM schema_version WHERE version > 10")
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as upgraded:
        for room in (DIRECT_ROOM, PUB):
            found = messages(await upgraded.prefetch("cataract surgery", limit=20, audience=room))
            assert not [text for text in found if text.startswith("Message number")]
        assert HOSPITAL in messages(await upgraded.prefetch(WHERE_SURGERY, limit=5))
        assert (await upgraded.stats())["schema_version"] == SCHEMA_VERSION


@dataclass
class TwoProcesses:
    """The daemon's store and `personad memory`'s, on one persona's folder, after the
    hospital question was answered in a direct room."""

    daemon: SqliteFtsMemory
    cli: SqliteFtsMemory
    answer: str
    question: str

    async def room_finds_the_answer_by(self, query: str) -> bool:
        return HOSPITAL in messages(await self.daemon.prefetch(query, limit=5, audience=OFFICE))


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[TwoProcesses]:
    daemon = SqliteFtsMemory(tmp_path, now=lambda: NOW)
    cli = SqliteFtsMemory(tmp_path, now=lambda: NOW)
    await daemon.open()
    await cli.open()
    try:
        await hospital_answered(daemon)
        answer = await _episode(daemon, HOSPITAL)
        yield TwoProcesses(daemon, cli, answer, await _episode(daemon, WHICH_HOSPITAL))
    finally:
        await cli.close()
        await daemon.close()


async def test_two_processes_indexing_one_answer_again_keep_the_index_whole(
    two: TwoProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`personad memory forget` of the question in one process while the daemon shares its
    answer with a room: the forget's re-index, judged before the share, reads the answer
    again as it writes, so the index's delete names the stems it holds, and the room finds
    the answer by its own words alone."""
    reindex = two.cli.episodes.store.reindex

    async def shared_meanwhile(*args: Any, **kwargs: Any) -> None:
        assert await two.daemon.share(two.answer, OFFICE.label)
        await reindex(*args, **kwargs)

    monkeypatch.setattr(two.cli.episodes.store, "reindex", shared_meanwhile)
    assert await two.cli.forget(two.question)
    await two.daemon._store.db.execute(
        "INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 1)"
    )
    assert await two.room_finds_the_answer_by("Hotel Dieu")
    assert not await two.room_finds_the_answer_by(WHERE_SURGERY)


async def test_words_lent_by_another_process_while_an_answer_is_shared_go_with_the_link(
    two: TwoProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon shares an answer with a room; between taking the question's words out and
    storing the room, another process indexes the question's answers again (the answer is
    still direct then, and takes the words back): the share that unlinks it takes them out in
    the same transaction."""
    share = two.daemon.episodes.store.share

    async def lent_meanwhile(*args: Any, **kwargs: Any) -> bool:
        assert await two.cli.share(two.question, DIRECT)  # its answers indexed again there
        return bool(await share(*args, **kwargs))

    monkeypatch.setattr(two.daemon.episodes.store, "share", lent_meanwhile)
    assert await two.daemon.share(two.answer, OFFICE.label)
    assert await two.room_finds_the_answer_by("Hotel Dieu")
    assert not await two.room_finds_the_answer_by(WHERE_SURGERY)


async def test_a_store_with_nothing_left_to_settle_opens_while_another_process_writes(
    tmp_path: Path,
) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        await hospital_answered(memory)
        assert await memory.episodes.store.settle_old_words() == 0
    with sqlite3.connect(tmp_path / "memory.db", isolation_level=None) as writer:
        writer.execute("BEGIN IMMEDIATE")
        async with SqliteFtsMemory(tmp_path, now=lambda: NOW, busy_timeout=0.05) as reader:
            assert HOSPITAL in messages(await reader.prefetch(WHERE_SURGERY, limit=5))
        writer.execute("ROLLBACK")


def test_the_rule_in_sql_is_the_rule_in_python() -> None:
    """`visible_sql` (the store's re-index reads both labels in one statement) says what
    `visible_wherever` (and so `question_heard`) says, for every pair of labels."""
    with sqlite3.connect(":memory:") as db:
        for answer, heard in HEARD.items():
            for question in HEARD:
                sql = f"SELECT {visible_sql('?1', '?2')}"
                (seen,) = db.execute(sql, (question, answer)).fetchone()
                assert bool(seen) is (question in heard), (question, answer)
