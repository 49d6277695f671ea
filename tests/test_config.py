"""Configuration: defaults, the TOML file, environment overrides and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.daemon.errors import ConfigError
from bot.setup.config_loader import collect_problems, load_config

REPO = Path(__file__).resolve().parent.parent


def test_defaults_work_without_a_file() -> None:
    config = load_config(None, {})
    assert config.memory.backend == "sqlite-fts5"
    assert config.prompt.default_tier == 2
    assert config.llm.backend_for("chat")[0] == "anthropic"
    assert config.llm.backend_for("distill_mid")[0] == "anthropic"  # empty = chat's


def test_seed_environment_names_are_accepted() -> None:
    env = {
        "AUTO_DISTILL": "false",
        "AUTO_DISTILL_LONG": "true",
        "DISTILL_BACKEND_MID": "local",
        "MEMORY_BUDGET_SHORT": "4500",
        "PERSONAD_DATA_DIR": "/srv/personad",
    }
    config = load_config(None, env)
    assert config.distill.auto is False and config.distill.long is True
    assert config.llm.backend_for("distill_mid")[0] == "local"
    assert config.distill.budget_short == 4500
    assert config.data_dir == Path("/srv/personad")


def test_environment_overrides_the_file_and_keeps_nested_defaults(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[http]\nport = 9000\n[llm.backends.anthropic]\nmodel = "claude-x"\n')
    config = load_config(path, {"PERSONAD__HTTP__PORT": "9100"})
    assert config.http.port == 9100
    backend = config.llm.backends["anthropic"]
    assert backend.model == "claude-x" and backend.kind == "anthropic"


def test_every_problem_names_its_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        '[users.scott]\ntimezone = "Mars/Base"\nidentities = ["nope"]\n'
        "[http]\nport = 99999\nbogus = 1\n"
        '[llm.roles.chat]\nbackend = "missing"\n'
    )
    _config, problems = collect_problems(path, {})
    text = "\n".join(problems)
    assert "users.scott.timezone: unknown time zone 'Mars/Base'" in text
    assert "users.scott.identities" in text
    assert "http.port" in text and "http.bogus: unknown key" in text
    with pytest.raises(ConfigError) as excinfo:
        load_config(path, {})
    assert "\n" not in str(excinfo.value)


def test_cross_checks_catch_unknown_backends_and_shared_identities(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[llm.roles.chat]\nbackend = "nowhere"\n'
        '[users.a]\nidentities = ["telegram:1"]\n[users.b]\nidentities = ["telegram:1"]\n'
    )
    _config, problems = collect_problems(path, {})
    assert any("no backend named 'nowhere'" in p for p in problems)
    assert any("already belongs to 'a'" in p for p in problems)


def test_broken_toml_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[users\n")
    _config, problems = collect_problems(path, {})
    assert len(problems) == 1 and str(path) in problems[0]
    _config, problems = collect_problems(tmp_path / "absent.toml", {})
    assert "does not exist" in problems[0]


def test_example_config_is_valid_and_check_config_reports_problems(tmp_path: Path) -> None:
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.daemon.cli",
            "check-config",
            "--config",
            "config/personad.example.toml",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "ANTHROPIC_API_KEY": "sk-test-key", "PERSONAD_DATA_DIR": str(tmp_path)},
    )
    assert ok.returncode == 0, ok.stderr
    assert "config OK" in ok.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[users.x]\ntimezone = "Nowhere/Land"\n[memory]\nbackend = "papyrus"\n')
    result = subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", "check-config", "--config", str(bad)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 1
    assert "users.x.timezone" in result.stderr and "memory.backend" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_section_check_names_its_key_in_plain_words(tmp_path: Path) -> None:
    from bot.setup.preflight import check

    path = tmp_path / "personad.toml"
    path.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[llm.roles.chat]\nbackend = "local"\n'
        '[adapters.matrix]\nenabled = true\nhomeserver = "matrix.example.org"\n'
        'user_id = "@inara:example.org"\npassword_env = "M"\n'
        '[adapters.telegram]\nenabled = true\nmode = "webhook"\n'
    )
    problems = check(path, env={"M": "x", "TELEGRAM_BOT_TOKEN": "1:x"}).problems
    assert (
        "adapters.matrix.homeserver: must be a URL such as https://matrix.example.org" in problems
    )
    assert "adapters.telegram.webhook_url: is required when mode is 'webhook'" in problems
    assert not any("Value error" in p or ".:" in p for p in problems), problems
    path.write_text('[llm]\nbackends = 3\n[llm.roles.chat]\nbackend = "local"\n')
    assert collect_problems(path, {})[1]  # reported, not a crash


def test_a_media_role_must_name_an_audio_server(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[llm.roles.transcribe]\nbackend = "anthropic"\n'
        '[llm.backends.piper]\nkind = "openai_compat"\nmodel = "p"\n'
        '[llm.roles.speech]\nbackend = "piper"\n'
    )
    _config, problems = collect_problems(path, {"ANTHROPIC_API_KEY": "k"})
    assert (
        "llm.roles.transcribe.backend: 'anthropic' must be an OpenAI-compatible audio server"
        ' (kind = "openai_compat" with a base_url)'
    ) in problems
    assert any(p.startswith("llm.roles.speech.backend: 'piper' must be") for p in problems)


@pytest.mark.parametrize(
    ("identity", "meant"),
    [
        ("telegram:@scott", "numeric user id"),
        ("discord:scott", "numeric user id"),
        ("matrix:scott", "'matrix:@scott:example.org'"),
    ],
)
def test_an_identity_in_the_wrong_form_for_its_platform_says_what_to_write(
    tmp_path: Path, identity: str, meant: str
) -> None:
    """A Telegram @username or a bare Matrix name never matches a sender: every message of
    that person would be dropped as from a stranger, with a config that looked OK."""
    path = tmp_path / "p.toml"
    path.write_text(f'[users.scott]\nidentities = ["telegram:42", "{identity}"]\n')
    _config, problems = collect_problems(path, {})
    [line] = [p for p in problems if p.startswith("users.scott.identities")]
    assert repr(identity) in line and meant in line


def test_a_mistyped_key_is_named_with_the_key_meant(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        '[daemon]\ndata_dri = "/srv/p"\n[users.scott]\nadmn = true\n'
        '[llm.backends.local]\nkind = "openai_compat"\nmodel = "m"\nbase_ulr = "http://h/v1"\n'
        "[http]\nbogus = 1\n"
    )
    _config, problems = collect_problems(path, {})
    assert "daemon.data_dri: unknown key (did you mean 'data_dir'?)" in problems
    assert "users.scott.admn: unknown key (did you mean 'admin'?)" in problems
    assert "llm.backends.local.base_ulr: unknown key (did you mean 'base_url'?)" in problems
    assert "http.bogus: unknown key" in problems  # nothing near it: no guess


def test_a_value_of_the_wrong_type_is_quoted_back(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[http]\nport = "eighty"\n[users.scott]\nidentities = "telegram:42"\n')
    _config, problems = collect_problems(path, {})
    [port] = [p for p in problems if p.startswith("http.port")]
    assert "'eighty'" in port
    [identities] = [p for p in problems if p.startswith("users.scott.identities")]
    assert 'write it as a list: ["telegram:42"]' in identities


def test_a_model_address_without_its_scheme_is_refused_with_the_address_meant(
    tmp_path: Path,
) -> None:
    """``base_url = "127.0.0.1:11434/v1"`` passed, and every turn said the connection
    dropped, which no setting could fix."""
    path = tmp_path / "p.toml"
    path.write_text(
        '[llm.roles.chat]\nbackend = "local"\n[llm.backends.local]\nkind = "openai_compat"\n'
        'model = "m"\nbase_url = "127.0.0.1:11434/v1"\n'
    )
    _config, problems = collect_problems(path, {})
    assert problems == [
        "llm.backends.local.base_url: '127.0.0.1:11434/v1' is not a URL;"
        " write it with its scheme: 'http://127.0.0.1:11434/v1'"
    ]
