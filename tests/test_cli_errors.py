"""Errors a person can act on: one line on stderr, exit status 2, never a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.test_preflight import personad


def _config(tmp_path: Path, port: int, data: Path) -> Path:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{data}"\n[http]\nport = {port}\n'
        '[llm.backends.local]\nkind = "openai_compat"\nmodel = "m"\n'
        'base_url = "http://127.0.0.1:9/v1"\n[llm.roles.chat]\nbackend = "local"\n'
    )
    return config


def test_a_port_in_use_is_one_line_naming_the_key(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = _config(tmp_path, port, tmp_path / "data")
        result = personad("run", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if ln.startswith("personad:")]
    assert f"cannot listen on 127.0.0.1:{port}, another program uses that port" in line


def test_a_data_folder_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("oops")
    config = _config(tmp_path, 0, data)
    for command in (["run"], ["chat", "--user", "scott", "--persona", "inara"]):
        result = personad(*command, "--config", str(config), cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert str(data) in result.stderr


def test_a_config_path_the_system_refuses_is_one_line(tmp_path: Path) -> None:
    # the .env beside it cannot even be looked at (here: a name too long for the file system;
    # for a user, a folder they may not enter)
    config = tmp_path / ("x" * 300) / "personad.toml"
    result = personad("--config", str(config), "check-config", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("personad: ") and "File name too long" in line


def test_a_working_directory_whose_env_cannot_be_looked_at_is_passed_over(
    tmp_path: Path,
) -> None:
    # `sudo -u personad personad init` run from a home the service user may not enter
    from bot.setup.envfiles import load_env_files

    environ: dict[str, str] = {"PERSONAD_CONFIG": str(tmp_path / "personad.toml")}
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=beside\n")
    files = load_env_files(None, environ, cwd=tmp_path / ("y" * 300))
    assert files == [tmp_path / ".env"]
    assert environ["TELEGRAM_BOT_TOKEN"] == "beside"


def test_an_env_file_that_is_not_utf8_is_named_not_passed_over(tmp_path: Path) -> None:
    # silently skipped, its tokens would show up as "not set" with no word about the file
    config = _config(tmp_path, 0, tmp_path / "data")
    (tmp_path / ".env").write_bytes(b"TELEGRAM_BOT_TOKEN=caf\xe9\n")
    result = personad("--config", str(config), "check-config", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert f"{tmp_path / '.env'}: not UTF-8 text" in line
