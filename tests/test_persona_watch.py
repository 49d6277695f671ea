"""Persona files edited by hand are seen without the store asking the disk on every read."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from bot.persona import file_cache
from bot.persona.context import StableCache, build_system_prompt, prompt_files
from bot.persona.store import FileText, PersonaStore
from bot.persona.template import create_persona
from bot.persona.watch import inotify_available

pytestmark = pytest.mark.skipif(not inotify_available(), reason="inotify is Linux only")

USER, PERSONA = "scott", "inara"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[PersonaStore]:
    store = PersonaStore(tmp_path)
    create_persona(store, USER, PERSONA)
    assert store.watch_files()
    yield store
    store.unwatch_files()


async def eventually(check: Callable[[], bool]) -> None:
    """Let the event loop run until ``check()`` holds (the watcher's events are read by the
    loop); fail after a generous while."""
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the change was never seen")


def soul(store: PersonaStore) -> str:
    return store.read(USER, PERSONA, "SOUL.md").text


async def test_an_edit_by_hand_is_seen(store: PersonaStore) -> None:
    path = store.file_path(USER, PERSONA, "SOUL.md")
    original = soul(store)
    # same length, written in place: the kind of edit mtime and size can miss
    path.write_text("X" + original[1:])
    await eventually(lambda: soul(store).startswith("X"))


async def test_reads_trust_the_cache_until_a_change_is_reported(store: PersonaStore) -> None:
    path = store.file_path(USER, PERSONA, "SOUL.md")
    original = soul(store)
    path.unlink()
    # the loop has not run since: no event handled, and the read did not go to the disk
    assert soul(store) == original
    await eventually(lambda: soul(store) == "")


async def test_a_file_created_later_is_seen(store: PersonaStore) -> None:
    assert store.read(USER, PERSONA, "SCRATCH.md").text == ""
    store.file_path(USER, PERSONA, "SCRATCH.md").write_text("remember the milk")
    await eventually(lambda: store.read(USER, PERSONA, "SCRATCH.md").text == "remember the milk")


async def test_a_folder_replaced_by_hand_is_watched_again(store: PersonaStore) -> None:
    folder = store.directory(USER, PERSONA)
    soul(store)
    shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "SOUL.md").write_text("a new soul")
    await eventually(lambda: soul(store) == "a new soul")
    (folder / "SOUL.md").write_text("edited again")
    await eventually(lambda: soul(store) == "edited again")


async def test_writes_through_the_store_are_read_back_at_once(store: PersonaStore) -> None:
    await store.write(USER, PERSONA, "SCRATCH.md", "one")
    assert store.read(USER, PERSONA, "SCRATCH.md").text == "one"
    await store.write(USER, PERSONA, "SCRATCH.md", "two")
    assert store.read(USER, PERSONA, "SCRATCH.md").text == "two"


async def test_a_change_inotify_cannot_see_is_found_by_the_disk_check(
    store: PersonaStore, tmp_path: Path
) -> None:
    """The safety net for changes no event reports: here SOUL.md is a hard link to a file in
    another folder, edited there (inotify reports a change to the folder it was made in)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "soul.md"
    target.write_text("the original soul")
    path = store.file_path(USER, PERSONA, "SOUL.md")
    path.unlink()
    path.hardlink_to(target)
    await eventually(lambda: soul(store) == "the original soul")
    target.write_text("edited far away")
    for _ in range(20):  # no event will come for this one
        await asyncio.sleep(0.01)
    assert soul(store) == "the original soul"
    assert await store.recheck() == 1
    assert soul(store) == "edited far away"
    assert await store.recheck() == 0


async def test_the_disk_check_runs_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_cache, "RECHECK_SECONDS", 0.02)
    store = PersonaStore(tmp_path)
    create_persona(store, USER, PERSONA)
    target = tmp_path / "soul.md"
    target.write_text("before")
    path = store.file_path(USER, PERSONA, "SOUL.md")
    path.unlink()
    path.hardlink_to(target)
    assert store.watch_files()
    try:
        assert soul(store) == "before"
        target.write_text("after, unreported")
        await eventually(lambda: soul(store) == "after, unreported")
    finally:
        store.unwatch_files()


async def test_after_unwatching_every_read_checks_the_disk(store: PersonaStore) -> None:
    soul(store)
    store.unwatch_files()
    store.file_path(USER, PERSONA, "SOUL.md").write_text("checked on read")
    assert soul(store) == "checked on read"


# -- the prompt's persona text, reused while the folder's stamp holds -----------------------


def _limit(name: str) -> int:
    return 100_000


class Prompts:
    """Builds the persona text of a tier 4 prompt as a session does, counting file reads."""

    def __init__(self, store: PersonaStore) -> None:
        self.store = store
        self.cache = StableCache()
        self.reads = 0

    def _read(self, name: str) -> FileText:
        self.reads += 1
        return self.store.read(USER, PERSONA, name)

    def text(self) -> str:
        return build_system_prompt(
            read=self._read,
            limit=_limit,
            tier=4,
            now=datetime(2026, 5, 9, 14, 34, tzinfo=UTC),
            otr=False,
            cache=self.cache,
            stamp=partial(self.store.stamp, USER, PERSONA),
        ).stable


