"""Resident memory of the whole daemon: ``personad run`` with the console and Telegram (on the
loopback Bot API of tests/fakes), a local model (tests/fakes' OpenAI-compatible server, which
echoes), and the embedding model if it is installed.

    python bench/daemon_resident.py [--messages 100000] [--turns 20]

With ``--messages N`` the persona's memory is filled first with N messages like set B's and
their sentence vectors (``bench/recall_resident.py --messages``'s store). Printed: the
daemon's resident memory (``VmRSS``) once ``/healthz`` answers, and its resident memory and
peak (``VmHWM``) after ``--turns`` console messages, each answered before the next is sent
(the embedding model loads with the first turn that recalls).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.recall_resident import build_messages  # noqa: E402
from bench.startup import _command, _until_healthy, _write_config  # noqa: E402
from bot.persona.store import PersonaStore  # noqa: E402
from bot.persona.template import create_persona  # noqa: E402
from tests.fakes.lifecycle import quiet_port  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram  # noqa: E402

__all__ = ["main"]

_QUESTIONS = (
    "What did I say about the rent going up?",
    "Where did Rosa start working?",
    "Remind me what the physio said about my knee.",
    "Which book did you suggest to me?",
)


def _resident(pid: int) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found


async def _run(config: Path, port: int, env: dict[str, str], turns: int) -> None:
    process = await asyncio.create_subprocess_exec(
        *_command(), "--config", str(config), "run",
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    try:
        if await asyncio.wait_for(_until_healthy(port, process), timeout=60) is None:
            raise SystemExit("personad run did not become healthy")
        await asyncio.sleep(2)
        print(f"healthy: resident {_resident(process.pid)['VmRSS']:.0f} MB", flush=True)
        for turn in range(turns):
            question = _QUESTIONS[turn % len(_QUESTIONS)]
            process.stdin.write(f"{question} ({turn})\n".encode())
            await process.stdin.drain()
            while b"echo:" not in await asyncio.wait_for(process.stdout.readline(), 120):
                pass
        found = _resident(process.pid)
        print(
            f"after {turns} turns: resident {found['VmRSS']:.0f} MB (peak {found['VmHWM']:.0f})",
            flush=True,
        )
    finally:
        process.stdin.close()
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        await process.communicate()


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--messages", type=int, default=0, help="messages in memory first")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--model", choices=("auto", "e5", "minilm"), default="auto")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="personad-daemon-resident-") as tmp:
        root = Path(tmp)
        store = PersonaStore(root / "data")
        create_persona(store, "scott", "inara")
        if args.messages:
            await build_messages(store.directory("scott", "inara"), args.messages)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
        env.update(PYTHONPATH=str(REPO), PERSONAD_API_TOKEN="b" * 24)
        env["PERSONAD__MEMORY__EMBEDDINGS"] = args.model
        async with FakeTelegram() as telegram, FakeOpenAI() as model:
            env["TELEGRAM_BOT_TOKEN"] = telegram.token
            port = quiet_port()
            config = _write_config(
                root, port, telegram.base_url, "local", model_url=f"{model.base_url}/v1"
            )
            print(f"{args.messages:,} messages in memory")
            await _run(config, port, env, args.turns)


if __name__ == "__main__":
    asyncio.run(main())
