"""Who is listening: the one place that decides what a room may know.

Everything the persona keeps records its *audience*, where it was said, as a label:

* ``direct``: said in a direct room of its user (the user alone with the persona); private.
* ``room:PLATFORM:ID``: said in that shared room (a group others read).
* ``shared``: made shared by the user on purpose (``/share``, ``personad memory share``,
  the files in ``shared/``); every room of the user may know it.

A turn is heard by an :class:`Audience`: a direct room sees everything of its user; a shared
room sees what was said in it and what was made shared, never what was said in a direct
room or in another shared room. Memory items carry their label; the file layer is split by
folder, so the files stay plain markdown a person can read and edit::

    PERSONA/USER.md MEMORY.md MEMORY_SHORT.md ... SCRATCH.md TASKS.json   direct rooms only
    PERSONA/shared/USER.md shared/MEMORY.md                               every room
    PERSONA/rooms/<room>/MEMORY.md MEMORY_SHORT.md ... SCRATCH.md         that shared room

The persona's own character (IDENTITY, SOUL, VOICE, PERSONA, PROTOCOLS, AGENTS, CONTEXT_TIERS,
HELP) is shared: it stays at the top of the folder and every room reads it. A shared room's
folder is made the first time the persona answers there (:func:`room_folder`), and its name
gives the room back (:func:`room_of_folder`): that is how distillation tells a shared room's
turns from a direct one's in the session logs. A room the logs name that has no folder counts
as direct, so an unknown room's words stay private.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

__all__ = [
    "CHARACTER_FILES",
    "DIRECT",
    "DIRECT_ROOM",
    "ROOMS_FOLDER",
    "ROOM_FILES",
    "ROOM_NOTE",
    "SHARED",
    "SHARED_FILES",
    "SHARED_FOLDER",
    "Audience",
    "describe",
    "is_label",
    "label_of_path",
    "room_folder",
    "room_label",
    "room_note",
    "room_of_folder",
]

DIRECT = "direct"
SHARED = "shared"
_ROOM = "room:"

SHARED_FOLDER = "shared"
ROOMS_FOLDER = "rooms"

#: the persona's character: one copy, in every room's prompt
CHARACTER_FILES = frozenset(
    "IDENTITY.md SOUL.md VOICE.md PERSONA.md PROTOCOLS.md AGENTS.md CONTEXT_TIERS.md"
    " HELP.md".split()
)
#: what a person may make known in every room: ``shared/USER.md``, ``shared/MEMORY.md``
SHARED_FILES = ("USER.md", "MEMORY.md")
#: what each audience keeps of its own: at the top of the folder for direct rooms, in
#: ``rooms/<room>/`` for a shared one
ROOM_FILES = frozenset(
    "USER.md MEMORY.md MEMORY_SHORT.md MEMORY_MID.md MEMORY_LONG.md REMINDERS.md SCRATCH.md"
    " TASKS.json CRONS.json".split()
)
#: the note that names a shared room's folder: its existence marks the room as shared
ROOM_NOTE = "ROOM.md"
#: characters a room id keeps in its folder's name; the rest are %-escaped
_SAFE = "!:@+=,_-"


def room_label(room_key: str) -> str:
    """The label of what was said in the shared room ``platform:id``."""
    return _ROOM + room_key


def is_label(value: str) -> bool:
    """Whether ``value`` is an audience label (``direct``, ``shared`` or ``room:P:ID``)."""
    if value in (DIRECT, SHARED):
        return True
    platform, sep, room = value.removeprefix(_ROOM).partition(":")
    return value.startswith(_ROOM) and bool(sep and platform and room)


def describe(label: str) -> str:
    """How a person reads a label: ``private``, ``shared with every room``, ``room P:ID``."""
    if label == DIRECT:
        return "private"
    if label == SHARED:
        return "shared with every room"
    return "room " + label.removeprefix(_ROOM)


def room_folder(room_key: str) -> str:
    """``rooms/<name>``: the folder of a shared room's own files, ``platform:id`` kept
    readable (``rooms/matrix-!abc:example.org``) and anything that could leave the folder
    escaped."""
    platform, sep, room = room_key.partition(":")
    if not sep or not platform or not room:
        raise ValueError(f"{room_key!r} is not PLATFORM:ROOM")
    # quote() keeps "." as it is: escaped here, so no name holds ".." for the store to refuse
    name = f"{quote(platform, safe='_-')}-{quote(room, safe=_SAFE).replace('.', '%2E')}"
    return f"{ROOMS_FOLDER}/{name}"


def room_note(room_key: str) -> str:
    """The text of a shared room's ``ROOM.md``."""
    return (
        f"# Shared room {room_key}\n\n"
        "What the persona keeps of this room lives in this folder: its digests, the facts\n"
        "promoted from it, its notes and tasks. Only this room (and the user's direct rooms)\n"
        "see them. To let every room know something, put it in ../../shared/USER.md or\n"
        "../../shared/MEMORY.md.\n"
    )


