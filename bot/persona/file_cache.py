"""Persona files held in memory, so a turn's prompt does not read fifteen files from disk.

A :class:`FileCache` keeps each file's text with the mtime and size it had. Without a watcher,
every read checks those on disk. With one (:meth:`FileCache.watch`, Linux inotify, see
:mod:`bot.persona.watch`), a read trusts the cache until the kernel reports a change to the
file; as a safety net for changes inotify cannot see (file systems such as NFS, a hard-linked
file edited through its name in another folder), every trusted entry is checked on disk in a
disk thread each :data:`RECHECK_SECONDS`, off the turn's path. A missing file reads as empty;
one that is not valid UTF-8, or that :mod:`bot.persona.safe_read` refuses (a symbolic link,
not a regular file, too large to read whole), reads as empty with ``problem`` saying so, so
one bad file never stops a conversation. A file is read only up to its byte limit
(``read_limit``): a longer one that only feeds the prompt is kept cut there.

Each folder has a stamp (:meth:`FileCache.stamp`) that changes whenever what a read of one of
its files would return may have changed, so a caller that built something from a folder's
files (the prompt's persona text) can tell it is still current without reading them again.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import structlog

from bot.daemon.disk import run_blocking
from bot.persona.safe_read import UNCHANGED, Outcome, Read, Refused, read_files, signature
from bot.persona.watch import DirectoryWatcher

__all__ = ["RECHECK_SECONDS", "FileCache", "FileText", "Preload"]

log = structlog.get_logger(__name__)

#: how often the trusted entries are checked on disk in the background
RECHECK_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class FileText:
    """A persona file's text as read, or the reason it could not be used."""

    name: str
    text: str
    problem: str | None = None


@dataclass(slots=True)
class _Cached:
    mtime_ns: int  # -1: the file was missing; for a refused file, its safe_read signature
    size: int
    file: FileText
    #: reads need no check: the folder is watched and no change was reported or found since
    trusted: bool = False
    #: this process wrote the text (so a reported change is checked by mtime and size)
    written: bool = False


