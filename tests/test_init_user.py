"""``personad init``'s default user is the name ``make chat`` uses: the login name, with
characters a folder name may not hold turned into ``_``, whatever the environment says."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from bot.setup.init_questions import folder_name
from tests.test_preflight import personad


def test_a_login_name_becomes_a_folder_name() -> None:
    assert folder_name("scott") == "scott"
    assert folder_name("John.Doe") == "John_Doe"
    assert folder_name("ana maria@corp") == "ana_maria_corp"
    assert folder_name("") == "me"


def test_init_without_user_takes_the_login_name_even_with_no_user_variable(
    tmp_path: Path,
) -> None:
    config = tmp_path / "etc" / "personad.toml"
    result = personad(
        "init", "--yes", "--config", str(config), "--data-dir", str(tmp_path / "data"),
        "--backend", "local", cwd=tmp_path, **{"HOME": str(tmp_path), "USER": "", "LOGNAME": ""},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    login = folder_name(pwd.getpwuid(os.getuid()).pw_name)
    assert (tmp_path / "data" / login / "persona" / "inara").is_dir()
    assert f"[users.{login}]" in config.read_text()


def test_init_again_keeps_to_the_configs_user_and_persona_and_says_so_first(
    tmp_path: Path,
) -> None:
    config = tmp_path / "etc" / "personad.toml"
    data = tmp_path / "data"
    first = personad(
        "init", "--yes", "--config", str(config), "--data-dir", str(data), "--user", "scott",
        "--persona", "holly", "--backend", "local", cwd=tmp_path, HOME=str(tmp_path),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    again = personad(
        "init", "--yes", "--config", str(config), "--backend", "local",
        cwd=tmp_path, HOME=str(tmp_path),
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert lines[0].startswith("kept the existing config")
    assert "kept the existing persona scott/holly" in lines
    assert sorted(p.name for p in data.iterdir() if (p / "persona").is_dir()) == ["scott"]
