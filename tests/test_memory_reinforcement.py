"""Which items a statement said again may reinforce (a repeat never moves one): the rules,
and the SQL twin that the episode store runs agrees with them label for label."""

from __future__ import annotations

import sqlite3
from itertools import product

import pytest

from bot.memory.reinforcement import (
    audience_event,
    near_labels,
    twin_labels,
    twin_sql,
)
from bot.turn.audience import DIRECT, SHARED, room_label

__all__: list[str] = []

FAMILY = room_label("matrix:!family")
WORK = room_label("telegram:-100")
LABELS = (DIRECT, SHARED, FAMILY, WORK)


def test_the_table() -> None:
    assert twin_labels(DIRECT) is None  # a direct room sees every item
    assert twin_labels(WORK) == (SHARED, WORK)  # never a direct room's item nor another room's
    assert twin_labels(SHARED) == (SHARED,)  # made shared: never a private item's wording
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
