"""Where a persona's files live, and the one way to read and write them.

``DATA_DIR/{user}/persona/{name}/`` holds the persona's markdown files. The current user and
persona of a request travel in the ``_user`` and ``_persona`` context variables (set once per
turn by the session); everything downstream calls :func:`persona_path` instead of passing
paths around. Reads are cached by modification time; writes are atomic and serialised per
persona by an asyncio lock.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import structlog

from bot.atomic import atomic_write_text
from bot.disk import run_blocking
from bot.errors import PersonaError
from bot.persona.names import validate_name
from bot.persona.watch import DirectoryWatcher

__all__ = [
    "PERSONA_FILES",
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

log = structlog.get_logger(__name__)

_user: ContextVar[str | None] = ContextVar("personad_user", default=None)
_persona: ContextVar[str | None] = ContextVar("personad_persona", default=None)
_data_dir: ContextVar[Path | None] = ContextVar("personad_data_dir", default=None)


@contextmanager
def bind_persona(data_dir: Path, user: str, persona: str) -> Iterator[None]:
    """Set the current user and persona for the code running inside the block."""
    tokens = (_data_dir.set(data_dir), _user.set(user), _persona.set(persona))
    try:
        yield
    finally:
        _persona.reset(tokens[2])
        _user.reset(tokens[1])
        _data_dir.reset(tokens[0])


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


@dataclass(frozen=True, slots=True)
class FileText:
    """A persona file's text as read, or the reason it could not be used."""

    name: str
    text: str
    problem: str | None = None


#: a watched file is checked on disk at least this often, even without a change reported
RECHECK_SECONDS = 10.0


@dataclass(slots=True)
class _Cached:
    mtime_ns: int  # -1: the file was missing
    size: int
    file: FileText
    #: until then (time.monotonic) no check is needed: the folder is watched
    trusted_until: float = 0.0
    #: this store wrote the text (so a reported change is checked by mtime and size)
    written: bool = False


class PersonaStore:
    """Reads and writes persona files under one data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        #: by the file's path as text
        self._cache: dict[str, _Cached] = {}
        self._watcher: DirectoryWatcher | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._locks: dict[Path, asyncio.Lock] = {}
        self._dirs: dict[tuple[str, str], Path] = {}
        #: (user, persona, filename) -> the file's path as text
        self._paths: dict[tuple[str, str, str], str] = {}
        #: what a missing file reads as, one object per name (so callers can cache on it)
        self._missing: dict[str, FileText] = {}

    def directory(self, user: str, persona: str) -> Path:
        """The persona's folder (the names are validated the first time they are seen)."""
        key = (user, persona)
        directory = self._dirs.get(key)
        if directory is None:
            validate_name(user, "user")
            validate_name(persona, "persona")
            directory = self._dirs[key] = self.data_dir / user / "persona" / persona
        return directory

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
                    f"personad persona new {user} {persona}"
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

    def lock(self, user: str, persona: str) -> asyncio.Lock:
        directory = self.directory(user, persona)
        lock = self._locks.get(directory)
        if lock is None:
            lock = self._locks[directory] = asyncio.Lock()
        return lock

    def read(self, user: str, persona: str, filename: str) -> FileText:
        """The file's text, from cache while it is unchanged.

        Unchanged means: no change reported for it by the watcher (see :meth:`watch_files`),
        or, without one, the same mtime and size as when it was read. A missing file reads as
        empty; a file that is not valid UTF-8 reads as empty with ``problem`` saying so, so
        one bad file never stops a conversation.
        """
        path = self._path(user, persona, filename)
        cached = self._cache.get(path)
        if cached is not None and cached.trusted_until > time.monotonic():
            return cached.file
        trusted_until = 0.0
        if self._watcher is not None and self._watcher.watch(path[: path.rindex(os.sep)]):
            # watched before the stat below: any change after it is reported
            trusted_until = time.monotonic() + RECHECK_SECONDS
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            missing = self._missing.get(filename)
            if missing is None:
                missing = self._missing[filename] = FileText(filename, "")
            if trusted_until:
                self._cache[path] = _Cached(-1, -1, missing, trusted_until)
            else:
                self._cache.pop(path, None)
            return missing
        if cached is not None and (cached.mtime_ns, cached.size) == (
            stat.st_mtime_ns,
            stat.st_size,
        ):
            cached.trusted_until = trusted_until
            return cached.file
        try:
            with open(path, "rb") as file:
                raw = file.read()
        except OSError as exc:
            return FileText(filename, "", f"cannot read {filename}: {exc.strerror}")
        try:
            result = FileText(filename, raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            result = FileText(
                filename, "", f"{filename} is not valid UTF-8 (byte {exc.start}); it was skipped"
            )
        self._cache[path] = _Cached(stat.st_mtime_ns, stat.st_size, result, trusted_until)
        return result

    def watch_files(self) -> bool:
        """Let the running event loop tell this store when persona files change (Linux
        inotify), so reads need not check the disk; False where that is not available."""
        if self._watcher is not None:
            return True
        try:
            watcher = DirectoryWatcher(self._changed)
        except OSError as exc:
            log.info("persona.watch_unavailable", error=str(exc))
            return False
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(watcher.fd, watcher.read_events)
        self._watcher = watcher
        return True

    def unwatch_files(self) -> None:
        """Stop watching; reads check the disk again."""
        watcher, self._watcher = self._watcher, None
        if watcher is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(watcher.fd)
        self._loop = None
        watcher.close()

    def _changed(self, directory: str | None, name: str | None) -> None:
        """The watcher reports a change: a file changed by someone else is read again; one
        this store wrote is only checked (its own write is most likely what was reported)."""
        if name is not None and directory is not None:
            paths = [os.path.join(directory, name)]
        else:
            prefix = "" if directory is None else directory + os.sep
            paths = [path for path in self._cache if path.startswith(prefix)]
        for path in paths:
            cached = self._cache.get(path)
            if cached is None:
                continue
            if cached.written:
                cached.trusted_until = 0.0
            else:
                del self._cache[path]

    async def write(
        self, user: str, persona: str, filename: str, text: str, *, durable: bool = True
    ) -> None:
        """Atomically replace one persona file, holding the persona's lock
        (``durable=False``: see :func:`bot.atomic.atomic_write_bytes`)."""
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
                    atomic_write_text(Path(path), text, durable=durable)
                    results.append(os.stat(path))
                except OSError as exc:
                    results.append(exc)
            return results

        outcomes = await run_blocking(write_all)
        errors: list[OSError | None] = []
        for path, (_u, _p, name, text), outcome in zip(paths, files, outcomes, strict=True):
            if isinstance(outcome, OSError):
                self._cache.pop(path, None)
                errors.append(outcome)
            else:
                # what was just written is what the next read would find (checked by mtime
                # and size once the watcher reports the write)
                self._cache[path] = _Cached(
                    outcome.st_mtime_ns, outcome.st_size, FileText(name, text), written=True
                )
                errors.append(None)
        return errors

    def invalidate(self) -> None:
        self._cache.clear()


def _checked(filename: str) -> str:
    if (
        not filename
        or filename.startswith(".")
        or os.sep in filename
        or "/" in filename
        or ".." in filename
    ):
        raise PersonaError(f"refusing persona file name {filename!r}")
    return filename