class FileCache:
    """Files by their path as text. Files below ``root`` are reached without following a
    link; ``read_limit(filename)`` is how many bytes of a file can be used (``None``: the
    whole file is needed, so a larger one than :data:`~bot.persona.safe_read.WHOLE_FILE_LIMIT`
    is refused rather than cut)."""

    def __init__(
        self,
        root: str | None = None,
        read_limit: Callable[[str], int | None] | None = None,
    ) -> None:
        self._root = root
        self._read_limit = read_limit or _whole
        self._entries: dict[str, _Cached] = {}
        self._watcher: DirectoryWatcher | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._rechecking: asyncio.Task[None] | None = None
        #: what a missing file reads as, one object per name (so callers can cache on it)
        self._missing: dict[str, FileText] = {}
        #: how many changes the watcher reported (a preload checks none came in meanwhile)
        self._changes = 0
        #: per folder, how often an entry of it was stored, replaced, dropped or reported
        self._versions: dict[str, int] = {}
        #: per folder, the paths a read cannot take from memory unchecked
        self._unsettled: dict[str, set[str]] = {}
        #: counts :meth:`clear` calls, which change every folder
        self._epoch = 0

    def read(self, path: str, filename: str) -> FileText:
        cached = self._entries.get(path)
        if cached is not None and cached.trusted:
            return cached.file
        # watched before the stat in read_files: any change after it is reported
        trusted = self._watch(path)
        [loaded] = read_files(self._root, [self._wanted(path, filename, cached)])
        return self._remember(path, filename, loaded, trusted)

    def _wanted(
        self, path: str, filename: str, cached: _Cached | None
    ) -> tuple[str, tuple[int, int] | None, int | None]:
        """What :func:`read_files` needs to read ``path``."""
        held = None if cached is None else (cached.mtime_ns, cached.size)
        return path, held, self._read_limit(filename)

    async def load(self, path: str, filename: str) -> FileText:
        """:meth:`read` for a file that may not be in memory, reading it in a disk thread
        (a file that grows, such as a changelog, is read again after each change)."""
        cached = self._entries.get(path)
        if cached is not None and cached.trusted:
            return cached.file
        preload = self.start_preload([(path, filename)])
        await run_blocking(preload.read)
        [file] = preload.finish()
        return file

    def read_whole(self, path: str, filename: str) -> FileText:
        """The whole file, however long, for a caller that will write it back (a prompt-only
        file is otherwise held cut at what its limit can use); not cached. A file too large
        to be a real one, a link or not a regular file reads as empty with ``problem``."""
        [loaded] = read_files(self._root, [(path, None, None)])
        if loaded is None:
            return FileText(filename, "")
        if isinstance(loaded, OSError):
            return FileText(filename, "", f"cannot read {filename}: {loaded.strerror}")
        if isinstance(loaded, Refused):
            return FileText(filename, "", loaded.problem)
        assert isinstance(loaded, Read)
        return _decoded(filename, loaded)

    def start_preload(self, files: Sequence[tuple[str, str]]) -> Preload:
        """Bring the ``(path, filename)`` files of one folder into memory in three steps, so
        the disk work is done in a disk thread (with whatever else the caller reads there):
        this one and :meth:`Preload.finish` on the event loop, :meth:`Preload.read` in
        between. Files already in memory and trusted are left out."""
        wanted = []
        for path, name in files:
            cached = self._entries.get(path)
            if cached is None or not cached.trusted:
                wanted.append((path, name, cached))
        trusted = bool(wanted) and self._watch(wanted[0][0])
        return Preload(self, wanted, trusted)

    def stamp(self, folder: str) -> Hashable | None:
        """A value that stays equal while reads of ``folder``'s files return the same objects;
        ``None`` when that cannot be promised (no watcher, or a file there needs a disk check
        on each read)."""
        if self._watcher is None or self._unsettled.get(folder):
            return None
        return self._epoch, self._versions.get(folder, 0)

    def wrote(self, path: str, filename: str, text: str, stat: os.stat_result) -> None:
        """This process just wrote ``text`` to ``path``: what the next read would find
        (checked by mtime and size once the watcher reports the write)."""
        self._entries[path] = _Cached(
            stat.st_mtime_ns, stat.st_size, FileText(filename, text), written=True
        )
        self._changed_entry(path, settled=False)

    def forget(self, path: str) -> None:
        self._entries.pop(path, None)
        self._changed_entry(path, settled=True)

    def clear(self) -> None:
        self._entries.clear()
        self._unsettled.clear()
        self._epoch += 1

    def _changed_entry(self, path: str, *, settled: bool) -> None:
        """The entry of ``path`` was stored, replaced, dropped or reported changed; whether a
        read of it may now come from memory unchecked (or, with no entry, loads it)."""
        folder = path[: path.rindex(os.sep)]
        self._versions[folder] = self._versions.get(folder, 0) + 1
        if settled:
            unsettled = self._unsettled.get(folder)
            if unsettled is not None:
                unsettled.discard(path)
        else:
            self._unsettled.setdefault(folder, set()).add(path)

    def _watch(self, path: str) -> bool:
        """Watch the folder of ``path``; whether reads of it may skip the disk check."""
        return self._watcher is not None and self._watcher.watch(path[: path.rindex(os.sep)])

    def _remember(self, path: str, filename: str, loaded: Outcome, trusted: bool) -> FileText:
        """Cache what :func:`read_files` found and return the file's text."""
        self._changed_entry(path, settled=trusted and not isinstance(loaded, OSError))
        if loaded is None:
            missing = self._missing.get(filename)
            if missing is None:
                missing = self._missing[filename] = FileText(filename, "")
            if trusted:
                self._entries[path] = _Cached(-1, -1, missing, trusted)
            else:
                self._entries.pop(path, None)
            return missing
        if isinstance(loaded, OSError):
            return FileText(filename, "", f"cannot read {filename}: {loaded.strerror}")
        if loaded is UNCHANGED:
            cached = self._entries[path]
            cached.trusted = trusted
            return cached.file
        if isinstance(loaded, Refused):
            return self._refused(path, filename, loaded, trusted)
        assert isinstance(loaded, Read)
        result = _decoded(filename, loaded)
        self._entries[path] = _Cached(*loaded.signature, result, trusted)
        return result

    def _refused(self, path: str, filename: str, refused: Refused, trusted: bool) -> FileText:
        """Keep a refusal like a text (so it is logged once, not at every read)."""
        previous = self._entries.get(path)
        if previous is not None and previous.file.problem == refused.problem:
            result = previous.file
        else:
            # the name and the reason only: the file's content is someone else's
            log.warning("persona.file_refused", file=filename, path=path, problem=refused.problem)
            result = FileText(filename, "", refused.problem)
        self._entries[path] = _Cached(*refused.signature, result, trusted)
        return result

    # -- watching ---------------------------------------------------------------------------

    def watch(self) -> bool:
        """Let the running event loop report changes, so reads need not check the disk;
        False where inotify is not available."""
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

    def unwatch(self) -> None:
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
        """Check every trusted entry on disk (in a disk thread) and forget those that changed
        without a report; how many did."""
        entries = [(path, cached) for path, cached in self._entries.items() if cached.trusted]
        if not entries:
            return 0
        found = await run_blocking(lambda: [signature(path) for path, _cached in entries])
        changed = 0
        for (path, cached), now in zip(entries, found, strict=True):
            if self._entries.get(path) is not cached or not cached.trusted:
                continue  # read, written or reported meanwhile
            if now != (cached.mtime_ns, cached.size):
                del self._entries[path]
                self._changed_entry(path, settled=True)
                changed += 1
        if changed:
            log.info("persona.changed_unreported", files=changed)
        return changed

    def _changed(self, directory: str | None, name: str | None) -> None:
        """The watcher reports a change: a file changed by someone else is read again; one
        this process wrote is only checked (its own write is most likely what was reported)."""
        if name is not None and directory is not None:
            paths = [os.path.join(directory, name)]
        else:
            prefix = "" if directory is None else directory + os.sep
            paths = [path for path in self._entries if path.startswith(prefix)]
        self._changes += 1
        for path in paths:
            cached = self._entries.get(path)
            if cached is None:
                continue
            if cached.written:
                cached.trusted = False
            else:
                del self._entries[path]
            self._changed_entry(path, settled=not cached.written)


