"""What a statement said again does to the audience of the item it repeats, for every backend.

A write carries the label of where it was said (:mod:`bot.turn.audience`). A direct room, which
sees everything, reaches any item, and so does the user making something shared (``personad
memory add --shared``, a line of ``shared/``: the user said so). A shared room reaches only what
it sees already (``shared``, its own), so the item it reinforces shows it nothing it was not
told. An item said in a direct room or in another shared room stays as it is, and the repeat
is stored anew for this room: that item holds its own wording (two statements are twins by
their normal form, which drops signs, punctuation, emoji and accents: "HIV+" and "HIV-" are
one), its date and where it was first said, none of which the room heard. So:

=================  ==============  ===================================
said as            twin's label    twin's label afterwards
=================  ==============  ===================================
``direct``         any             unchanged (a direct room sees all)
``room:B``         ``shared``,     unchanged
                   ``room:B``
``room:B``         ``direct``,     no twin: ``room:B`` keeps its own
                   ``room:A``
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
    """The labels of the items a statement recorded as ``label`` may repeat (None: any): a
    shared room repeats only what it sees, never a direct room's item nor another room's."""
    if not is_label(label):
        raise ValueError(f"{label!r} is not an audience label")
    return (SHARED, label) if _room(label) else None


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
    return label if label == SHARED else old


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
    return f"({said} NOT LIKE 'room:%' OR audience IN ('shared', {said}))"


def visible_sql(item: str, seer: str) -> str:
    """SQL true when every audience that sees a row of the SQL label ``seer`` sees the row of
    the SQL label ``item`` too: :func:`visible_wherever` for a statement that reads both."""
    return f"({seer} = '{DIRECT}' OR {item} = '{SHARED}' OR {item} = {seer})"
