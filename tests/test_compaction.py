"""Compaction promotes durable facts first, cuts only after, and never leaks Off The Record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import AddResult
from bot.turn.compaction import POINTER_PREFIX, Compactor, estimate_tokens
from bot.turn.conversation import Entry

DAY = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
FILLER = "haha ok, thanks! sounds good. " * 12


def _turns(count: int, *, start: datetime = DAY, otr: bool = False) -> list[Entry]:
    entries = []
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        at = start + timedelta(minutes=index)
        entries.append(Entry(role, f"{FILLER} ({index})", at, otr=otr))
    return entries


@dataclass
class Recorder:
    """A promote callable that records every call, and the order of events."""

    events: list[str] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    fail_on: str | None = None
    refuse: set[str] = field(default_factory=set)

    async def __call__(self, text: str, source: str) -> AddResult:
        self.events.append(f"promote:{text}")
        if self.fail_on is not None and self.fail_on in text:
            raise OSError("disk full")
        self.calls.append((text, source))
        if text in self.refuse:
            return AddResult(False, None, "rejected: duplicate of a secret")
        return AddResult(True, "fact", "fact", item_id=str(len(self.calls)))


def test_estimate_tokens_is_conservative() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("x" * 35) == 10
    assert estimate_tokens("x" * 36) == 11
    # real tokenisers give about 4 characters a token for English: never undercount that
    text = "I take my coffee without sugar and the kids go to school at half past seven."
    assert estimate_tokens(text) >= len(text) / 4


def test_threshold_maths() -> None:
    compactor = Compactor(window_tokens=10_000, threshold=0.72, keep_recent=2)
    assert compactor.budget == 7200
    entries = [Entry("user", "x" * 3500, DAY), Entry("assistant", "y" * 3500, DAY)]
    # 1000 + 4 tokens each: 2008, plus a system prompt
    assert compactor.total_tokens(0, entries) == 2008
    more = [*entries, Entry("user", "z" * 700, DAY)]
    total = compactor.total_tokens(17_500, more)
    assert total == 5000 + 2008 + 204
    assert compactor.needs(17_500, more) == (total >= 7200)
    assert compactor.needs(17_500, more)
    assert not compactor.needs(17_000, more)


def test_needs_is_false_when_only_recent_entries_remain() -> None:
    compactor = Compactor(window_tokens=2000, keep_recent=4)
    huge = [Entry("user", "x" * 20_000, DAY), Entry("assistant", "ok", DAY)]
    assert not compactor.needs(0, huge)


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Compactor(window_tokens=0)
    with pytest.raises(ValueError):
        Compactor(window_tokens=1000, threshold=1.5)


async def test_promotion_happens_before_the_cut() -> None:
    compactor = Compactor(window_tokens=2000, keep_recent=4)
    facts = Entry("user", "ok! I take my coffee without sugar. Estou almoçando agora.", DAY)
    entries = [facts, Entry("assistant", "Noted.", DAY), *_turns(30, start=DAY)]
    assert compactor.needs(6, entries)
    recorder = Recorder()
    seen_during_promotion: list[int] = []

    async def promote(text: str, source: str) -> AddResult:
        # the conversation handed in is untouched while promotions run
        seen_during_promotion.append(len(entries))
        return await recorder(text, source)

    result = await compactor.compact(entries, system_chars=6, promote=promote)
    assert recorder.calls == [("I take my coffee without sugar.", "sessions/2026-11-29.md")]
    assert seen_during_promotion == [32]
    assert result.promoted == ["I take my coffee without sugar."]
    assert result.pointer is not None
    assert result.entries[0] is result.pointer
    assert result.entries[-4:] == entries[-4:]
    assert len(result.entries) < len(entries)
    assert compactor.total_tokens(6, result.entries) < compactor.budget


async def test_nothing_is_cut_when_a_promotion_fails() -> None:
    compactor = Compactor(window_tokens=2000, keep_recent=4)
    entries = [
        Entry("user", "My daughter's name is Luna.", DAY),
        Entry("user", "We decided to paint the kitchen green.", DAY),
        *_turns(30),
    ]
    before = list(entries)
    recorder = Recorder(fail_on="kitchen")
    with pytest.raises(MemoryStoreError) as info:
        await compactor.compact(entries, system_chars=0, promote=recorder)
    assert "nothing was cut" in str(info.value)
    assert entries == before
    # the first fact was promoted before the failure; the failing one was attempted
    assert recorder.events == [
        "promote:My daughter's name is Luna.",
        "promote:We decided to paint the kitchen green.",
    ]


async def test_off_the_record_is_never_promoted_nor_shown() -> None:
    compactor = Compactor(window_tokens=2000, keep_recent=2)
    secret_life = "I'm allergic to peanuts and my sister Carla lives in Porto."
    entries = [
        Entry("user", secret_life, DAY, otr=True),
        Entry("assistant", "Understood, Carla in Porto.", DAY, otr=True),
        Entry("user", "I prefer tea over coffee in the afternoon.", DAY),
        *_turns(20),
    ]
    recorder = Recorder()
    result = await compactor.compact(entries, system_chars=0, promote=recorder, force=True)
    assert [text for text, _ in recorder.calls] == ["I prefer tea over coffee in the afternoon."]
    assert result.pointer is not None
    pointer = result.pointer.text
    assert "peanuts" not in pointer and "Carla" not in pointer and "Porto" not in pointer
    assert "2 off-the-record turns were left out" in pointer
    assert "I prefer tea over coffee in the afternoon." in pointer


async def test_pointer_wording_is_history_not_instructions() -> None:
    compactor = Compactor(window_tokens=4000, keep_recent=2)
    entries = [
        Entry("user", "I take my coffee without sugar.", DAY),
        Entry("assistant", "Got it.", DAY),
        Entry("user", "Thanks! Our dog Biscuit is a beagle.", DAY + timedelta(days=1)),
        Entry("assistant", "Lovely.", DAY + timedelta(days=1)),
        *_turns(4, start=DAY + timedelta(days=1)),
    ]
    result = await compactor.compact(
        entries, system_chars=0, promote=Recorder(), sessions_hint="sessions", force=True
    )
    assert result.pointer is not None
    assert result.pointer.role == "user" and result.pointer.kind == "pointer"
    assert not result.pointer.otr
    assert result.pointer.text == (
        f"{POINTER_PREFIX} Earlier turns of 2026-11-29, 2026-11-30 are in "
        "sessions/2026-11-29.md, sessions/2026-11-30.md; facts kept: "
        "I take my coffee without sugar; Our dog Biscuit is a beagle."
    )
    assert result.entries == [result.pointer, *entries[-2:]]


async def test_an_earlier_pointer_is_merged_into_the_new_one() -> None:
    compactor = Compactor(window_tokens=4000, keep_recent=2)
    first = await compactor.compact(
        [Entry("user", "My mom lives with us since last year", DAY), *_turns(4)],
        system_chars=0,
        promote=Recorder(),
        force=True,
    )
    later = DAY + timedelta(days=3)
    second_input = [
        *first.entries,
        Entry("user", "Minha cor favorita é verde", later),
        *_turns(4, start=later),
    ]
    recorder = Recorder()
    second = await compactor.compact(second_input, system_chars=0, promote=recorder, force=True)
    assert second.pointer is not None
    assert sum(entry.kind == "pointer" for entry in second.entries) == 1
    text = second.pointer.text
    assert "2026-11-29" in text and "2026-12-02" in text
    assert "My mom lives with us since last year" in text
    assert "Minha cor favorita é verde" in text
    # the old pointer's facts were already promoted: they are not promoted twice
    assert [call for call, _ in recorder.calls] == ["Minha cor favorita é verde"]


async def test_refused_promotions_are_not_listed_as_kept() -> None:
    compactor = Compactor(window_tokens=4000, keep_recent=2)
    text = "I live in Porto Alegre. We decided to sell the car."
    entries = [Entry("user", text, DAY), *_turns(4)]
    recorder = Recorder(refuse={"I live in Porto Alegre."})
    result = await compactor.compact(entries, system_chars=0, promote=recorder, force=True)
    assert len(recorder.calls) == 2
    assert result.promoted == ["We decided to sell the car."]
    assert result.pointer is not None
    assert "Porto Alegre" not in result.pointer.text


async def test_below_the_threshold_nothing_happens_unless_forced() -> None:
    compactor = Compactor(window_tokens=200_000, keep_recent=6)
    entries = [Entry("user", "I live in Lisbon.", DAY), *_turns(10)]
    recorder = Recorder()
    calm = await compactor.compact(entries, system_chars=0, promote=recorder)
    assert calm.entries == entries and calm.pointer is None and recorder.calls == []

    forced = await compactor.compact(entries, system_chars=0, promote=recorder, force=True)
    assert forced.pointer is not None
    assert forced.entries[1:] == entries[-6:]
    assert recorder.calls == [("I live in Lisbon.", "sessions/2026-11-29.md")]


async def test_force_with_nothing_old_to_fold() -> None:
    compactor = Compactor(window_tokens=1000, keep_recent=6)
    entries = _turns(5)
    result = await compactor.compact(entries, system_chars=0, promote=Recorder(), force=True)
    assert result.pointer is None and result.entries == entries


async def test_the_cut_does_not_leave_an_orphan_reply_first() -> None:
    compactor = Compactor(window_tokens=3000, keep_recent=3)
    entries = _turns(40)
    result = await compactor.compact(entries, system_chars=0, promote=Recorder())
    assert result.pointer is not None
    assert result.entries[1].role == "user"


async def test_pointer_stays_small_when_many_facts_are_kept() -> None:
    compactor = Compactor(window_tokens=4000, keep_recent=2)
    many = [Entry("user", f"My cousin number {n} lives in town {n}.", DAY) for n in range(80)]
    result = await compactor.compact(
        [*many, *_turns(2)], system_chars=0, promote=Recorder(), force=True
    )
    assert result.pointer is not None
    assert len(result.pointer.text) <= compactor.max_pointer_chars
    assert "more in long-term memory" in result.pointer.text
    assert len(result.promoted) == 80
