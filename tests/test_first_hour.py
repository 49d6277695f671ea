"""A new user's first hour, as a script: ``personad init`` (no questions), ``check-config
--probe``, ``run``, a message through a platform, the answer, ``/healthz``, and the files
and their modes. Telegram and the model are the wire fakes; HOME is a fresh folder, so
every command finds the config ``init`` wrote on its own."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.fakes.lifecycle import quiet_port
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.telegram_api import FakeTelegram

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]

REPO = Path(__file__).resolve().parent.parent
SCOTT = 4242


class Shell:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
        self.env.update(HOME=str(home), PYTHONPATH=str(REPO), PERSONAD__MEMORY__EMBEDDINGS="off")
        self.env.pop("XDG_CONFIG_HOME", None)
        self.env.pop("XDG_DATA_HOME", None)

    async def start(self, *args: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.daemon.cli", *args,
            cwd=self.home, env=self.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip

    async def __call__(self, *args: str) -> tuple[int, str, str]:
        process = await self.start(*args)
        out, err = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()


_OURS = ("PERSONAD", "ANTHROPIC_", "TELEGRAM_", "DISCORD_", "MATRIX_", "NCTALK_")


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


async def test_a_new_user_goes_from_init_to_an_answer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shell = Shell(home)
    port = quiet_port()
    async with FakeTelegram() as telegram, FakeOpenAI() as model:
        code, out, err = await shell(
            "init", "--yes", "--user", "scott", "--platform", "telegram",
            "--telegram-token", telegram.token, "--identity", f"telegram:{SCOTT}",
            "--backend", "local", "--local-url", f"{model.base_url}/v1", "--model", "llama3.1",
            "--set", f"adapters.telegram.base_url={telegram.base_url}",
            "--set", "adapters.telegram.poll_timeout=1", "--set", f"http.port={port}",
        )  # fmt: skip
        assert code == 0, err
        assert "config OK" in out and "created persona scott/inara" in out

        code, out, err = await shell("check-config", "--probe")
        assert code == 0, err
        assert "probe: telegram: ok: getMe is @persona_bot" in out
        assert "probe: llm.local: ok" in out and "'llama3.1' listed" in out

        daemon = await shell.start("run")
        try:
            code, out, err = await shell("health", "--wait", "60")
            assert code == 0, out + err
            assert "healthy (telegram, web)" in out
            telegram.push_message(SCOTT, "hello, are you there?")
            for _ in range(600):
                texts = [m["text"] for m in telegram.messages.values() if m["chat"]["id"] == SCOTT]
                if any("echo: hello, are you there?" in text for text in texts):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"no answer reached Telegram: {telegram.sent}")
            url = f"http://127.0.0.1:{port}/healthz"
            body = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(url).read()))
            assert body["status"] == "ok" and body["adapters"]["telegram"]["state"] == "ok"
        finally:
            daemon.send_signal(signal.SIGTERM)
            _out, daemon_err = await asyncio.wait_for(daemon.communicate(), timeout=120)
        assert daemon.returncode == 0, daemon_err.decode()[-2000:]
        assert telegram.token not in daemon_err.decode()

    config_dir = home / ".config" / "personad"
    data = home / ".local" / "share" / "personad"
    assert _mode(config_dir / "personad.toml") == 0o600
    assert _mode(config_dir / ".env") == 0o600
    assert telegram.token in (config_dir / ".env").read_text()
    assert telegram.token not in (config_dir / "personad.toml").read_text()
    persona = data / "scott" / "persona" / "inara"
    [day] = list((persona / "sessions").glob("*.md"))
    assert "hello, are you there?" in day.read_text()
    for path in [data, *data.rglob("*")]:
        if path.is_symlink():
            continue
        assert _mode(path) == (0o700 if path.is_dir() else 0o600), path


async def test_the_command_persona_new_prints_runs_as_printed(tmp_path: Path) -> None:
    shell = Shell(tmp_path)
    shell.env["PATH"] = "/usr/bin:/bin"  # no personad on PATH, as after `make chat`
    shell.env["PERSONAD__LLM__ROLES__CHAT__BACKEND"] = "local"  # never asked: the chat ends at EOF
    code, out, err = await shell("persona", "new", "scott", "inara")
    assert code == 0, err
    [line] = [line for line in out.splitlines() if line.startswith("talk to it with: ")]
    printed = line.removeprefix("talk to it with: ")
    assert not printed.startswith("personad ")  # not a name this shell would find
    process = await asyncio.create_subprocess_shell(
        printed, cwd=tmp_path, env=shell.env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _out, err_bytes = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err_bytes.decode()  # the chat opened, and ended at EOF


async def test_init_from_a_pipe_says_in_one_line_which_flags_it_needs(tmp_path: Path) -> None:
    shell = Shell(tmp_path)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.daemon.cli", "init",
        cwd=tmp_path, env=shell.env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(process.communicate(b"\n\n\n"), timeout=120)
    assert process.returncode == 2
    [line] = err.decode().splitlines()
    assert "no terminal" in line and "--backend local --local-url" in line
    assert "--anthropic-key" in line and "--yes" in line
    assert not (tmp_path / ".config" / "personad" / "personad.toml").exists()  # nothing written

    code, _out_text, err_text = await shell("init", "--yes")  # the defaults want a key it lacks
    assert code == 2
    [line] = err_text.splitlines()
    assert "--backend anthropic needs --anthropic-key" in line
    assert not (tmp_path / ".config" / "personad" / "personad.toml").exists()


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (("--timezone", "Mars/Olympus"), "users.scott.timezone: unknown time zone"),
        (("--identity", "telegram:@scott"), "users.scott.identities: 'telegram:@scott'"),
        (("--set", "daemon.log_levle=debug"), "did you mean 'log_level'?"),
        (("--template", "nope"), "no persona template named 'nope'"),
    ],
)
async def test_init_writes_nothing_when_its_flags_make_a_config_that_cannot_work(
    tmp_path: Path, flags: tuple[str, ...], named: str
) -> None:
    """Such a config was written, then refused by the check at the end, and kept by the next
    ``init`` (which keeps an existing config): the corrected flag changed nothing."""
    shell = Shell(tmp_path)
    code, _out, err = await shell(
        "init", "--yes", "--user", "scott", "--backend", "local", "--data-dir",
        str(tmp_path / "data"), *flags,
    )  # fmt: skip
    assert code == 2
    [line] = err.splitlines()
    assert named in line and "nothing was written" in line
    assert not (tmp_path / ".config" / "personad").exists()
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("own_config", [False, True])
async def test_the_commands_init_prints_run_as_printed(tmp_path: Path, own_config: bool) -> None:
    shell = Shell(tmp_path)
    shell.env["PATH"] = "/usr/bin:/bin"  # no personad on PATH
    where = ["--config", str(tmp_path / "etc" / "p.toml")] if own_config else []
    async with FakeOpenAI(list_models=False) as model:
        code, out, err = await shell(
            "init", *where, "--user", "scott", "--backend", "local",
            "--local-url", f"{model.base_url}/v1", "--model", "qwen", "--probe",
            "--set", "http.enabled=false",
        )  # fmt: skip
        assert code == 0, err
        assert "probe: llm.local: ok" in out
        [chat] = [ln for ln in out.splitlines() if ln.startswith("next: ")]
        printed = chat.removeprefix("next: ")
        assert (" --config " in printed) is own_config
        process = await asyncio.create_subprocess_shell(
            printed, cwd=tmp_path, env=shell.env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        answer, err_bytes = await asyncio.wait_for(process.communicate(b"hello\n"), timeout=120)
    assert process.returncode == 0, err_bytes.decode()
    assert "echo: hello" in answer.decode()
