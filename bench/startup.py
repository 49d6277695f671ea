"""How long personad takes to be useful after it is started.

- ``run``: from the process start until ``/healthz`` answers 200, with the console and one
  platform adapter (Telegram, against the loopback Bot API of tests/fakes) configured;
- ``chat``: from the process start until the prompt shows in a terminal (a pty).

Each is measured ``--runs`` times (default 5); the median and the spread are printed.
``--backend local|anthropic`` picks the chat model's backend (nothing is asked of it).

    python bench/startup.py [--runs 5] [--backend local]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot.persona.store import PersonaStore  # noqa: E402
from bot.persona.template import create_persona  # noqa: E402
from tests.fakes.lifecycle import quiet_port  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram  # noqa: E402


def _command() -> list[str]:
    script = Path(sys.executable).parent / "personad"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.daemon.cli"]


def _write_config(
    root: Path, port: int, telegram_url: str, backend: str, model_url: str = "http://127.0.0.1:9/v1"
) -> Path:
    config = root / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{root / "data"}"\nlog_format = "json"\n'
        f"[http]\nport = {port}\n"
        '[llm.backends.local]\nkind = "openai_compat"\nmodel = "m"\n'
        f'base_url = "{model_url}"\n'
        f'[llm.roles.chat]\nbackend = "{backend}"\n'
        '[users.scott]\nidentities = ["telegram:42", "console:scott"]\n'
        '[adapters.console]\nenabled = true\nuser = "scott"\n'
        f'[adapters.telegram]\nenabled = true\nbase_url = "{telegram_url}"\npoll_timeout = 1\n'
    )
    return config


async def _until_healthy(port: int, process: asyncio.subprocess.Process) -> float | None:
    while process.returncode is None:
        status = b""
        with contextlib.suppress(OSError, TimeoutError):  # not listening yet
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.0\r\n\r\n")
            status = await asyncio.wait_for(reader.readline(), timeout=5)
            writer.close()
        if b" 200 " in status:
            return time.perf_counter()
        await asyncio.sleep(0.01)
    return None


async def measure_run(config: Path, port: int, env: dict[str, str]) -> float:
    began = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *_command(), "--config", str(config), "run",
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        ready = await asyncio.wait_for(_until_healthy(port, process), timeout=60)
    finally:
        if process.stdin is not None:
            process.stdin.close()  # the console's reader ends with its input
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _out, err = await process.communicate()
    if ready is None:
        raise SystemExit(f"personad run did not become healthy:\n{err.decode()[-2000:]}")
    return ready - began


def measure_chat(config: Path, env: dict[str, str]) -> float:
    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: personad chat in the pty
        command = [*_command(), "--config", str(config), "chat", "--user", "scott"]
        os.execvpe(command[0], [*command, "--persona", "inara"], env)
    seen = b""
    try:
        while "›".encode() not in seen:
            ready, _, _ = select.select([fd], [], [], 60)
            if not ready:
                raise SystemExit(f"no prompt from personad chat: {seen[-500:]!r}")
            seen += os.read(fd, 4096)
        return time.perf_counter() - began
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)


def _summary(name: str, figures: list[float]) -> str:
    ms = sorted(round(f * 1000) for f in figures)
    return f"{name}: median {statistics.median(ms):.0f} ms (runs: {', '.join(map(str, ms))} ms)"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--backend", choices=("local", "anthropic"), default="local")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        create_persona(PersonaStore(root / "data"), "scott", "inara")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
        env.update(
            PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="sk-ant-bench", PERSONAD_API_TOKEN="b" * 24
        )
        async with FakeTelegram() as telegram:
            env["TELEGRAM_BOT_TOKEN"] = telegram.token
            port = quiet_port()
            config = _write_config(root, port, telegram.base_url, args.backend)
            runs, chats = [], []
            for _ in range(args.runs):
                runs.append(await measure_run(config, port, env))
                print(f"run {runs[-1]:.3f} s", file=sys.stderr, flush=True)
            for _ in range(args.runs):
                chats.append(await asyncio.to_thread(measure_chat, config, env))
                print(f"chat {chats[-1]:.3f} s", file=sys.stderr, flush=True)
    print(f"backend {args.backend}, {os.cpu_count()} CPUs")
    print(_summary("personad run until /healthz answers 200", runs))
    print(_summary("personad chat until its prompt shows", chats))


if __name__ == "__main__":
    asyncio.run(main())
