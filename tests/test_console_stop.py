"""The console's input never holds the process: ``personad run`` with the console adapter
stops on SIGTERM while its input stays open (under a supervisor, or a pipe nobody closes), and
Ctrl-C at ``personad chat``'s prompt ends it."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.fakes.lifecycle import quiet_port
from tests.test_cli_errors import _config
from tests.test_preflight import personad

REPO = Path(__file__).resolve().parent.parent


def _healthy(port: int, process: subprocess.Popen[str]) -> bool:
    for _ in range(600):
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                return bool(json.loads(r.read())["status"] == "ok")
        except OSError:
            time.sleep(0.1)
    return False


def test_run_with_the_console_stops_on_sigterm_while_stdin_stays_open(tmp_path: Path) -> None:
    port = quiet_port()
    config = _config(tmp_path, port, tmp_path / "data")
    with config.open("a") as extra:
        extra.write('[users.scott]\nidentities = ["console:scott"]\n')
        extra.write('[adapters.console]\nenabled = true\nuser = "scott"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    env.update(PYTHONPATH=str(REPO), PERSONAD_API_TOKEN="a-token-long-enough-for-the-check")
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.daemon.cli", "--config", str(config), "run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert _healthy(port, process), process.stderr.read() if process.stderr else ""
        process.send_signal(signal.SIGTERM)
        # stdin is still open here: the daemon must not wait for it to close.
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        out, err = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
        if process.stdin is not None:
            process.stdin.close()
    assert process.returncode == 0, err
    names = [json.loads(line).get("event") for line in (out + err).splitlines() if line[:1] == "{"]
    assert "daemon.stopped" in names
    assert "Traceback" not in err


def test_ctrl_c_at_the_chat_prompt_ends_chat(tmp_path: Path) -> None:
    config = _config(tmp_path, 0, tmp_path / "data")
    made = personad("--config", str(config), "persona", "new", "scott", "inara", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    env.update(PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "bot.daemon.cli", "--config", str(config), "chat"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: personad chat in a terminal
        os.chdir(tmp_path)
        os.execvpe(command[0], [*command, "--user", "scott", "--persona", "inara"], env)
    seen, status, done = b"", 0, 0
    try:
        while "›".encode() not in seen:
            ready, _, _ = select.select([fd], [], [], 60)
            assert ready, seen
            seen += os.read(fd, 4096)
        os.write(fd, b"\x03")  # Ctrl-C, through the terminal like a person's
        for _ in range(600):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("chat did not end on Ctrl-C")
    finally:
        if not done:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 130
