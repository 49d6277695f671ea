"""Everything under the data folder is the user's alone (0700 folders, 0600 files) whatever
the umask, an existing install is tightened at start, and a config file holding secrets that
others can read is warned about."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from bot.daemon.daemon import Daemon
from bot.delivery.state import StateStore
from bot.memory.sqlite.store import FtsStore
from bot.persona.atomic import append_durably, atomic_write_text
from bot.setup.config import Config
from tests.fakes.telegram_api import FakeTelegram
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.test_run_daemon import _free_port
from tests.test_telegram import until

REPO = Path(__file__).resolve().parent.parent
SCOTT = 4242

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]


@pytest.fixture
def shell_umask() -> Iterator[None]:
    """The umask a daemon started from a shell usually has."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def exposed(root: Path) -> list[str]:
    """Every folder and file under ``root`` the group or others have a bit on."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            found.append(f"{path.relative_to(root)} {stat.filemode(mode)}")
    return found


async def test_a_running_daemon_keeps_every_file_private(tmp_path: Path, shell_umask: None) -> None:
    data = tmp_path / "data"
    make_persona(data, "scott")
    async with FakeTelegram() as fake:
        section = {
            "enabled": True,
            "token": fake.token,
            "base_url": fake.base_url,
            "poll_timeout": 1,
        }
        users = {"scott": {"identities": [f"telegram:{SCOTT}"], "timezone": "Europe/Lisbon"}}
        config = make_config(
            data, users=users, adapters={"telegram": section}, memory_backend="sqlite-fts5"
        )
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, http=False, jobs=False) as daemon:
            fake.push_message(SCOTT, "I keep my bike in the shed.")
            await until(lambda: len(fake.sent) >= 1, "the answer")
            folder = daemon.store.directory("scott", "inara")
            # the turn's memory is stored after the answer went out
            await until(lambda: (folder / "memory.db-wal").exists(), "the memory write")
            await until(lambda: any((folder / "sessions").glob("*.md")), "the session log")
            # while it runs: the databases have their -wal and -shm beside them
            present = {p.name for p in data.rglob("*")}
            for name in ("personad.db-wal", "personad.db-shm", "memory.db", "memory.db-wal"):
                assert name in present, name
            assert (data / "adapters" / "telegram").is_dir()
            assert exposed(data) == []


async def test_an_existing_install_is_tightened_at_start_with_one_line(
    tmp_path: Path, shell_umask: None
) -> None:
    data = tmp_path / "data"
    folder = make_persona(data, "scott")
    (data / "adapters" / "matrix").mkdir(parents=True)
    (data / "adapters" / "matrix" / "nio.db").write_text("x")
    (folder / "memory.db-wal").write_text("")
    (folder / "sessions" / "2026-05-09.md").write_text("### 10:00:00 · user · scott · x\n")
    elsewhere = tmp_path / "shared.txt"
    elsewhere.write_text("not ours to change")
    elsewhere.chmod(0o644)
    (folder / "link.md").symlink_to(elsewhere)
    loosened = 0
    for path in [data, *data.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
            loosened += 1
    config = make_config(data)
    with capture_logs() as logs:
        await _start_and_stop(config)
    tightened = [entry for entry in logs if entry["event"] == "data_dir.tightened"]
    assert len(tightened) == 1 and tightened[0]["count"] == loosened
    # the daemon opened personad.db in between: made private, so nothing is left to report
    assert exposed(data) == []
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o644  # links are not followed
    with capture_logs() as logs:
        await _start_and_stop(config)
    assert not [entry for entry in logs if entry["event"] == "data_dir.tightened"]


def personad(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        preexec_fn=lambda: os.umask(0o022),  # as from a shell
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    env.update(PYTHONPATH=str(REPO), **extra)
    return env


def test_every_command_creates_private_files(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"  # the parents are made by the command too
    result = personad(
        "persona", "new", "scott", "inara", env=clean_env(PERSONAD_DATA_DIR=str(data))
    )
    assert result.returncode == 0, result.stderr
    assert exposed(tmp_path / "new") == []
    assert (data / "scott" / "persona" / "inara" / "IDENTITY.md").is_file()


CONFIG = """\
[daemon]
data_dir = "{data}"
log_format = "json"
[http]
port = {port}
token_env = "PERSONAD_API_TOKEN"
[llm.backends.local]
kind = "openai_compat"
model = "m"
base_url = "http://127.0.0.1:9/v1"
[llm.roles.chat]
backend = "local"
[users.scott]
identities = ["telegram:1"]
"""


def write_config(tmp_path: Path, extra: str = "", mode: int = 0o644, port: int = 0) -> Path:
    path = tmp_path / "personad.toml"
    path.write_text(CONFIG.format(data=tmp_path / "data", port=port) + extra)
    path.chmod(mode)
    return path


SECRET_ADAPTER = '[adapters.matrix]\nenabled = false\naccess_token = "syt_a_real_token"\n'


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning" in line]


def test_check_config_warns_about_a_readable_config_holding_secrets(tmp_path: Path) -> None:
    config = write_config(tmp_path, SECRET_ADAPTER)
    result = personad("check-config", "--config", str(config), env=clean_env())
    assert result.returncode == 0, result.stderr  # a warning, not a refusal
    assert "config OK" in result.stdout
    [line] = warnings(result.stderr)
    assert str(config) in line and f"chmod 600 {config}" in line
    assert "syt_a_real_token" not in result.stdout + result.stderr
    config.chmod(0o600)
    result = personad("check-config", "--config", str(config), env=clean_env())
    assert warnings(result.stderr) == []


def test_check_config_is_quiet_when_the_config_only_names_variables(tmp_path: Path) -> None:
    config = write_config(tmp_path)  # token_env names a variable: no secret in the file
    result = personad("check-config", "--config", str(config), env=clean_env())
    assert result.returncode == 0 and warnings(result.stderr) == []
    env_file = tmp_path / ".env"
    env_file.write_text("PERSONAD_API_TOKEN=0123456789abcdef\n")
    env_file.chmod(0o644)
    result = personad("check-config", "--config", str(config), env=clean_env())
    [line] = warnings(result.stderr)
    assert f"chmod 600 {env_file}" in line


def test_run_warns_about_a_readable_config_holding_secrets(tmp_path: Path) -> None:
    port = _free_port()
    config = write_config(tmp_path, SECRET_ADAPTER, port=port)
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.daemon.cli", "--config", str(config), "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(PERSONAD_API_TOKEN="0123456789abcdef0123"),
        cwd=REPO,
        preexec_fn=lambda: os.umask(0o022),
    )
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    events = [json.loads(line) for line in (out + err).splitlines() if line.startswith("{")]
    assert "daemon.started" in [event.get("event") for event in events]
    [warning] = [event for event in events if event.get("event") == "config.readable_by_others"]
    assert warning["file"] == str(config) and warning["fix"] == f"chmod 600 {config}"
    assert "syt_a_real_token" not in out + err
    assert exposed(tmp_path / "data") == []


async def test_writers_create_private_files_whatever_the_umask(
    tmp_path: Path, shell_umask: None
) -> None:
    """The daemon sets a private umask, but a file must not depend on it: a library caller
    (a test, a script) keeps its own."""
    data = tmp_path / "data"
    state = StateStore(data / "state" / "personad.db")
    memory = FtsStore(data / "scott" / "persona" / "inara" / "memory.db")
    await state.open()
    await memory.open()
    try:
        await state.set_tier("scott", "inara", 3)
        atomic_write_text(data / "a" / "b" / "file.md", "text")
        append_durably(data / "c" / "log.md", "line\n")
        names = {p.name for p in data.rglob("*")}
        assert {"personad.db-wal", "personad.db-shm", "memory.db-wal", "memory.db-shm"} <= names
        assert exposed(data) == []
    finally:
        await memory.close()
        await state.close()


async def _start_and_stop(config: Config) -> None:
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, http=False, jobs=False)
    await daemon.start()
    await daemon.stop()
