"""Sentences end where people end them: titles, initials, abbreviations, times, decimals,
URLs and lists in English and Portuguese stay inside their sentence, on every path that keeps
what was said (the write policy, a memory store's sync, promotion into USER.md, compaction)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.sentences import DEFAULT_SET, Case, load
from bot.memory.base import AddResult, TurnRecord
from bot.memory.factory import open_memory
from bot.memory.policy import split_candidates, withhold_sentences
from bot.memory.sentences import sentence_spans, split_sentences
from bot.persona.promotion import Promoter
from bot.persona.store import PersonaStore
from bot.turn.compaction import Compactor
from bot.turn.conversation import Entry
from tests.harness import make_config, make_persona

__all__: list[str] = []

AT = datetime(2026, 5, 9, 12, 0, tzinfo=UTC)


def _wrong(cases: list[Case]) -> list[tuple[str, list[str]]]:
    return [(c.text, got) for c in cases if (got := split_candidates(c.text)) != list(c.sentences)]


def test_the_set_has_both_languages_and_a_held_out_part() -> None:
    cases = load(DEFAULT_SET)
    assert len(cases) >= 120
    assert {case.part for case in cases} == {"tune", "held"}
    assert sum(case.part == "held" for case in cases) >= 50
    for part in ("tune", "held"):
        assert {case.lang for case in cases if case.part == part} == {"en", "pt"}


def test_every_case_of_the_tuning_part_is_split_as_labelled() -> None:
    assert _wrong([case for case in load(DEFAULT_SET) if case.part == "tune"]) == []


def test_every_case_of_the_held_out_part_is_split_as_labelled() -> None:
    # the held-out cases were written with the tuning part, before the rules, and the rules
    # were never tuned on them: a rule that breaks one here is a rule that misreads people
    assert _wrong([case for case in load(DEFAULT_SET) if case.part == "held"]) == []


def test_spans_cover_the_text_in_order() -> None:
    for case in load(DEFAULT_SET):
        rebuilt, position = [], 0
        for start, end, after in sentence_spans(case.text):
            assert position == start <= end <= after
            rebuilt.append(case.text[start:after])
            position = after
        assert "".join(rebuilt) == case.text


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("", []),
        ("Dr.", ["Dr."]),
        ("ok.   ", ["ok."]),
        ("I ❤️ Porto", ["I ❤️ Porto"]),
        ("Adoro café ☕ De manhã e de tarde.", ["Adoro café ☕", "De manhã e de tarde."]),
        ("Step one done. 2. Buy milk", ["Step one done.", "2. Buy milk"]),
        ("We landed in the U.S. It was hot.", ["We landed in the U.S.", "It was hot."]),
        ("Books by J.K. Rowling. Lots.", ["Books by J.K. Rowling.", "Lots."]),
        ("Back on Sun. 14 May. Tired.", ["Back on Sun. 14 May.", "Tired."]),
    ],
)
def test_edges(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_a_long_message_without_ends_is_split_in_linear_time() -> None:
    assert len(split_sentences("Dr. Silva " * 50_000)) == 1
    assert len(split_sentences("J." * 100_000 + " ok")) == 1


def test_a_withheld_sentence_goes_whole_names_and_all() -> None:
    text = "My dentist is Dr. Silva and my password is hunter2hunter2. I live in Porto."
    assert withhold_sentences(text, "[x]") == "[x] I live in Porto."


async def test_promotion_keeps_the_whole_name(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    promoter = Promoter(PersonaStore(tmp_path), lambda name: 4000)
    said = [
        TurnRecord(text, "Noted.", "console", AT, "scott", "inara", "direct")
        for text in (
            "please remember that my dentist is Dr. Varganova",
            "Lembra que a minha médica é a Dra. Helena Matos. A Sra. Costa ligou.",
        )
    ]
    done = await promoter.promote(said, user="scott", persona="inara", at=AT)
    assert done == [
        "USER.md: my dentist is Dr. Varganova",
        "USER.md: a minha médica é a Dra. Helena Matos",
    ]
    text = (directory / "USER.md").read_text()
    assert "- my dentist is Dr. Varganova <!--" in text
    assert "- a minha médica é a Dra. Helena Matos <!--" in text


@pytest.mark.parametrize("backend", ["sqlite-fts5", "holographic"])
async def test_a_store_keeps_whole_sentences(tmp_path: Path, backend: str) -> None:
    directory = make_persona(tmp_path, "scott")
    memory = await open_memory(make_config(tmp_path, memory_backend=backend), directory)
    try:
        added = await memory.add("please remember that my dentist is Dr. Varganova", source="cli")
        assert added.stored
        said = (
            "Fui ao Dr. Silva ontem, ele é o meu dentista. I met Mr. Smith at 3 p.m. in St. Louis."
        )
        await memory.sync(TurnRecord(said, "Noted.", "console", AT, "scott", "inara", "direct"))
        texts = sorted(item.text for item in await memory.list_items())
        assert texts == [
            "Fui ao Dr. Silva ontem, ele é o meu dentista.",
            "I met Mr. Smith at 3 p.m. in St. Louis.",
            "my dentist is Dr. Varganova",
        ]
    finally:
        await memory.close()


async def test_compaction_promotes_whole_sentences() -> None:
    said = Entry("user", "Remember that my advisor is Prof. J. R. Okafor at the U.S. embassy.", AT)
    entries = [said, Entry("assistant", "Noted.", AT)] + [
        Entry("user" if i % 2 == 0 else "assistant", "ok thanks " * 40, AT) for i in range(20)
    ]
    promoted: list[str] = []

    async def promote(text: str, source: str) -> AddResult:
        promoted.append(text)
        return AddResult(True, "fact", "fact", item_id=str(len(promoted)))

    await Compactor(window_tokens=2000, keep_recent=2).compact(
        entries, system_chars=0, promote=promote, force=True
    )
    assert promoted == ["Remember that my advisor is Prof. J. R. Okafor at the U.S. embassy."]
