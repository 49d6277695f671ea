"""The suite never reads or writes the home of the person running it."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from bot.setup.config_loader import default_config_path


def test_the_suite_runs_in_a_home_of_its_own() -> None:
    home = Path(os.environ["HOME"])
    assert home.name.startswith("personad-test-home-")
    assert home != Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert default_config_path().is_relative_to(home)
    assert Path(os.environ["XDG_DATA_HOME"]).is_relative_to(home)
    assert "PERSONAD_CONFIG" not in os.environ
