"""Where a persona's files live, and the one way to read and write them.

``DATA_DIR/{user}/persona/{name}/`` holds the persona's markdown files. The current user and
persona of a request travel in the ``_user`` and ``_persona`` context variables (set once per
turn by the session); everything downstream calls :func:`persona_path` instead of passing
paths around. Reads come from memory while a file is unchanged (:mod:`bot.persona.file_cache`);
writes are atomic and serialised per persona by an asyncio lock.

Persona files are the persona's own: nothing below the data folder is read or written through
a symbolic link, and only regular files are read (:mod:`bot.persona.safe_read`). A file in
:data:`PROMPT_ONLY_FILES` is read only as far as its prompt limit can use (at most
``4 * limit + 4`` bytes, as a character is at most four); every other file is rewritten by the
daemon and so is read whole, or refused when it is too large to be a real one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from pathlib import Path

from bot.daemon.disk import run_blocking
from bot.daemon.errors import PersonaError
from bot.daemon.invocation import invocation
from bot.persona.atomic import atomic_write_text
from bot.persona.file_cache import FileCache, FileText, Preload
from bot.persona.names import validate_name
from bot.setup.config import DEFAULT_LIMITS
from bot.turn.audience import (
    DIRECT_ROOM,
    ROOM_NOTE,
    ROOMS_FOLDER,
    SHARED_FOLDER,
    Audience,
    room_folder,
    room_of_folder,
)

__all__ = [
    "PERSONA_FILES",
    "PROMPT_ONLY_FILES",
    "FileText",
    "PersonaStore",
    "bind_persona",
    "current_persona",
    "persona_path",
]

#: every file of a persona's layout (seed 000 merged with seed 001)
PERSONA_FILES: tuple[str, ...] = (
    "IDENTITY.md",
    "SOUL.md",
    "VOICE.md",
    "PERSONA.md",
    "PROTOCOLS.md",
    "CONTEXT_TIERS.md",
    "USER.md",
    "AGENTS.md",
    "HELP.md",
    "MEMORY.md",
    "MEMORY_SHORT.md",
    "MEMORY_MID.md",
    "MEMORY_LONG.md",
    "REMINDERS.md",
    "SCRATCH.md",
    "TASKS.json",
    "CRONS.json",
)

#: files the daemon only reads (for the prompt and /help), never rewrites: what lies past
#: their prompt limit is never used, so it is never read (an editor reads them whole:
#: :meth:`PersonaStore.load_whole`). USER.md and MEMORY.md are not among them: promotion
#: rewrites them, and the memory mirrors want every line.
PROMPT_ONLY_FILES = frozenset(
    "IDENTITY.md SOUL.md PROTOCOLS.md CONTEXT_TIERS.md AGENTS.md HELP.md".split()
)

_user: ContextVar[str | None] = ContextVar("personad_user", default=None)
_persona: ContextVar[str | None] = ContextVar("personad_persona", default=None)
_data_dir: ContextVar[Path | None] = ContextVar("personad_data_dir", default=None)


class bind_persona:  # named like the function it reads as: ``with bind_persona(...):``
    """Set the current user and persona for the code running inside the block."""

    __slots__ = ("_tokens", "_values")

    def __init__(self, data_dir: Path, user: str, persona: str) -> None:
        self._values = (data_dir, user, persona)

    def __enter__(self) -> None:
        data_dir, user, persona = self._values
        self._tokens = (_data_dir.set(data_dir), _user.set(user), _persona.set(persona))

    def __exit__(self, *exc: object) -> None:
        data_dir, user, persona = self._tokens
        _persona.reset(persona)
        _user.reset(user)
        _data_dir.reset(data_dir)


def current_persona() -> tuple[str, str]:
    user, persona = _user.get(), _persona.get()
    if user is None or persona is None:
        raise PersonaError("no persona is bound to this request")
    return user, persona


def persona_path(*parts: str) -> Path:
    """The path of ``parts`` inside the current persona's folder."""
    data_dir = _data_dir.get()
    if data_dir is None:
        raise PersonaError("no data directory is bound to this request")
    user, persona = current_persona()
    for part in parts:
        if part.startswith(".") or "/" in part or "\\" in part:
            raise PersonaError(f"refusing path part {part!r}")
    return data_dir.joinpath(user, "persona", persona, *parts)


def _default_limit(filename: str) -> int:
    return DEFAULT_LIMITS.get(filename, 4000)


