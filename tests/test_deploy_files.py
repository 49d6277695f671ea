"""The deploy files say what README says they do (docker and systemd cannot run here, so what
can be checked without them is): the unit's start check fails only when nothing answers, and
no secret or virtual environment goes into a docker build."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def _unit_line(key: str) -> str:
    for line in (DEPLOY / "personad.service").read_text().splitlines():
        if line.startswith(f"{key}="):
            return line.split("=", 1)[1]
    raise AssertionError(f"no {key}= in personad.service")


@pytest.mark.parametrize(("health", "started"), [(0, True), (1, True), (2, False)])
def test_the_units_start_check_fails_only_when_nothing_answers(
    tmp_path: Path, health: int, started: bool
) -> None:
    # `personad health` exits 0 healthy, 1 an adapter failed (the others run on), 2 no answer
    fake = tmp_path / "personad"
    fake.write_text(f"#!/bin/sh\nexit {health}\n")
    fake.chmod(0o755)
    command = _unit_line("ExecStartPost").replace("/opt/personad/bin/personad", str(fake))
    command = command.replace("$$", "$")  # what systemd hands the shell
    shell, flag, script = command.split(" ", 2)
    result = subprocess.run([shell, flag, script.strip("'")], check=False)
    assert (result.returncode == 0) is started


def test_the_unit_does_not_restart_a_config_error_and_gives_up_on_quick_failures() -> None:
    assert _unit_line("RestartPreventExitStatus") == "2"  # run's exit status for a bad config
    assert int(_unit_line("StartLimitBurst")) <= 5


def test_no_secret_history_or_venv_goes_into_a_docker_build() -> None:
    ignored = (DEPLOY.parent / ".dockerignore").read_text().splitlines()
    for entry in (".env", "**/.env", ".git", ".venv", ".venv-synapse", "deploy/config"):
        assert entry in ignored
    compose = (DEPLOY / "compose.yaml").read_text()
    assert "path: ../.env" in compose and "required: false" in compose
