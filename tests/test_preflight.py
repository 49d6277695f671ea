"""What a self-hoster meets first: ``.env`` read by every command, ``check-config`` that
runs exactly ``run``'s validation and shows every problem at once, and ``--probe`` trying
each service live (against the wire fakes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.setup.envfiles import load_env_files
from bot.setup.preflight import check
from bot.setup.probe import probe_all
from tests.fakes.anthropic_api import FakeAnthropic
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.nctalk_server import FakeTalkServer
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.telegram_api import FakeTelegram
from tests.synapse import Human, SynapseServer, synapse

__all__ = ["synapse"]  # the fixture

REPO = Path(__file__).resolve().parent.parent
SECRET_ENV = ("ANTHROPIC_", "PERSONAD", "TELEGRAM_", "DISCORD_", "MATRIX_", "NCTALK_")


def personad(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(SECRET_ENV)}
    clean.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", *args],
        capture_output=True,
        text=True,
        env=clean,
        cwd=cwd,
        timeout=60,
    )


def test_env_beside_the_config_wins_over_the_working_directory_and_loses_to_the_real_env(
    tmp_path: Path,
) -> None:
    here, there = tmp_path / "here", tmp_path / "etc"
    here.mkdir()
    there.mkdir()
    (here / ".env").write_text(f"PERSONAD_CONFIG={there / 'p.toml'}\nA=cwd\nB=cwd\nC=cwd\n")
    (there / ".env").write_text("B=beside\nC=beside\n")
    environ = {"C": "real"}
    files = load_env_files(None, environ, cwd=here)
    assert files == [here / ".env", there / ".env"]
    assert environ == {
        "PERSONAD_CONFIG": str(there / "p.toml"),
        "A": "cwd",
        "B": "beside",
        "C": "real",
    }


def test_a_blank_value_hides_no_secret(tmp_path: Path) -> None:
    # compose's env_file with the example's blank lines, or a shell that exported an empty
    # variable: the token init wrote beside the config is still found
    here, there = tmp_path / "here", tmp_path / "etc"
    here.mkdir()
    there.mkdir()
    (here / ".env").write_text("TELEGRAM_BOT_TOKEN=from-cwd\nDISCORD_BOT_TOKEN=from-cwd\n")
    (there / ".env").write_text("TELEGRAM_BOT_TOKEN=\nANTHROPIC_API_KEY=sk-ant-beside\n")
    environ = {"PERSONAD_CONFIG": str(there / "p.toml"), "ANTHROPIC_API_KEY": ""}
    load_env_files(None, environ, cwd=here)
    assert environ["ANTHROPIC_API_KEY"] == "sk-ant-beside"
    assert environ["TELEGRAM_BOT_TOKEN"] == "from-cwd"
    assert environ["DISCORD_BOT_TOKEN"] == "from-cwd"


def test_run_reads_the_env_file_beside_the_config(tmp_path: Path) -> None:
    config = tmp_path / "personad.toml"
    config.write_text(f'[daemon]\ndata_dir = "{tmp_path / "data"}"\n[http]\nenabled = false\n')
    missing = personad("--config", str(config), "check-config", cwd=tmp_path)
    assert missing.returncode == 1 and "ANTHROPIC_API_KEY is not set" in missing.stderr
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-from-the-file\n")
    (tmp_path / ".env").chmod(0o600)
    found = personad("--config", str(config), "check-config", cwd=REPO)
    assert found.returncode == 0, found.stderr
    assert "config OK" in found.stdout


BROKEN = """
[daemon]
data_dir = "{data}"
[users.scott]
timezone = "Mars/Base"
[llm.roles.chat]
backend = "anthropic"
[adapters.telegram]
enabled = true
[adapters.nctalk]
enabled = true
backend_url = "https://cloud.example"
[adapters.discord]
enabled = true
bogus = 1
"""


def test_check_config_and_run_report_the_same_problems_all_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data-is-a-file"
    data.write_text("not a folder")
    config = tmp_path / "personad.toml"
    config.write_text(BROKEN.format(data=data))
    checked = personad("check-config", "--config", str(config), cwd=tmp_path)
    ran = personad("run", "--config", str(config), cwd=tmp_path)
    assert checked.returncode == 1 and ran.returncode == 2
    for output in (checked.stderr, ran.stderr):
        assert "Traceback" not in output
        assert "users.scott.timezone" in output  # a wrong value in one section ...
        assert "adapters.telegram.token: not set" in output  # ... does not hide the rest
        assert "adapters.nctalk.secret_env (NCTALK_BOT_SECRET)" in output
        assert "adapters.discord.bogus: unknown key" in output
        assert "ANTHROPIC_API_KEY is not set" in output
        assert f"daemon.data_dir ({data}): exists and is not a folder" in output
    lines = checked.stderr.splitlines()
    problems = [ln for ln in lines if ln.startswith("config: ") and "warning" not in ln]
    assert all(line.split("config: ", 1)[1] in ran.stderr for line in problems)
    assert "6 problem(s)" in checked.stderr and "6 problem(s)" in ran.stderr


async def test_probe_tries_every_service_on_the_wire(tmp_path: Path, monkeypatch: object) -> None:
    async with (
        FakeTelegram() as telegram,
        FakeDiscord() as discord,
        FakeAnthropic(api_key="sk-right") as anthropic,
        FakeOpenAI() as local,
    ):
        async with FakeTalkServer("s" * 40) as talk:
            config = tmp_path / "personad.toml"
            config.write_text(
                f'[daemon]\ndata_dir = "{tmp_path}"\n'
                f'[llm.backends.anthropic]\nbase_url = "{anthropic.base_url}"\n'
                f'[llm.backends.local]\nkind = "openai_compat"\nmodel = "llama3.1"\n'
                f'base_url = "{local.base_url}/v1"\n'
                '[llm.roles.distill_mid]\nbackend = "local"\n'
                f'[adapters.telegram]\nenabled = true\nbase_url = "{telegram.base_url}"\n'
                f'[adapters.discord]\nenabled = true\napi_base = "{discord.api_base}"\n'
                f'[adapters.nctalk]\nenabled = true\nbackend_url = "{talk.url}"\n'
            )
            env = {
                "ANTHROPIC_API_KEY": "sk-wrong",
                "TELEGRAM_BOT_TOKEN": telegram.token,
                "DISCORD_BOT_TOKEN": discord.token,
                "NCTALK_BOT_SECRET": "s" * 40,
            }
            for name, value in env.items():
                monkeypatch.setenv(name, value)  # type: ignore[attr-defined]
            findings = check(config)
            assert findings.problems == [] and findings.config is not None
            results = {p.service: p for p in await probe_all(findings.config, os.environ)}
    assert results["telegram"].ok and "@persona_bot" in results["telegram"].found
    assert results["discord"].ok and "personad" in results["discord"].found
    assert results["nctalk"].ok and "Talk with bots" in results["nctalk"].found
    assert results["llm.local"].ok and "'llama3.1' listed" in results["llm.local"].found
    # the wrong key is named as refused, and never shown
    assert not results["llm.anthropic"].ok and "HTTP 401" in results["llm.anthropic"].found
    assert all(
        "sk-wrong" not in p.line() and telegram.token not in p.line() for p in results.values()
    )


def test_init_writes_a_checked_config_a_private_env_and_the_persona_and_can_run_again(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    args = (
        "init", "--yes", "--user", "scott", "--backend", "local",
        "--local-url", "http://127.0.0.1:9/v1", "--platform", "telegram",
        "--telegram-token", "123:first-token", "--identity", "telegram:42",
    )  # fmt: skip
    first = personad(*args, cwd=home, HOME=str(home), XDG_CONFIG_HOME="", XDG_DATA_HOME="")
    assert first.returncode == 0, first.stderr
    assert "config OK" in first.stdout
    config = home / ".config" / "personad" / "personad.toml"
    env_file = config.parent / ".env"
    persona = home / ".local" / "share" / "personad" / "scott" / "persona" / "inara"
    assert (persona / "IDENTITY.md").is_file()
    assert oct(config.stat().st_mode & 0o777) == "0o600"
    assert oct(env_file.stat().st_mode & 0o777) == "0o600"
    first_env = env_file.read_text()
    assert "TELEGRAM_BOT_TOKEN='123:first-token'" in first_env
    assert "first-token" not in config.read_text()  # secrets only in .env
    (persona / "USER.md").write_text("Scott likes tea.\n")
    again = personad(
        "init", "--yes", "--user", "scott", "--backend", "local",
        "--telegram-token", "123:second-token",
        cwd=home, HOME=str(home), XDG_CONFIG_HOME="", XDG_DATA_HOME="",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "kept the existing config" in again.stdout
    second_env = env_file.read_text()
    token_line = next(ln for ln in first_env.splitlines() if ln.startswith("PERSONAD_API"))
    assert token_line in second_env and "123:second-token" in second_env
    assert (persona / "USER.md").read_text() == "Scott likes tea.\n"


async def test_probe_logs_in_to_a_real_matrix_homeserver_and_leaves_no_device(
    synapse: SynapseServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = synapse.register()
    section = (
        f'[adapters.matrix]\nenabled = true\nhomeserver = "{synapse.url}"\n'
        f'user_id = "{bot.user_id}"\npassword_env = "PROBE_MATRIX_PASSWORD"\n'
    )
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[llm.roles.chat]\nbackend = "local"\n' + section
    )
    results = {}
    for password in (bot.password, "not-the-password"):
        monkeypatch.setenv("PROBE_MATRIX_PASSWORD", password)
        findings = check(config)
        assert findings.problems == [] and findings.config is not None
        probes = await probe_all(findings.config, os.environ)
        results[password] = next(p for p in probes if p.service == "matrix")
    right, wrong = results[bot.password], results["not-the-password"]
    assert right.ok and f"whoami is {bot.user_id} (password login)" in right.found
    assert not wrong.ok and "login answered HTTP 403" in wrong.found
    assert bot.password not in right.line() + wrong.line()
    human = Human(synapse, bot)  # the probe's own device is gone again
    try:
        devices = await human.api("GET", "/devices")
    finally:
        await human.close()
    assert [d["device_id"] for d in devices["devices"]] == [bot.device_id]


def test_a_setting_no_longer_used_is_accepted_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "personad.toml"
    path.write_text(f'[daemon]\ndata_dir = "{tmp_path / "data"}"\none_core = true\n')
    findings = check(path, env={"ANTHROPIC_API_KEY": "sk-ant-test-0123456789"})
    assert findings.problems == []
    assert any(w.startswith("daemon.one_core no longer does anything") for w in findings.warnings)


def _local_only(tmp_path: Path, base_url: str) -> Path:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[llm.roles.chat]\nbackend = "local"\n'
        f'[llm.backends.local]\nkind = "openai_compat"\nmodel = "qwen"\nbase_url = "{base_url}"\n'
    )
    return config


async def test_probe_accepts_a_local_server_without_a_models_list(tmp_path: Path) -> None:
    async with FakeOpenAI(list_models=False) as local:
        findings = check(_local_only(tmp_path, f"{local.base_url}/v1"))
        assert findings.config is not None
        [result] = await probe_all(findings.config, os.environ)
        [asked] = local.requests
    assert result.ok, result.found
    assert "one-token request for 'qwen' (no models list)" in result.found
    assert asked.body["max_tokens"] == 1


async def test_probe_says_why_a_connection_fails_and_which_scheme_to_try(tmp_path: Path) -> None:
    from tests.fakes.lifecycle import quiet_port

    async with FakeOpenAI() as plain:
        https = plain.base_url.replace("http://", "https://")
        findings = check(_local_only(tmp_path, f"{https}/v1"))
        assert findings.config is not None
        [wrong_scheme] = await probe_all(findings.config, os.environ)
    assert not wrong_scheme.ok
    assert "is it http://?" in wrong_scheme.found, wrong_scheme.found
    assert "Error(" not in wrong_scheme.found and "ConnectionKey" not in wrong_scheme.found

    findings = check(_local_only(tmp_path, f"http://127.0.0.1:{quiet_port()}/v1"))
    assert findings.config is not None
    [refused] = await probe_all(findings.config, os.environ)
    assert not refused.ok and "connection refused" in refused.found, refused.found


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs a /proc file system")
def test_a_data_folder_where_nothing_can_be_made_is_named_by_check_config_and_run(
    tmp_path: Path,
) -> None:
    config = tmp_path / "personad.toml"
    config.write_text(
        '[daemon]\ndata_dir = "/proc/personad-data"\n[llm.roles.chat]\nbackend = "local"\n'
    )
    checked = personad("check-config", "--config", str(config), cwd=tmp_path)
    ran = personad("run", "--config", str(config), cwd=tmp_path)
    for result in (checked, ran):
        assert result.returncode != 0
        # root passes every permission check: the folder is tried, and /proc refuses it
        [line] = [ln for ln in result.stderr.splitlines() if "daemon.data_dir" in ln]
        assert "daemon.data_dir (/proc/personad-data): " in line and "/proc" in line
        assert "Traceback" not in result.stderr
