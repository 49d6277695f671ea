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


#: how often the cached files are checked on disk in the background, for changes the watcher
#: cannot see (a file system inotify is blind to, a symlinked file edited elsewhere)
RECHECK_SECONDS = 10.0


@dataclass(slots=True)
class _Cached:
    mtime_ns: int  # -1: the file was missing
    size: int
    file: FileText
    #: reads need no check: the folder is watched and no change was reported or found since
    trusted: bool = False
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
        #: how many changes the watcher reported (a preload checks none came in meanwhile)
        self._changes = 0
        self._rechecking: asyncio.Task[None] | None = None

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
        if cached is not None and cached.trusted:
            return cached.file
        # watched before the stat in _load: any change after it is reported
        trusted = self._watch(path)
        return self._remember(path, filename, _load(path, cached), trusted)

    async def preload(self, user: str, persona: str, filenames: Sequence[str]) -> None:
        """Read the files not yet cached in a disk thread, so the turn that needs them next
        finds them in memory instead of reading on the event loop."""
        wanted = [(name, self._path(user, persona, name)) for name in filenames]
        wanted = [(name, path) for name, path in wanted if path not in self._cache]
        if not wanted:
            return
        changes = self._changes
        trusted = self._watch(wanted[0][1])

        def load_all() -> list[_Loaded]:
            return [_load(path, None) for _name, path in wanted]

        loaded = await run_blocking(load_all)
        if self._changes != changes:
            trusted = False  # a change came in while reading: check each file on use
        for (name, path), outcome in zip(wanted, loaded, strict=True):
            if path not in self._cache:  # a read or write meanwhile knows better
                self._remember(path, name, outcome, trusted)

    def _watch(self, path: str) -> bool:
        """Watch the folder of ``path``; whether reads of it may skip the disk check."""
        return self._watcher is not None and self._watcher.watch(path[: path.rindex(os.sep)])

    def _remember(
        self, path: str, filename: str, loaded: _Loaded, trusted: bool
    ) -> FileText:
        """Cache what :func:`_load` found and return the file's text."""
        if loaded is None:
            missing = self._missing.get(filename)
            if missing is None:
                missing = self._missing[filename] = FileText(filename, "")
            if trusted:
                self._cache[path] = _Cached(-1, -1, missing, trusted)
            else:
                self._cache.pop(path, None)
            return missing
        if isinstance(loaded, OSError):
            return FileText(filename, "", f"cannot read {filename}: {loaded.strerror}")
        if isinstance(loaded, _Cached):  # unchanged on disk
            loaded.trusted = trusted
            return loaded.file
        stat, raw = loaded
        try:
            result = FileText(filename, raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            result = FileText(
                filename, "", f"{filename} is not valid UTF-8 (byte {exc.start}); it was skipped"
            )
        self._cache[path] = _Cached(stat.st_mtime_ns, stat.st_size, result, trusted)
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
        self._rechecking = self._loop.create_task(self._recheck_forever())
        return True

    def unwatch_files(self) -> None:
        """Stop watching; reads check the disk again."""
        watcher, self._watcher = self._watcher, None
        if watcher is None:
            return
        if self._rechecking is not None:
            self._rechecking.cancel()
            self._rechecking = None
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(watcher.fd)
        self._loop = None
        watcher.close()

    async def _recheck_forever(self) -> None:
        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                await self.recheck()
            except Exception as exc:  # never let the safety net stop
                log.error("persona.recheck_failed", error=str(exc))

    async def recheck(self) -> int:
        """Check every trusted cached file on disk (in a disk thread) and forget those that
        changed without a report; how many did."""
        entries = [(path, cached) for path, cached in self._cache.items() if cached.trusted]
        if not entries:
            return 0
        found = await run_blocking(_stat_all, [path for path, _cached in entries])
        changed = 0
        for (path, cached), (mtime_ns, size) in zip(entries, found, strict=True):
            if self._cache.get(path) is not cached or not cached.trusted:
                continue  # read, written or reported meanwhile
            if (mtime_ns, size) != (cached.mtime_ns, cached.size):
                del self._cache[path]
                changed += 1
        if changed:
            log.info("persona.changed_unreported", files=changed)
        return changed

    def _changed(self, directory: str | None, name: str | None) -> None:
        """The watcher reports a change: a file changed by someone else is read again; one
        this store wrote is only checked (its own write is most likely what was reported)."""
        if name is not None and directory is not None:
            paths = [os.path.join(directory, name)]
        else:
            prefix = "" if directory is None else directory + os.sep
            paths = [path for path in self._cache if path.startswith(prefix)]
        self._changes += 1
        for path in paths:
            cached = self._cache.get(path)
            if cached is None:
                continue
            if cached.written:
                cached.trusted = False
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


#: what :func:`_load` found: nothing (missing), an error, the cached entry (unchanged on
#: disk), or the file's stat and bytes
_Loaded = None | OSError | _Cached | tuple[os.stat_result, bytes]


def _stat_all(paths: list[str]) -> list[tuple[int, int]]:
    """Each file's mtime and size; ``(-1, -1)`` for one that is missing or unreadable."""
    found = []
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            found.append((-1, -1))
        else:
            found.append((stat.st_mtime_ns, stat.st_size))
    return found


def _load(path: str, cached: _Cached | None) -> _Loaded:
    """The file at ``path`` as it is on disk; ``cached`` is returned when it is unchanged."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc
    if cached is not None and (cached.mtime_ns, cached.size) == (stat.st_mtime_ns, stat.st_size):
        return cached
    try:
        with open(path, "rb") as file:
            return stat, file.read()
    except OSError as exc:
        return exc


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
