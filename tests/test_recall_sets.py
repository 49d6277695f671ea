"""The long-conversation sets that bench/recall_quality.py reads are well formed: every turn has
a unique id and a time, sessions run forward, every question's evidence is a turn of its
person, and the sets that have parts have both."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from bench.recall_quality import within_reach_of_words

DATA = Path(__file__).parent / "data"
SETS = {
    "recall_conversations.json": ("single", "paraphrase", "date", "multihop", "preference"),
    "recall_conversations_b.json": ("single", "multihop", "temporal", "reference", "open"),
    "recall_conversations_d.json": ("single", "multihop", "temporal", "reference", "open"),
    "recall_conversations_e.json": ("single", "multihop", "temporal", "reference", "open"),
}


@pytest.mark.parametrize(("name", "kinds"), SETS.items())
def test_a_set_is_well_formed(name: str, kinds: tuple[str, ...]) -> None:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    ids: set[str] = set()
    for user in data["users"]:
        turns = [turn for session in user["sessions"] for turn in session["turns"]]
        times = [datetime.fromisoformat(turn["at"]) for turn in turns]
        assert times == sorted(times), user["user"]
        assert datetime.fromisoformat(user["asked_at"]) > times[-1]
        own = {turn["id"] for turn in turns}
        assert len(own) == len(turns) and not own & ids
        ids |= own
        assert all(turn["user"].strip() and turn["reply"].strip() for turn in turns)
        for question in user["questions"]:
            assert question["kind"] in kinds, question["id"]
            assert question["evidence"] and set(question["evidence"]) <= own, question["id"]
    splits = {q.get("split") for user in data["users"] for q in user["questions"]}
    if name != "recall_conversations.json":
        assert splits == {"tuning", "held-out"}


def test_set_d_is_written_like_long_public_conversations() -> None:
    """Set D's replies talk at length too, and some answers are only in them."""
    data = json.loads((DATA / "recall_conversations_d.json").read_text(encoding="utf-8"))
    turns = {t["id"]: t for u in data["users"] for s in u["sessions"] for t in s["turns"]}
    replies = [len(turn["reply"].split()) for turn in turns.values()]
    assert sum(replies) / len(replies) >= 15
    assert {user["lang"] for user in data["users"]} == {"en", "pt"}
    multihop = [q for u in data["users"] for q in u["questions"] if q["kind"] == "multihop"]
    assert all(
        len({turns[e]["id"].rsplit("-", 1)[0] for e in q["evidence"]}) >= 2 for q in multihop
    )


def test_a_question_is_within_reach_of_words_when_it_shares_a_stem_with_its_evidence() -> None:
    turns = [
        {"id": "t1", "user": "Luis works 24 hours on at the fire station", "reply": "Wow"},
        {"id": "t2", "user": "I got the job!!", "reply": "The emergency hospitals hired you?"},
        {"id": "t3", "user": "Nice weather today", "reply": "Indeed"},
    ]
    questions = [
        {"question": "What does Luis do?", "evidence": ["t1"], "split": "tuning"},
        # the answer's side counts too, and a word in another form
        {"question": "Which hospital hired me?", "evidence": ["t2"], "split": "held-out"},
        {"question": "What do I do for a living?", "evidence": ["t1", "t3"], "split": "held-out"},
    ]
    data = {"users": [{"sessions": [{"turns": turns}], "questions": questions}]}
    reach = within_reach_of_words(data)
    assert reach == {"all": (2, 3), "tuning": (1, 1), "held-out": (1, 2)}
