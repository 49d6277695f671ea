"""What a soak run left behind, counted from the homeserver's room history and the data folder.

Each user message carries a tag (``msg-u3-17``); the model fake's answer names it, and the
daemon sends its answer as a reply to the message. For every user message the bot's messages
answering it are found (by the reply relation, else by the tag in the text), each shown with
its latest edit, and the message is counted as:

- ``exactly_once``: one message whose final text is the whole answer;
- ``notice``: one message, a whole sentence from the daemon about the model failing (a stream
  the model cut off after words had been shown, or a model that kept failing);
- ``fragment``: one message whose final text is a cut-off beginning of the answer;
- ``doubled``: more than one message answering it;
- ``together``: none of its own, but a later message of the same person, sent before the
  bot answered anything after this one, got one answer: the daemon reads a burst of messages
  as one and answers them together (:mod:`bot.turn.burst`), the model naming the last;
- ``lost``: none.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.daemon_process import bot_messages
from tests.fakes.streaming_model import expected_answer, tag_of

__all__ = ["Tally", "check_files", "count_room"]

#: words every notice the daemon sends about its model contains
NOTICE_WORDS = "language model"


@dataclass
class Tally:
    messages: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    user_duplicates: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, outcome: str, example: str) -> None:
        self.outcomes[outcome] += 1
        found = self.examples.setdefault(outcome, [])
        if len(found) < 3:
            found.append(example)


def count_room(
    events: list[dict[str, Any]], person: str, bot_id: str, words: int, tally: Tally
) -> None:
    """Add the outcome of every tagged message ``person`` sent in this room to ``tally``."""
    asked: dict[str, str] = {}  # tag -> event id of its first copy
    for event in events:
        if event["sender"] != person or event["type"] != "m.room.message":
            continue
        tag = tag_of(event["content"].get("body", ""))
        if tag is None:
            continue
        if tag in asked:
            tally.user_duplicates += 1
            continue
        asked[tag] = event["event_id"]
    replies: dict[str, list[str]] = {tag: [] for tag in asked}
    by_event = {event_id: tag for tag, event_id in asked.items()}
    answered_at: dict[str, str] = {}  # tag -> the event id of the bot's first answer to it
    for event_id, (text, parent) in bot_messages(events, bot_id).items():
        tag = by_event.get(parent or "") or tag_of(text)
        if tag in replies:
            replies[tag].append(text)
            answered_at.setdefault(tag, event_id)
    together = _answered_together(events, by_event, answered_at)
    for tag, texts in replies.items():
        tally.messages += 1
        full = expected_answer(tag, words)
        if not texts and len(replies.get(together.get(tag, ""), [])) == 1:
            tally.add("together", f"{tag} with {together[tag]}")
        elif not texts:
            tally.add("lost", tag)
        elif len(texts) > 1:
            tally.add("doubled", f"{tag}: {texts!r}")
        elif texts[0] == full:
            tally.add("exactly_once", tag)
        elif NOTICE_WORDS in texts[0]:
            tally.add("notice", f"{tag}: {texts[0]!r}")
        else:
            tally.add("fragment", f"{tag}: {texts[0]!r}")


def _answered_together(
    events: list[dict[str, Any]], by_event: dict[str, str], answered_at: dict[str, str]
) -> dict[str, str]:
    """Each tag with no answer of its own whose burst a later tag's answer closed: the tag
    it was answered with."""
    together: dict[str, str] = {}
    waiting: list[str] = []  # the person's tags since the bot's last answer, in order
    answers = {event_id: tag for tag, event_id in answered_at.items()}
    for event in events:
        if event["event_id"] in by_event:
            waiting.append(by_event[event["event_id"]])
        elif (tag := answers.get(event["event_id"])) is not None and tag in waiting:
            for earlier in waiting[: waiting.index(tag)]:
                if earlier not in answered_at:
                    together[earlier] = tag
            waiting = waiting[waiting.index(tag) + 1 :]
    return together


def check_files(data_dir: Path) -> dict[str, Any]:
    """``PRAGMA integrity_check`` on every SQLite file, a parse of every JSON file."""
    report: dict[str, Any] = {"sqlite": 0, "json": 0, "corrupt": []}
    for path in sorted(data_dir.rglob("*")):
        if not path.is_file():
            continue
        with path.open("rb") as handle:
            head = handle.read(16)
        if head == b"SQLite format 3\x00":
            report["sqlite"] += 1
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                    verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            except sqlite3.Error as exc:
                verdict = str(exc)
            if verdict != "ok":
                report["corrupt"].append(f"{path}: {verdict}")
        elif path.suffix == ".json":
            report["json"] += 1
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                report["corrupt"].append(f"{path}: {exc}")
    return report