class PersonaStore:
    """Reads and writes persona files under one data directory; ``limit(filename)`` is the
    prompt's character limit for a file (the configured one: ``config.prompt.limit``)."""

    def __init__(self, data_dir: Path, limit: Callable[[str], int] = _default_limit) -> None:
        self.data_dir = data_dir
        self._limit = limit
        self._files = FileCache(os.fspath(data_dir), self._read_limit)
        self._locks: dict[Path, asyncio.Lock] = {}
        self._dirs: dict[tuple[str, str], Path] = {}
        #: (user, persona, filename) -> the file's path as text
        self._paths: dict[tuple[str, str, str], str] = {}
        self._folders: dict[tuple[str, str, str], str] = {}

    def directory(self, user: str, persona: str) -> Path:
        """The persona's folder (the names are validated the first time they are seen)."""
        key = (user, persona)
        directory = self._dirs.get(key)
        if directory is None:
            validate_name(user, "user")
            validate_name(persona, "persona")
            directory = self._dirs[key] = self.data_dir / user / "persona" / persona
        return directory

    def _read_limit(self, filename: str) -> int | None:
        """How many bytes of ``filename`` can be used; None: all (it is rewritten)."""
        name = filename.rpartition("/")[2]  # an audience's copy is capped as the file is
        if name in PROMPT_ONLY_FILES:
            return 4 * self._limit(name) + 4
        return None

    def file_path(self, user: str, persona: str, filename: str) -> Path:
        return Path(self._path(user, persona, filename))

    def _path(self, user: str, persona: str, filename: str) -> str:
        key = (user, persona, filename)
        path = self._paths.get(key)
        if path is None:
            folder = os.fspath(self.directory(user, persona))
            path = self._paths[key] = os.path.join(folder, _checked(filename))
        return path

    def exists(self, user: str, persona: str) -> bool:
        return (self.directory(user, persona) / "IDENTITY.md").is_file()

    def require(self, user: str, persona: str) -> Path:
        """The persona's folder, or PersonaError telling how to create it."""
        directory = self.directory(user, persona)
        if not directory.is_dir():
            raise PersonaError(
                f"persona {persona!r} of user {user!r} does not exist at {directory}",
                user_message=(
                    f"There is no persona '{persona}' for '{user}' yet. Create it with: "
                    f"{invocation()} persona new {user} {persona}"
                ),
            )
        return directory

    def list_personas(self, user: str) -> list[str]:
        root = self.data_dir / validate_name(user, "user") / "persona"
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def list_users(self) -> list[str]:
        if not self.data_dir.is_dir():
            return []
        return sorted(p.name for p in self.data_dir.iterdir() if (p / "persona").is_dir())

    def shared_rooms(self, user: str, persona: str) -> list[str]:
        """The ``platform:id`` of every shared room the persona has a folder for
        (``rooms/<room>/ROOM.md``, :mod:`bot.turn.audience`), sorted."""
        root = self.directory(user, persona) / ROOMS_FOLDER
        if not root.is_dir() or root.is_symlink():
            return []
        found = []
        for folder in root.iterdir():
            room = room_of_folder(folder.name)
            note = folder / ROOM_NOTE
            if room and not folder.is_symlink() and note.is_file() and not note.is_symlink():
                found.append(room)
        return sorted(found)

    def knows_shared_room(self, user: str, persona: str, room_key: str) -> bool:
        """Whether the persona has a folder for the shared room ``room_key``: one look at
        its ``ROOM.md``, no listing of every room."""
        try:
            note = self.directory(user, persona) / room_folder(room_key) / ROOM_NOTE
        except ValueError:  # not PLATFORM:ROOM
            return False
        return note.is_file() and not note.is_symlink()

    def audiences(self, user: str, persona: str) -> list[Audience]:
        """Every audience the persona keeps files for: its direct rooms, then each shared
        room with a folder."""
        return [DIRECT_ROOM, *(Audience(room) for room in self.shared_rooms(user, persona))]

    def lock(self, user: str, persona: str) -> asyncio.Lock:
        directory = self.directory(user, persona)
        lock = self._locks.get(directory)
        if lock is None:
            lock = self._locks[directory] = asyncio.Lock()
        return lock

    def read(self, user: str, persona: str, filename: str) -> FileText:
        """The file's text, from memory while it is unchanged (see :mod:`bot.persona.file_cache`).

        A missing file reads as empty; a file that is not valid UTF-8 or is refused (a link,
        not a regular file, too large) reads as empty with ``problem`` saying so, so one bad
        file never stops a conversation.
        """
        return self._files.read(self._path(user, persona, filename), filename)

    def stamp(self, user: str, persona: str, subfolder: str = "") -> Hashable | None:
        """Equal from one call to the next while reads of the files of the persona's folder
        (or of ``subfolder`` in it, such as ``shared``) return the same texts; ``None`` when
        that cannot be promised (see :meth:`FileCache.stamp`)."""
        folder = self._folders.get((user, persona, subfolder))
        if folder is None:
            top = os.fspath(self.directory(user, persona))
            folder = os.path.join(top, _checked_folder(subfolder)) if subfolder else top
            self._folders[(user, persona, subfolder)] = folder
        return self._files.stamp(folder)

    async def load(self, user: str, persona: str, filename: str) -> FileText:
        """:meth:`read`, but a file not in memory is read in a disk thread."""
        return await self._files.load(self._path(user, persona, filename), filename)

    async def load_whole(self, user: str, persona: str, filename: str) -> FileText:
        """The whole file in a disk thread, for whoever writes it back (an editor, a
        promotion): :meth:`read` keeps a prompt-only file cut at what its limit can use, and
        writing that back would lose the rest."""
        path = self._path(user, persona, filename)
        return await run_blocking(self._files.read_whole, path, filename)

    def start_preload(self, user: str, persona: str, filenames: Sequence[str]) -> Preload:
        """Bring files into memory with their disk work in a disk thread, beside whatever
        else the caller reads there (see :meth:`FileCache.start_preload`)."""
        return self._files.start_preload(
            [(self._path(user, persona, name), name) for name in filenames]
        )

    def watch_files(self) -> bool:
        """Let the running event loop tell this store when persona files change (Linux
        inotify), so reads need not check the disk; False where that is not available."""
        return self._files.watch()

    def unwatch_files(self) -> None:
        """Stop watching; reads check the disk again."""
        self._files.unwatch()

    async def recheck(self) -> int:
        """Check the files held in memory on disk now; how many had changed unreported."""
        return await self._files.recheck()

    async def write(
        self, user: str, persona: str, filename: str, text: str, *, durable: bool = True
    ) -> None:
        """Atomically replace one persona file, holding the persona's lock
        (``durable=False``: see :func:`bot.persona.atomic.atomic_write_bytes`)."""
        async with self.lock(user, persona):
            [error] = await self.write_many([(user, persona, filename, text)], durable=durable)
        if error is not None:
            raise error

    async def write_many(
        self, files: Sequence[tuple[str, str, str, str]], *, durable: bool = True
    ) -> list[OSError | None]:
        """Atomically replace several ``(user, persona, filename, text)`` files in one trip to
        a worker thread; for each, ``None`` or the error that stopped it. Only for files with
        one writer of their own (it does not take the persona locks)."""
        paths = [self._path(user, persona, name) for user, persona, name, _text in files]

        def write_all() -> list[os.stat_result | OSError]:
            results: list[os.stat_result | OSError] = []
            for path, (_u, _p, _n, text) in zip(paths, files, strict=True):
                try:
                    atomic_write_text(Path(path), text, durable=durable, root=self.data_dir)
                    results.append(os.stat(path, follow_symlinks=False))
                except OSError as exc:
                    results.append(exc)
            return results

        outcomes = await run_blocking(write_all)
        errors: list[OSError | None] = []
        for path, (_u, _p, name, text), outcome in zip(paths, files, outcomes, strict=True):
            if isinstance(outcome, OSError):
                self._files.forget(path)
                errors.append(outcome)
            else:
                self._files.wrote(path, name, text, outcome)
                errors.append(None)
        return errors

    def invalidate(self) -> None:
        self._files.clear()


def _checked(filename: str) -> str:
    """``NAME``, or an audience's copy of it (``shared/NAME``, ``rooms/ROOM/NAME``: see
    :mod:`bot.turn.audience`); anything else that could leave the folder is refused."""
    parts = filename.split("/")
    if (len(parts) == 2 and parts[0] == SHARED_FOLDER) or (
        len(parts) == 3 and parts[0] == ROOMS_FOLDER
    ):
        for part in parts:
            _plain(part, filename)
        return os.path.join(*parts)
    return _plain(filename, filename)


def _checked_folder(folder: str) -> str:
    """An audience's folder (``shared``, ``rooms/ROOM``), checked as its files' paths are."""
    return os.path.dirname(_checked(f"{folder}/{ROOM_NOTE}"))


def _plain(part: str, filename: str) -> str:
    if not part or part.startswith(".") or os.sep in part or "/" in part or ".." in part:
        raise PersonaError(f"refusing persona file name {filename!r}")
    return part
