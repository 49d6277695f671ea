"""Writes ``tests/data/recall_conversations_b.json``: a second long-conversation set, built
unlike the first (``bench/recall_set.py``) so that a change tuned on one can be checked on the
other.

    python bench/recall_set_b.py          # rewrites the file (deterministic: same seed, same set)

Ten people, 16 dated sessions each, about 260 questions with their evidence turns. What makes
it harder than the first set, the way real conversations are:

* the sentence that answers sits inside a long message of several sentences of small talk
  about the same people (:data:`~recall_set_b_lines.CHATTER`);
* questions are worded unlike their evidence, not one synonym swapped for another ("how do I
  earn my money?" for "most of my days go on planning bus timetables");
* a second person writes from the same account now and then and talks about themselves
  ("It's Rosa here on Amara's phone. I'm on nights at the depot"), and the assistant talks
  about itself; some answers are in what the assistant said;
* ``multihop``: the answer needs two turns from different sessions;
* ``temporal``: dates relative to the session ("yesterday", "last week", "the week before
  we flew out"), or the month it happened in;
* ``reference``: questions that refer back ("that place you suggested", "the present for
  her big birthday");
* ``open``: the answer is inferred ("would a steakhouse voucher suit me?" after "I stopped
  eating meat");
* ``single``: one fact, asked in other words.

Every question has a ``split``: the people alternate ``tuning`` and ``held-out``; a scoring
change is tuned on the first and kept only if the second (and the first set) agree. The set
was written before any change was measured on it.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recall_set_b_lines import CHATTER, CLOSERS, OPENERS, REPLIES, STORIES, Story, Told, life

__all__ = ["OUTPUT", "build"]

OUTPUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_conversations_b.json"
SESSIONS = 16
START = datetime(2025, 2, 3, 20, 0, tzinfo=UTC)
PEOPLE = ("amara", "ben", "cleo", "dev", "esme", "finn", "gwen", "hamid", "isla", "jack")
MONTHS = "January February March April May June July August September October November December"

_PARTNER_OPENINGS = (
    "It's {partner} here on {me}'s phone.",
    "{partner} typing, {me} is in the shower.",
    "Hi, {partner} again, {me} lent me the phone.",
)
_PARTNER_FILLER = (
    "{me} says hello from the sofa.",
    "Don't tell {me} I said so, but the soup was mine.",
    "I'm only borrowing this for a minute.",
    "The house is quiet for once.",
)


class Chat:
    """One person's sessions: turns gathered per session, ids given once all are in."""

    def __init__(self, user: str, rng: random.Random, slots: dict[str, str]) -> None:
        self.user = user
        self.rng = rng
        self.slots = slots
        self.dates: list[datetime] = []
        day = START + timedelta(days=rng.randint(0, 10))
        for _ in range(SESSIONS):
            self.dates.append(day)
            day += timedelta(days=rng.randint(6, 16), hours=rng.randint(-2, 2))
        self.told: list[list[dict[str, str]]] = [[] for _ in range(SESSIONS)]
        self.questions: list[dict[str, Any]] = []

    def fill(self, text: str) -> str:
        return text.format(**self.slots)

    def chatter(self, count: int) -> list[str]:
        return [f"{self.fill(line)}." for line in self.rng.sample(CHATTER, count)]

    def turn(self, told: Told) -> dict[str, str]:
        """A long message around the sentence of ``told`` (one of its wordings)."""
        rng = self.rng
        fact = self.fill(rng.choice(told.said))
        reply = self.fill(rng.choice(told.reply))
        if fact[-1] not in ".?!":
            fact += "."
        if told.who == "partner":
            opening = self.fill(rng.choice(_PARTNER_OPENINGS))
            filler = self.fill(rng.choice(_PARTNER_FILLER))
            user = f"{opening} {fact} {filler}"
        elif told.who == "persona":
            user = " ".join([*self.chatter(rng.randint(1, 2)), fact])
            reply = f"{reply} {rng.choice(REPLIES)}"
        else:
            before, after = rng.randint(0, 2), rng.randint(1, 2)
            around = self.chatter(before + after)
            user = " ".join([*around[:before], fact, *around[before:]])
        return {"user": user, "reply": reply}

    def month(self, session: int) -> str:
        return MONTHS.split()[self.dates[session].month - 1]


