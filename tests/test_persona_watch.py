"""Persona files edited by hand are seen without the store asking the disk on every read."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.persona import file_cache
from bot.persona.store import PersonaStore
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
    """The safety net for changes no event reports: here SOUL.md is a symlink to a file in
    another folder, edited there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "soul.md"
    target.write_text("the original soul")
    path = store.file_path(USER, PERSONA, "SOUL.md")
    path.unlink()
    path.symlink_to(target)
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
    path.symlink_to(target)
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