async def test_unchanged_persona_text_is_reused_without_reading_the_files(
    store: PersonaStore,
) -> None:
    prompts = Prompts(store)
    first = prompts.text()
    reads = prompts.reads
    assert reads == len(prompt_files(4))
    assert prompts.text() == first
    assert prompts.reads == reads


async def _edit_by_hand(store: PersonaStore, tmp_path: Path) -> None:
    path = store.file_path(USER, PERSONA, "SOUL.md")
    original = path.read_text()
    path.write_text("MARKER" + original[6:])  # same length, in place


async def _write_through_the_store(store: PersonaStore, tmp_path: Path) -> None:
    await store.write(USER, PERSONA, "SCRATCH.md", "MARKER in the scratchpad")


async def _create_a_missing_file(store: PersonaStore, tmp_path: Path) -> None:
    store.file_path(USER, PERSONA, "MEMORY_LONG.md").unlink(missing_ok=True)
    await asyncio.sleep(0.05)
    store.file_path(USER, PERSONA, "MEMORY_LONG.md").write_text("MARKER, long remembered")


async def _replace_the_folder(store: PersonaStore, tmp_path: Path) -> None:
    folder = store.directory(USER, PERSONA)
    shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "IDENTITY.md").write_text("MARKER: a new identity")


async def _change_a_hard_linked_file_unreported(store: PersonaStore, tmp_path: Path) -> None:
    target = tmp_path / "identity.md"
    target.write_text("the identity before")
    path = store.file_path(USER, PERSONA, "IDENTITY.md")
    path.unlink()
    path.hardlink_to(target)
    await asyncio.sleep(0.05)
    target.write_text("MARKER: edited where no event reports it")
    await store.recheck()


@pytest.mark.parametrize(
    "change",
    [
        _edit_by_hand,
        _write_through_the_store,
        _create_a_missing_file,
        _replace_the_folder,
        _change_a_hard_linked_file_unreported,
    ],
)
async def test_persona_text_follows_every_kind_of_change(
    store: PersonaStore,
    tmp_path: Path,
    change: Callable[[PersonaStore, Path], Awaitable[None]],
) -> None:
    prompts = Prompts(store)
    assert "MARKER" not in prompts.text()
    await change(store, tmp_path)
    await eventually(lambda: "MARKER" in prompts.text())
    reads = prompts.reads
    assert "MARKER" in prompts.text()
    assert prompts.reads == reads  # settled again: reused


async def test_an_unreadable_file_is_tried_again_on_every_prompt(store: PersonaStore) -> None:
    prompts = Prompts(store)
    path = store.file_path(USER, PERSONA, "SOUL.md")
    path.unlink()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(os.fspath(path))  # opening a socket fails with an OSError, even for root
    listener.close()
    await eventually(lambda: store.read(USER, PERSONA, "SOUL.md").problem is not None)
    assert store.stamp(USER, PERSONA) is None
    prompts.text()
    reads = prompts.reads
    prompts.text()
    assert prompts.reads == reads + len(prompt_files(4))
    path.unlink()
    path.write_text("MARKER: readable again")
    await eventually(lambda: "MARKER" in prompts.text())
    assert store.stamp(USER, PERSONA) is not None


async def test_a_refused_link_is_settled_and_its_replacement_is_seen(
    store: PersonaStore, tmp_path: Path
) -> None:
    prompts = Prompts(store)
    prompts.text()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("MARKER: someone else's file")
    path = store.file_path(USER, PERSONA, "IDENTITY.md")
    path.unlink()
    with capture_logs() as logs:
        path.symlink_to(elsewhere)
        await eventually(lambda: store.read(USER, PERSONA, "IDENTITY.md").problem is not None)
        assert "MARKER" not in prompts.text()
        reads = prompts.reads
        assert "MARKER" not in prompts.text()
        assert prompts.reads == reads  # the refusal holds until a change: nothing re-read
        assert await store.recheck() == 0
    assert [e["event"] for e in logs if e["event"] == "persona.file_refused"] == [
        "persona.file_refused"
    ]
    path.unlink()
    path.write_text("MARKER: the persona's own file again")
    await eventually(lambda: "MARKER" in prompts.text())


async def test_without_a_watcher_every_prompt_reads_the_files(store: PersonaStore) -> None:
    store.unwatch_files()
    prompts = Prompts(store)
    prompts.text()
    assert store.stamp(USER, PERSONA) is None
    store.file_path(USER, PERSONA, "IDENTITY.md").write_text("MARKER, unwatched")
    assert "MARKER" in prompts.text()


async def test_load_reads_a_file_off_the_loop_and_follows_its_changes(
    store: PersonaStore,
) -> None:
    name = "IDENTITY_CHANGELOG.md"
    path = store.file_path(USER, PERSONA, name)
    path.write_text("one")
    first = await store.load(USER, PERSONA, name)
    assert first.text == "one"
    assert await store.load(USER, PERSONA, name) is first  # in memory: no read
    with path.open("a") as file:
        file.write(" two")
    for _ in range(500):
        if (await store.load(USER, PERSONA, name)).text == "one two":
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the append was never seen")
    assert store.read(USER, PERSONA, name).text == "one two"
    path.unlink()
    await eventually(lambda: store.read(USER, PERSONA, name).text == "")
    assert (await store.load(USER, PERSONA, name)).text == ""
