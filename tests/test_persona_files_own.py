"""Persona files are the persona's own: no link is followed, only regular files are read, and
only as much of a file as its prompt limit can use."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import threading
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from structlog.testing import capture_logs

from bot.memory.distill.distiller import Distiller
from bot.persona.atomic import append_durably
from bot.persona.context import render_file
from bot.persona.nofollow import LinkRefused
from bot.persona.safe_read import WHOLE_FILE_LIMIT
from bot.persona.sessionlog.log import SessionLog
from bot.persona.store import PersonaStore
from bot.persona.template import create_persona
from bot.setup.config import DEFAULT_LIMITS
from tests.harness import make_config, make_persona
from tests.test_session_memory import Chat, _memory_rows, chat  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parent.parent
USER, PERSONA = "scott", "inara"
SECRET = "PERSONAD_API_TOKEN=hunter2-the-daemons-own-token"
PASSWD = "root:x:0:0:root:/root:/bin/bash"


@pytest.fixture
def store(tmp_path: Path) -> PersonaStore:
    store = PersonaStore(tmp_path / "data")
    create_persona(store, USER, PERSONA)
    return store


def outside(tmp_path: Path, name: str, text: str) -> Path:
    """A file outside the data folder, as /proc/self/environ or /etc/passwd would be."""
    path = tmp_path / name
    path.write_text(text)
    return path


def plant_link(store: PersonaStore, filename: str, target: Path | str) -> Path:
    path = store.file_path(USER, PERSONA, filename)
    path.unlink()
    path.symlink_to(target)
    return path


def test_a_linked_file_is_refused_by_name_never_by_content(
    store: PersonaStore, tmp_path: Path
) -> None:
    plant_link(store, "USER.md", outside(tmp_path, "environ", SECRET))
    with capture_logs() as logs:
        file = store.read(USER, PERSONA, "USER.md")
        again = store.read(USER, PERSONA, "USER.md")
    assert file.text == "" and again.text == ""
    assert file.problem is not None and "symbolic link" in file.problem
    refused = [entry for entry in logs if entry["event"] == "persona.file_refused"]
    assert len(refused) == 1  # once, not at every read
    assert refused[0]["file"] == "USER.md" and refused[0]["log_level"] == "warning"
    assert SECRET not in repr(logs)


@pytest.mark.parametrize("level", ["persona", "user", "user_persona"])
def test_a_linked_folder_anywhere_below_the_data_folder_is_refused(
    tmp_path: Path, level: str
) -> None:
    data = tmp_path / "data"
    store = PersonaStore(data)
    elsewhere = tmp_path / "elsewhere"
    real = create_persona(PersonaStore(elsewhere), USER, PERSONA)
    (real / "USER.md").write_text(SECRET)
    linked = {
        "persona": (data / USER / "persona" / PERSONA, real),
        "user_persona": (data / USER / "persona", real.parent),
        "user": (data / USER, real.parent.parent),
    }
    link, target = linked[level]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    file = store.read(USER, PERSONA, "USER.md")
    assert file.text == "" and file.problem is not None and "folder" in file.problem
    with pytest.raises(LinkRefused):
        store_write(store, "SCRATCH.md", "written through the link")
    assert "written through the link" not in (real / "SCRATCH.md").read_text()


def store_write(store: PersonaStore, filename: str, text: str) -> None:
    asyncio.run(store.write(USER, PERSONA, filename, text))


def test_the_data_folder_itself_may_be_a_link(tmp_path: Path) -> None:
    real = tmp_path / "disk"
    create_persona(PersonaStore(real), USER, PERSONA)
    (tmp_path / "data").symlink_to(real)
    store = PersonaStore(tmp_path / "data")
    (real / USER / "persona" / PERSONA / "USER.md").write_text("Scott likes tea.")
    assert store.read(USER, PERSONA, "USER.md").text == "Scott likes tea."
    store_write(store, "SCRATCH.md", "a note")
    assert (real / USER / "persona" / PERSONA / "SCRATCH.md").read_text() == "a note"


def test_devices_and_fifos_are_refused_without_blocking(store: PersonaStore) -> None:
    plant_link(store, "USER.md", "/dev/zero")
    assert store.read(USER, PERSONA, "USER.md").problem is not None
    fifo = store.file_path(USER, PERSONA, "SOUL.md")
    fifo.unlink()
    os.mkfifo(fifo)
    # nobody writes to it: a blocking open would never return
    result: list[str | None] = []
    reader = threading.Thread(
        target=lambda: result.append(store.read(USER, PERSONA, "SOUL.md").problem), daemon=True
    )
    reader.start()
    reader.join(timeout=60)
    assert result and result[0] is not None and "not a regular file" in result[0]
    device = store.file_path(USER, PERSONA, "AGENTS.md")
    device.unlink()
    try:
        os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError:
        return  # only root may make device nodes
    file = store.read(USER, PERSONA, "AGENTS.md")
    assert file.text == "" and file.problem is not None and "not a regular file" in file.problem


def test_a_huge_prompt_file_is_read_only_as_far_as_its_limit(store: PersonaStore) -> None:
    limit = DEFAULT_LIMITS["AGENTS.md"]
    path = store.file_path(USER, PERSONA, "AGENTS.md")
    with path.open("wb") as handle:
        handle.write(b"Scott likes tea. " * 10)
        handle.truncate(10 * 1024**3)  # 10 GB, sparse: reading it whole would take minutes
    file = store.read(USER, PERSONA, "AGENTS.md")
    assert file.problem is None and file.text.startswith("Scott likes tea.")
    assert len(file.text.encode("utf-8")) <= 4 * limit + 4
    section = render_file(file, limit)
    assert "AGENTS.md cut here" in section


def test_a_cut_never_splits_a_character(store: PersonaStore) -> None:
    path = store.file_path(USER, PERSONA, "SOUL.md")
    path.write_text("ação " * 20_000)  # 2- and 3-byte characters, 120 kB
    file = store.read(USER, PERSONA, "SOUL.md")
    assert file.problem is None and file.text.startswith("ação ação")
    assert "cut here" in render_file(file, DEFAULT_LIMITS["SOUL.md"])


def test_a_file_the_daemon_rewrites_is_read_whole_or_not_at_all(store: PersonaStore) -> None:
    path = store.file_path(USER, PERSONA, "TASKS.json")
    tasks = "[" + ",".join(f'{{"id": {i}, "title": "task number {i}"}}' for i in range(3000)) + "]"
    path.write_text(tasks)  # ~100 kB, far past the prompt's 4,000 characters
    assert store.read(USER, PERSONA, "TASKS.json").text == tasks
    with path.open("r+b") as handle:
        handle.truncate(WHOLE_FILE_LIMIT + 1)
    file = store.read(USER, PERSONA, "TASKS.json")
    assert file.text == "" and file.problem is not None and "larger than" in file.problem


def test_writes_replace_a_planted_link_instead_of_writing_through_it(
    store: PersonaStore, tmp_path: Path
) -> None:
    victim = outside(tmp_path, "bashrc", "the user's own file\n")
    link = plant_link(store, "SCRATCH.md", victim)
    store_write(store, "SCRATCH.md", "a scratch note")
    assert victim.read_text() == "the user's own file\n"
    assert not link.is_symlink() and link.read_text() == "a scratch note"


def test_appends_refuse_a_planted_link(store: PersonaStore, tmp_path: Path) -> None:
    victim = outside(tmp_path, "profile", "the user's own file\n")
    log = store.directory(USER, PERSONA) / "sessions" / "2026-05-09.md"
    log.symlink_to(victim)
    with pytest.raises(LinkRefused):
        append_durably(log, "### 10:00:00 · user · scott · console\n\nhello\n")
    assert victim.read_text() == "the user's own file\n"


async def test_a_linked_user_file_reaches_neither_the_prompt_nor_the_memory(
    chat: Chat,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path / USER / "persona" / PERSONA  # the chat's data folder is tmp_path
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    for name, text in (("USER.md", SECRET), ("MEMORY.md", PASSWD)):
        (folder / name).unlink()
        (folder / name).symlink_to(outside(elsewhere, name.lower(), text))
    with capture_logs() as logs:
        await chat.say("/tier 2")
        await chat.say("What do you know about me?")
    system = chat.llm.calls[-1].system
    assert "--- IDENTITY.md ---" in system.stable  # the prompt was built from the folder
    assert SECRET not in system.stable + system.dynamic
    assert "root:x:0:0" not in system.stable + system.dynamic
    rows = repr(_memory_rows(tmp_path))
    assert "root:x:0:0" not in rows and "hunter2" not in rows
    refused = {entry["file"] for entry in logs if entry["event"] == "persona.file_refused"}
    assert refused == {"USER.md", "MEMORY.md"}
    assert "hunter2" not in repr(logs) and "root:x:0:0" not in repr(logs)


async def test_a_linked_session_log_is_neither_restored_nor_distilled(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = make_persona(data, USER)
    day = folder / "sessions" / "2026-05-09.md"
    day.symlink_to(
        outside(tmp_path, "passwd", f"### 10:00:00 · user · scott · console\n\n{PASSWD}\n")
    )
    log = SessionLog(folder, PERSONA)
    assert log.days() == []
    with capture_logs() as logs:
        assert log.read_day(date(2026, 5, 9), ZoneInfo("UTC")) == []
    assert [entry["event"] for entry in logs] == ["sessionlog.link_refused"]
    store = PersonaStore(data)
    await Distiller(make_config(data), store, {}).run(USER, PERSONA, "short")
    assert "root:x:0:0" not in (folder / "MEMORY_SHORT.md").read_text()


async def test_a_linked_sessions_folder_is_neither_written_nor_read(tmp_path: Path) -> None:
    folder = make_persona(tmp_path / "data", USER)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "2026-05-09.md").write_text(f"### 10:00:00 · user · scott · console\n\n{PASSWD}\n")
    (folder / "sessions").rmdir()
    (folder / "sessions").symlink_to(elsewhere)
    log = SessionLog(folder, PERSONA)
    with pytest.raises(LinkRefused):
        await log.mark_new_conversation(
            datetime(2026, 5, 9, 11, tzinfo=UTC), ZoneInfo("UTC"), "console:c"
        )
    assert sorted(p.name for p in elsewhere.iterdir()) == ["2026-05-09.md"]
    assert "new conversation" not in (elsewhere / "2026-05-09.md").read_text()
    with capture_logs():
        assert log.read_day(date(2026, 5, 9), ZoneInfo("UTC")) == []


def test_persona_new_refuses_a_linked_user_folder_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (data / USER).symlink_to(elsewhere)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    result = subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", "persona", "new", USER, PERSONA],
        capture_output=True,
        text=True,
        env={**env, "PERSONAD_DATA_DIR": str(data), "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 2
    assert "symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert list(elsewhere.iterdir()) == []
