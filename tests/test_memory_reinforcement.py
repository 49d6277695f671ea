"""What a statement said again does to an item's audience: the rules, and the SQL twin that
the episode store runs agrees with them label for label."""

from __future__ import annotations

import sqlite3
from itertools import product

import pytest

from bot.memory.reinforcement import (
    audience_event,
    near_labels,
    said_again,
    twin_labels,
    twin_sql,
)
from bot.turn.audience import DIRECT, SHARED, room_label

__all__: list[str] = []

FAMILY = room_label("matrix:!family")
WORK = room_label("telegram:-100")
LABELS = (DIRECT, SHARED, FAMILY, WORK)


def test_the_table() -> None:
    assert said_again(DIRECT, FAMILY) == DIRECT  # never given to a room: it keeps its own
    assert said_again(FAMILY, WORK) == FAMILY  # never given to another room
    assert said_again(SHARED, WORK) == SHARED
    assert said_again(FAMILY, DIRECT) == FAMILY  # a direct repeat never narrows
    assert said_again(FAMILY, SHARED) == SHARED  # the user made it shared
    assert twin_labels(WORK) == (SHARED, WORK)
    assert twin_labels(DIRECT) is None and twin_labels(SHARED) is None
    assert near_labels(WORK) == (SHARED, WORK)
    assert near_labels(SHARED) == (SHARED,) and near_labels(DIRECT) is None
    assert [audience_event(label) for label in (SHARED, DIRECT, FAMILY)] == [
        "shared",
        "made private",
        "room",
    ]
    with pytest.raises(ValueError, match="not an audience label"):
        twin_labels("room:")


def test_the_sql_agrees_with_the_rules() -> None:
    db = sqlite3.connect(":memory:")
    for old, said in product(LABELS, LABELS):
        (twin,) = db.execute(
            f"SELECT {twin_sql('?1')} FROM (SELECT ?2 AS audience)", (said, old)
        ).fetchone()
        twins = twin_labels(said)
        assert bool(twin) == (twins is None or old in twins), (old, said)
