"""Writes ``tests/data/recall_conversations.json``: long chats of ten people with their persona
(six in English, four in Portuguese, 20 dated sessions each) and the questions whose answers
lie in them, each with its evidence turns.

    python bench/recall_set.py            # rewrites the file (deterministic: same seed, same set)

Every person has a life drawn from the pools below (family, a pet, work, trips, habits that
change); the facts about it are told once, in passing, among small talk that mentions the same
people and places, the way people chat. Questions come in five kinds:

* ``single``: one fact, asked in the words it was told in ("what does Joana do for work?")
* ``paraphrase``: the same kind of fact asked in other words ("which string instrument...")
* ``date``: when something happened, or what happened in a month ("when did I go to Sintra?",
  "which film did I see in March?" among four cinema trips): the answer hangs on the turn's date
* ``multihop``: two facts told sessions apart ("where does my neighbour's daughter study?")
* ``preference``: a habit that changed; the evidence is the turn that says how it is now

The set was written before any scoring change was measured on it and is not tuned to one.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recall_set_lines import EN, PT, Lines

__all__ = ["OUTPUT", "build"]

OUTPUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_conversations.json"
SESSIONS = 20
START = datetime(2025, 9, 1, 19, 0, tzinfo=UTC)


class Chat:
    """One person's sessions, filled turn by turn."""

    def __init__(self, user: str, lang: str, rng: random.Random) -> None:
        self.user = user
        self.lang = lang
        self.rng = rng
        self.sessions: list[dict[str, Any]] = []
        day = START + timedelta(days=rng.randint(0, 6))
        for number in range(SESSIONS):
            self.sessions.append({"id": f"{user}-s{number:02d}", "date": day, "turns": []})
            day += timedelta(days=rng.randint(8, 14), hours=rng.randint(-3, 3))
        self.questions: list[dict[str, Any]] = []

    def say(self, session: int, user_text: str, reply: str) -> str:
        """Add a turn to ``session``; its id."""
        turns = self.sessions[session]["turns"]
        turn_id = f"{self.sessions[session]['id']}-t{len(turns):02d}"
        at = self.sessions[session]["date"] + timedelta(minutes=3 * len(turns))
        turns.append({"id": turn_id, "at": at.isoformat(), "user": user_text, "reply": reply})
        return turn_id

    def ask(self, kind: str, question: str, evidence: list[str]) -> None:
        self.questions.append(
            {
                "id": f"{self.user}-q{len(self.questions):02d}",
                "kind": kind,
                "question": question,
                "evidence": evidence,
            }
        )

    def month(self, session: int) -> str:
        date: datetime = self.sessions[session]["date"]
        return (EN if self.lang == "en" else PT).months[date.month - 1]


def _fill(text: str, slots: dict[str, str]) -> str:
    return text.format(**slots)


