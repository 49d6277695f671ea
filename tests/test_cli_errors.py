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
