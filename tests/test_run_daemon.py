"""``personad run`` as a process: it serves, answers /healthz, logs JSON without secrets, and
stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cores_of(pid: int, thread: int) -> set[int]:
    """The cores a thread of process ``pid`` may run on (Linux's Cpus_allowed_list)."""
    status = Path(f"/proc/{pid}/task/{thread}/status").read_text()
    listed = next(line for line in status.splitlines() if line.startswith("Cpus_allowed_list"))
    cores: set[int] = set()
    for part in listed.split(":", 1)[1].strip().split(","):
        first, _, last = part.partition("-")
        cores.update(range(int(first), int(last or first) + 1))
    return cores


def test_run_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path / "data"}"\nlog_format = "json"\n'
        f"[http]\nport = {port}\n"
        '[llm.backends.local]\nkind = "openai_compat"\nmodel = "m"\n'
        'base_url = "http://127.0.0.1:9/v1"\n[llm.roles.chat]\nbackend = "local"\n'
        '[users.scott]\nidentities = ["telegram:1"]\n'
    )
    secret = "api-token-that-must-never-be-logged"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    env.update(PYTHONPATH=str(REPO), PERSONAD_API_TOKEN=secret)
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.daemon.cli", "--config", str(config), "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    try:
        body = None
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    body = json.loads(r.read())
                    break
            except OSError:
                time.sleep(0.1)
        assert body is not None and body["status"] == "ok"
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/status", headers={"Authorization": f"Bearer {secret}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert "uptime_s" in json.loads(response.read())
        main_thread_cores = _cores_of(process.pid, process.pid)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    events = [json.loads(line) for line in (out + err).splitlines() if line.startswith("{")]
    names = [e.get("event") for e in events]
    assert "daemon.started" in names and "daemon.stopped" in names
    assert main_thread_cores == os.sched_getaffinity(0)  # the kernel places the daemon
    assert secret not in out + err
