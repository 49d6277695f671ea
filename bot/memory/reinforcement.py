"""What a statement said again does to the audience of the item it repeats, for every backend.

A write carries the label of where it was said (:mod:`bot.turn.audience`). It may reinforce an
existing item only when the writer could have been told that item: a direct room or the user
making something shared (``personad memory add --shared``, a line of ``shared/``) reaches any
item; a shared room reaches what it sees (``shared``, its own) and what was said in a direct
room, which it may *widen* to itself, never another shared room's item: that room's wording
stays its own, and the repeat is stored anew for this one. So:

=================  ==============  ===================================
said as            twin's label    twin's label afterwards
=================  ==============  ===================================
``direct``         any             unchanged (a direct room sees all)
``room:B``         ``direct``      ``room:B`` (a direct room still sees it)
``room:B``         ``shared``,     unchanged
                   ``room:B``
``shared``         any             ``shared`` (the user said so)
=================  ==============  ===================================

A near repeat (by meaning) is matched only among what the writer *sees* (:func:`near_labels`),
and a ``shared`` one among what is shared already: in a shared room, a private item's wording
is never what a new statement becomes, and a line made shared never shares another item's
wording.
"""

from __future__ import annotations

from bot.turn.audience import DIRECT, SHARED, is_label

__all__ = [
    "audience_event",
    "near_labels",
    "said_again",
    "twin_labels",
    "twin_sql",
    "visible_sql",
    "visible_wherever",
]


def _room(label: str) -> bool:
    return label not in (DIRECT, SHARED)


def twin_labels(label: str) -> tuple[str, ...] | None:
    """The labels of the items a statement recorded as ``label`` may repeat (None: any)."""
    if not is_label(label):
        raise ValueError(f"{label!r} is not an audience label")
    return (DIRECT, SHARED, label) if _room(label) else None


def near_labels(label: str) -> tuple[str, ...] | None:
    """The labels of the items a near repeat by meaning, recorded as ``label``, may be of
    (None: any): those :func:`visible_wherever` it is."""
    return visible_wherever(label)


def visible_wherever(label: str) -> tuple[str, ...] | None:
    """The labels of the items every audience that sees an item of ``label`` sees too (None:
    any): a direct room sees every label; a shared room sees ``shared`` and its own; every
    audience sees ``shared``, and all of them see only ``shared``."""
    if label == SHARED:
        return (SHARED,)
    return (SHARED, label) if _room(label) else None


def said_again(old: str, label: str) -> str:
    """The label of an item recorded as ``old`` once it was said again as ``label``."""
    if label == SHARED or (old == DIRECT and _room(label)):
        return label
    return old


def audience_event(label: str) -> str:
    """The name of the history event of an item given the audience ``label``."""
    if label == SHARED:
        return "shared"
    if label == DIRECT:
        return "made private"
    return "room"


def twin_sql(said: str) -> str:
    """SQL true for a row whose ``audience`` a statement recorded as the SQL value ``said``
    may repeat: :func:`twin_labels`, for a statement that writes many rows at once."""
    return f"({said} NOT LIKE 'room:%' OR audience IN ('direct', 'shared', {said}))"


def visible_sql(item: str, seer: str) -> str:
    """SQL true when every audience that sees a row of the SQL label ``seer`` sees the row of
    the SQL label ``item`` too: :func:`visible_wherever` for a statement that reads both."""
    return f"({seer} = '{DIRECT}' OR {item} = '{SHARED}' OR {item} = {seer})"