def _story(chat: Chat, lines: Lines, slots: dict[str, str]) -> None:
    """Facts, events, links and changes of one life, told in shuffled sessions."""
    rng = chat.rng
    order = list(range(SESSIONS))
    rng.shuffle(order)
    spots = iter(order * 3)
    facts = rng.sample(lines.facts, len(lines.facts) - 1)  # not every life has every fact
    events = rng.sample(lines.events, len(lines.events) - 1)
    for fact in facts:
        session = next(spots)
        turn = chat.say(session, _fill(fact.said, slots), _fill(fact.reply, slots))
        chat.ask("single", _fill(fact.asked, slots), [turn])
        if fact.paraphrase:
            chat.ask("paraphrase", _fill(fact.paraphrase, slots), [turn])
    for event in events:
        session = next(spots)
        turn = chat.say(session, _fill(event.said, slots), _fill(event.reply, slots))
        chat.ask("date", _fill(event.asked, slots), [turn])
        month_slots = {**slots, "month": chat.month(session)}
        if event.paraphrase:
            chat.ask("date", _fill(event.paraphrase, month_slots), [turn])
    for link in lines.links:
        first, second = sorted((next(spots), next(spots)))
        a = chat.say(first, _fill(link.said, slots), _fill(link.reply, slots))
        b = chat.say(second, _fill(link.said2, slots), _fill(link.reply2, slots))
        chat.ask("multihop", _fill(link.asked, slots), [a, b])
    for repeat in lines.repeats:
        months: dict[int, int] = {}
        for session in rng.sample(range(SESSIONS), SESSIONS):
            months.setdefault(chat.sessions[session]["date"].month, session)
        chosen = rng.sample(sorted(months.values()), len(repeat.details))
        said = [
            chat.say(session, _fill(repeat.said, {**slots, "detail": detail}), repeat.reply)
            for session, detail in zip(chosen, repeat.details, strict=True)
        ]
        which = rng.randrange(len(chosen))
        month_slots = {**slots, "month": chat.month(chosen[which])}
        chat.ask("date", _fill(repeat.asked, month_slots), [said[which]])
    for change in lines.changes:
        first, second = sorted(rng.sample(range(SESSIONS), 2))
        chat.say(first, _fill(change.said, slots), _fill(change.reply, slots))
        now = chat.say(second, _fill(change.said2, slots), _fill(change.reply2, slots))
        chat.ask("preference", _fill(change.asked, slots), [now])


def _small_talk(chat: Chat, lines: Lines, slots: dict[str, str]) -> None:
    """Chat around the facts: greetings, moods, the same people and places, no answers."""
    rng = chat.rng
    for session in range(SESSIONS):
        turns = chat.sessions[session]["turns"]
        told = list(turns)
        turns.clear()
        chat.say(session, *[_fill(x, slots) for x in rng.choice(lines.openers)])
        middle = [
            tuple(_fill(x, slots) for x in pair)
            for pair in rng.sample(lines.chatter, rng.randint(4, 7))
        ]
        for pair in middle:
            told.insert(rng.randint(0, len(told)), {"user": pair[0], "reply": pair[1]})
        for turn in told:
            chat.say(session, turn["user"], turn["reply"])
        chat.say(session, *[_fill(x, slots) for x in rng.choice(lines.closers)])


def build(seed: int = 20260509) -> dict[str, Any]:
    rng = random.Random(seed)
    people = [("en", n) for n in ("alex", "beth", "chris", "dana", "eli", "fran")] + [
        ("pt", n) for n in ("joana", "miguel", "rita", "tiago")
    ]
    users = []
    for lang, name in people:
        lines = EN if lang == "en" else PT
        slots = lines.life(rng)
        chat = Chat(name, lang, rng)
        _story(chat, lines, slots)
        evidence_text = {
            turn["id"]: (turn["user"], turn["reply"])
            for session in chat.sessions
            for turn in session["turns"]
        }
        _small_talk(chat, lines, slots)
        new_id = {}
        for session in chat.sessions:
            for turn in session["turns"]:
                new_id.setdefault((turn["user"], turn["reply"]), turn["id"])
        for question in chat.questions:
            question["evidence"] = [new_id[evidence_text[e]] for e in question["evidence"]]
        last = chat.sessions[-1]["date"]
        for session in chat.sessions:
            session["date"] = session["date"].isoformat()
        users.append(
            {
                "user": name,
                "lang": lang,
                "asked_at": (last + timedelta(days=3)).isoformat(),
                "sessions": chat.sessions,
                "questions": chat.questions,
            }
        )
    return {
        "description": (
            "Long chats of ten people with their persona (20 dated sessions each) and "
            "questions with their evidence turns; written by bench/recall_set.py."
        ),
        "users": users,
    }


if __name__ == "__main__":
    data = build()
    OUTPUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    questions = sum(len(user["questions"]) for user in data["users"])
    turns = sum(len(s["turns"]) for user in data["users"] for s in user["sessions"])
    print(f"wrote {OUTPUT}: {len(data['users'])} people, {turns} turns, {questions} questions")