class Preload:
    """Files being read into a :class:`FileCache` (see :meth:`FileCache.start_preload`)."""

    def __init__(
        self, cache: FileCache, wanted: list[tuple[str, str, _Cached | None]], trusted: bool
    ) -> None:
        self._cache = cache
        self._wanted = wanted  # (path, filename, the entry held when it started)
        self._trusted = trusted
        self._changes = cache._changes
        self._loaded: list[Outcome] = []

    def read(self) -> None:
        """Read the files (blocking: in a disk thread)."""
        self._loaded = read_files(
            self._cache._root,
            [self._cache._wanted(path, name, cached) for path, name, cached in self._wanted],
        )

    def finish(self) -> list[FileText]:
        """Keep what :meth:`read` found; the texts of the files read."""
        cache = self._cache
        # a change reported while reading: check each file on use
        trusted = self._trusted and cache._changes == self._changes
        texts = []
        for (path, name, cached), outcome in zip(self._wanted, self._loaded, strict=True):
            if cache._entries.get(path) is not cached:  # read or written meanwhile: newer
                texts.append(cache.read(path, name))
            else:
                texts.append(cache._remember(path, name, outcome, trusted))
        return texts


def _whole(_filename: str) -> None:
    return None


def _decoded(filename: str, read: Read) -> FileText:
    """The text of what was read; a cut may end inside a character, which is dropped."""
    try:
        if read.cut:
            return FileText(filename, codecs.getincrementaldecoder("utf-8")().decode(read.data))
        return FileText(filename, read.data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return FileText(
            filename, "", f"{filename} is not valid UTF-8 (byte {exc.start}); it was skipped"
        )
