"""Writes ``tests/data/recall_followups_c.json``: set C, follow-up questions that refer back to
the live conversation.

    python bench/recall_set_c.py          # rewrites the file (deterministic: same seed, same set)

Sets A and B ask every question out of the blue. In a chat the question often comes after a
few turns that name its subject, and refers back to them: "where is he living now?" right
after "Tomasz rang this morning". Each question of set C is such a follow-up, asked "now",
three days after the last session of a person of set B (or, in Portuguese, of set A): a live
exchange of one turn (the user's message and the persona's reply), then the follow-up, whose
evidence turns are the stored turns of the story it asks about
(:mod:`recall_set_c_lines`). The follow-ups of kind ``none`` are full questions of set B or A
asked after unrelated live talk: a resolution that costs them shows there.

The parts are set B's: the people of its tuning part get the first wording of every follow-up,
the held-out part the second; in Portuguese, Joana and Rita are tuning, Miguel and Tiago
held-out. Written before anything was measured on it.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import recall_set_b
from recall_set_b_lines import CHATTER, REPLIES
from recall_set_c_lines import FOLLOW_UPS, NONE_STORIES, PORTUGUESE

__all__ = ["OUTPUT", "build"]

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
OUTPUT = DATA / "recall_followups_c.json"
#: minutes between the live turns, and before the follow-up
GAP = 3
_PT_TUNING = ("joana", "rita")


def _lives() -> list[dict[str, str]]:
    """Set B as its generator builds it, with each person's life (the slots its lines are
    filled from), checked against the file it wrote."""
    lives: list[dict[str, str]] = []
    drawn = recall_set_b.life

    def recorded(rng: random.Random) -> dict[str, str]:
        life = drawn(rng)
        lives.append(life)
        return life

    recall_set_b.life = recorded  # type: ignore[assignment]
    try:
        built = recall_set_b.build()
    finally:
        recall_set_b.life = drawn  # type: ignore[assignment]
    stored = json.loads((DATA / "recall_conversations_b.json").read_text(encoding="utf-8"))
    if built["users"] != stored["users"]:
        raise SystemExit("set B on disk is not what bench/recall_set_b.py builds")
    return lives


def _live(turns: tuple[tuple[str, str], ...], asked: datetime) -> list[dict[str, str]]:
    start = asked - timedelta(minutes=GAP * len(turns))
    return [
        {"user": user, "reply": reply, "at": (start + timedelta(minutes=GAP * n)).isoformat()}
        for n, (user, reply) in enumerate(turns)
    ]


def _english(rng: random.Random) -> list[dict[str, Any]]:
    people = json.loads((DATA / "recall_conversations_b.json").read_text(encoding="utf-8"))
    out = []
    for person, life in zip(people["users"], _lives(), strict=True):
        slots = {**life, "me": person["user"].capitalize()}
        asked = datetime.fromisoformat(person["asked_at"])
        split = person["split"]
        stories = {q["story"]: q for q in person["questions"]}
        for follow_up in FOLLOW_UPS:
            stored = stories.get(follow_up.story)
            if stored is None:  # not every life has every story
                continue
            turns, question = follow_up.worded[0 if split == "tuning" else 1]
            filled = tuple((u.format(**slots), r.format(**slots)) for u, r in turns)
            out.append(
                {
                    "set": "b",
                    "user": person["user"],
                    "lang": "en",
                    "kind": follow_up.kind,
                    "story": follow_up.story,
                    "split": split,
                    "live": _live(filled, asked),
                    "question": question.format(**slots),
                    "evidence": stored["evidence"],
                }
            )
        for story in NONE_STORIES:
            stored = stories.get(story)
            if stored is None:
                continue
            talk = (f"{rng.choice(CHATTER).format(**slots)}.", rng.choice(REPLIES))
            out.append(
                {
                    "set": "b",
                    "user": person["user"],
                    "lang": "en",
                    "kind": "none",
                    "story": story,
                    "split": split,
                    "live": _live((talk,), asked),
                    "question": stored["question"],
                    "evidence": stored["evidence"],
                }
            )
    return out


def _portuguese() -> list[dict[str, Any]]:
    people = json.loads((DATA / "recall_conversations.json").read_text(encoding="utf-8"))
    by_name = {person["user"]: person for person in people["users"]}
    out = []
    for name, question_id, kind, turns, question in PORTUGUESE:
        person = by_name[name]
        stored = next(q for q in person["questions"] if q["id"] == question_id)
        out.append(
            {
                "set": "a",
                "user": name,
                "lang": "pt",
                "kind": kind,
                "story": question_id,
                "split": "tuning" if name in _PT_TUNING else "held-out",
                "live": _live(turns, datetime.fromisoformat(person["asked_at"])),
                "question": question,
                "evidence": stored["evidence"],
            }
        )
    return out


def build(seed: int = 20261203) -> dict[str, Any]:
    questions = _english(random.Random(seed)) + _portuguese()
    for number, question in enumerate(questions):
        question["id"] = f"c{number:03d}"
    return {
        "description": (
            "Follow-up questions asked after a live exchange that names their subject, over "
            "the conversations of set B (English) and of set A's Portuguese people; kinds "
            "person, place, thing, vague and none (a full question after unrelated talk); "
            "tuning and held-out parts as set B's, each with its own wordings; written by "
            "bench/recall_set_c.py."
        ),
        "questions": questions,
    }


if __name__ == "__main__":
    data = build()
    OUTPUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    questions = data["questions"]
    parts = {s: sum(q["split"] == s for q in questions) for s in ("tuning", "held-out")}
    kinds = {
        k: sum(q["kind"] == k for q in questions)
        for k in dict.fromkeys(q["kind"] for q in questions)
    }
    print(f"wrote {OUTPUT}: {len(questions)} questions, {parts}, {kinds}")
