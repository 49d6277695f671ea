"""The soak's count of what each message got, read from a room's history: a burst the daemon
answered together is answered, a message nobody answered is lost."""

from __future__ import annotations

from typing import Any

from bench.soak_count import Tally, count_room
from tests.fakes.streaming_model import expected_answer

PERSON, BOT = "@ana:test", "@bot:test"


def _said(n: int) -> dict[str, Any]:
    return {
        "event_id": f"$u{n}",
        "sender": PERSON,
        "type": "m.room.message",
        "content": {"body": f"message {n}, msg-u0-{n}"},
    }


def _answer(n: int, text: str | None = None) -> dict[str, Any]:
    return {
        "event_id": f"$b{n}",
        "sender": BOT,
        "type": "m.room.message",
        "content": {
            "body": text or expected_answer(f"msg-u0-{n}", 3),
            "m.relates_to": {"m.in_reply_to": {"event_id": f"$u{n}"}},
        },
    }


def _count(events: list[dict[str, Any]]) -> Tally:
    tally = Tally()
    count_room(events, PERSON, BOT, 3, tally)
    return tally


def test_a_burst_answered_once_is_answered_together() -> None:
    tally = _count([_said(0), _answer(0), _said(1), _said(2), _said(3), _answer(3)])
    assert tally.outcomes == {"exactly_once": 2, "together": 2}
    assert tally.examples["together"] == ["msg-u0-1 with msg-u0-3", "msg-u0-2 with msg-u0-3"]


def test_a_message_answered_before_the_next_was_sent_is_not_covered_by_it() -> None:
    # the answer to 2 came after 3 was sent, so 1 and 2 could have been one burst; 3 never
    # got an answer and nothing after it covers it
    tally = _count([_said(1), _said(2), _answer(2), _said(3)])
    assert tally.outcomes == {"exactly_once": 1, "together": 1, "lost": 1}
    assert tally.examples["lost"] == ["msg-u0-3"]


def test_a_burst_whose_answer_came_twice_is_not_counted_as_answered() -> None:
    events = [_said(1), _said(2), _answer(2), {**_answer(2), "event_id": "$again"}]
    tally = _count(events)
    assert tally.outcomes == {"doubled": 1, "lost": 1}