def room_of_folder(name: str) -> str | None:
    """The ``platform:id`` a folder under ``rooms/`` was named for, or None."""
    platform, sep, room = name.partition("-")
    if not sep or not platform or not room:
        return None
    key = f"{unquote(platform)}:{unquote(room)}"
    return key if room_folder(key) == f"{ROOMS_FOLDER}/{name}" else None


@dataclass(frozen=True, slots=True)
class Audience:
    """Who hears a turn: a direct room of the user (``room=None``) or the shared room
    ``room`` (its ``platform:id``)."""

    room: str | None = None

    @classmethod
    def of(cls, room_key: str, *, shared: bool) -> Audience:
        return cls(room_key if shared else None)

    @property
    def private(self) -> bool:
        """A direct room: the user alone with the persona."""
        return self.room is None

    @property
    def label(self) -> str:
        """What is said here is recorded as this."""
        return DIRECT if self.room is None else room_label(self.room)

    @property
    def labels(self) -> tuple[str, ...] | None:
        """The labels this audience may see; None: every one (a direct room)."""
        return None if self.room is None else (SHARED, room_label(self.room))

    def sees(self, label: str) -> bool:
        """Whether something recorded as ``label`` may be shown to this audience."""
        return self.room is None or label == SHARED or label == room_label(self.room)

    @property
    def folder(self) -> str:
        """Where this audience's own files live inside the persona's folder ("" for direct
        rooms: the top)."""
        return "" if self.room is None else room_folder(self.room)

    def own(self, filename: str) -> str:
        """The path (inside the persona's folder) of this audience's copy of a file it keeps
        of its own (:data:`ROOM_FILES`); a character file is the same for everyone."""
        if filename in CHARACTER_FILES or self.room is None or filename not in ROOM_FILES:
            return filename
        return f"{self.folder}/{filename}"

    def prompt_files(self, names: list[str] | tuple[str, ...]) -> list[str]:
        """The files a prompt of this audience reads for the tier's ``names``: each in this
        audience's copy, with what was made shared (``shared/USER.md``, ``shared/MEMORY.md``)
        after the file of the same name."""
        paths: list[str] = []
        for name in names:
            paths.append(self.own(name))
            if name in SHARED_FILES:
                paths.append(f"{SHARED_FOLDER}/{name}")
        return paths


#: a direct room: sees everything of its user
DIRECT_ROOM = Audience()


def label_of_path(path: str) -> str:
    """The audience of a persona file by where it lies: ``shared/…`` every room's,
    ``rooms/<room>/…`` that room's, anything else (the top of the folder) direct rooms'."""
    parts = path.split("/")
    if len(parts) == 2 and parts[0] == SHARED_FOLDER:
        return SHARED
    if len(parts) == 3 and parts[0] == ROOMS_FOLDER:
        room = room_of_folder(parts[1])
        if room is not None:
            return room_label(room)
    return DIRECT
