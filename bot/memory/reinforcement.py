"""What a statement said again does to the audience of the item it repeats, for every backend.

A write carries the label of where it was said (:mod:`bot.turn.audience`). It reinforces an
existing item only when every audience that hears the write sees that item already, so that
reinforcing it shows no one anything they were not told: a direct room, which sees everything,
reaches any item; a shared room reaches what it sees (``shared``, its own); the user making
something shared (``personad memory add --shared``, a line of ``shared/``, ``/share TEXT``)
reaches only what is shared already. Anything else stays as it is, and the repeat is stored
anew where it was said: the item holds its own wording (two statements are twins by their
normal form, which drops punctuation, emoji and accents:
:func:`~bot.memory.normal_form.normalise_text`), its date and where it was first said, none
of which the new audience heard. A repeat never changes an
item's audience; only the user does, by its id (:meth:`~bot.memory.base.MemoryBackend.share`).
So a line taken out of ``shared/`` takes its own item with it, and a private item it repeated
stays private. So:

=================  ==================================  ===============================
said as            twin it reinforces                  otherwise
=================  ==================================  ===============================
``direct``         any                                 (none: every item is a twin)
``room:B``         ``shared``, ``room:B``              stored anew for ``room:B``
``shared``         ``shared``                          stored anew as ``shared``
=================  ==================================  ===============================

A near repeat (by meaning) is matched among the same labels (:func:`near_labels`): in a shared
room, a private item's wording is never what a new statement becomes, and a line made shared
never shares another item's wording. A direct room, which sees two audiences' copies of one
text, is shown one (:func:`bot.memory.episodes.blend.blend`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from bot.turn.audience import DIRECT, SHARED, is_label

_T = TypeVar("_T")

__all__ = [
    "audience_event",
    "near_labels",
    "once_each",
    "twin_labels",
    "twin_sql",
    "visible_sql",
    "visible_wherever",
]


def twin_labels(label: str) -> tuple[str, ...] | None:
    """The labels of the items a statement recorded as ``label`` may repeat (None: any):
    those every audience of ``label`` sees (:func:`visible_wherever`). A shared room repeats
    only what it sees, never a direct room's item nor another room's; a statement made shared
    only what is shared already."""
    if not is_label(label):
        raise ValueError(f"{label!r} is not an audience label")
    return visible_wherever(label)


def near_labels(label: str) -> tuple[str, ...] | None:
    """The labels of the items a near repeat by meaning, recorded as ``label``, may be of
    (None: any): those :func:`visible_wherever` it is."""
    return visible_wherever(label)


def visible_wherever(label: str) -> tuple[str, ...] | None:
    """The labels of the items every audience that sees an item of ``label`` sees too (None:
    any): a direct room sees every label; a shared room sees ``shared`` and its own; every
    audience sees ``shared``, and all of them see only ``shared``."""
    if label == DIRECT:
        return None
    return (SHARED,) if label == SHARED else (SHARED, label)


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
    return visible_sql("audience", said)


def visible_sql(item: str, seer: str) -> str:
    """SQL true when every audience that sees a row of the SQL label ``seer`` sees the row of
    the SQL label ``item`` too: :func:`visible_wherever` for a statement that reads both."""
    return f"({seer} = '{DIRECT}' OR {item} = '{SHARED}' OR {item} = {seer})"


def once_each(items: Iterable[_T], said: Callable[[_T], Hashable]) -> list[_T]:
    """The first of ``items`` that says each text (``said``): a text more than one audience
    keeps (a repeat stored anew for its room, above) is shown once to one that sees both."""
    first: dict[Hashable, _T] = {}
    for item in items:
        first.setdefault(said(item), item)
    return list(first.values())