def _sessions_for(chat: Chat, story: Story) -> list[int]:
    rng = chat.rng
    if story.gap == "same" or len(story.told) == 1:
        return [rng.randrange(SESSIONS)] * len(story.told)
    first = rng.randrange(SESSIONS - 3)
    return [first, rng.randrange(first + 2, SESSIONS)]


def _tell(chat: Chat, story: Story) -> None:
    sessions = _sessions_for(chat, story)
    evidence = []
    for session, told in zip(sessions, story.told, strict=True):
        turn = chat.turn(told)
        chat.told[session].append(turn)
        evidence.append(turn)
    for decoy in story.decoys:
        chat.told[chat.rng.randrange(SESSIONS)].append(chat.turn(decoy))
    question = chat.rng.choice(story.asked).replace("{month}", chat.month(sessions[-1]))
    chat.questions.append(
        {"kind": story.kind, "story": story.name, "question": chat.fill(question), "_ev": evidence}
    )


def _sessions(chat: Chat) -> list[dict[str, Any]]:
    """Every session: an opener, small talk with the stories' turns among it, a closer."""
    rng = chat.rng
    out = []
    for number in range(SESSIONS):
        middle = [
            {"user": " ".join(chat.chatter(rng.randint(2, 4))), "reply": rng.choice(REPLIES)}
            for _ in range(rng.randint(5, 8))
        ]
        for turn in chat.told[number]:
            middle.insert(rng.randint(0, len(middle)), turn)
        opener, closer = rng.choice(OPENERS), rng.choice(CLOSERS)
        everything = [{"user": opener[0], "reply": opener[1]}, *middle]
        everything.append({"user": closer[0], "reply": closer[1]})
        session_id = f"{chat.user}-s{number:02d}"
        for position, turn in enumerate(everything):
            turn["id"] = f"{session_id}-t{position:02d}"
            at = chat.dates[number] + timedelta(minutes=4 * position)
            turn["at"] = at.isoformat()
        out.append({"id": session_id, "date": chat.dates[number].isoformat(), "turns": everything})
    return out


def build(seed: int = 20261202) -> dict[str, Any]:
    rng = random.Random(seed)
    users = []
    for index, name in enumerate(PEOPLE):
        slots = {**life(rng), "me": name.capitalize()}
        chat = Chat(name, rng, slots)
        for story in rng.sample(STORIES, len(STORIES) - 2):  # not every life has every story
            _tell(chat, story)
        sessions = _sessions(chat)
        split = "tuning" if index % 2 == 0 else "held-out"
        questions = []
        for number, question in enumerate(chat.questions):
            evidence = [turn["id"] for turn in question.pop("_ev")]
            questions.append(
                {"id": f"{name}-q{number:02d}", **question, "evidence": evidence, "split": split}
            )
        users.append(
            {
                "user": name,
                "lang": "en",
                "split": split,
                "asked_at": (chat.dates[-1] + timedelta(days=3)).isoformat(),
                "sessions": sessions,
                "questions": questions,
            }
        )
    return {
        "description": (
            "Long chats of ten people, 16 dated sessions each, answers inside long messages of "
            "small talk, questions worded unlike their evidence, a second speaker, answers "
            "across sessions and relative dates; people alternate tuning and held-out; "
            "written by bench/recall_set_b.py."
        ),
        "users": users,
    }


if __name__ == "__main__":
    data = build()
    OUTPUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    questions = sum(len(user["questions"]) for user in data["users"])
    turns = sum(len(s["turns"]) for user in data["users"] for s in user["sessions"])
    print(f"wrote {OUTPUT}: {len(data['users'])} people, {turns} turns, {questions} questions")
