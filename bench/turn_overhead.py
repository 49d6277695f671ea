"""What personad itself adds to a turn, with a model that answers instantly.

1,000 sessions (one user and persona each) x 10 turns at tier 4, every persona file filled
to its character limit, through the real router, sessions, prompt builder, session log (with
its fsync) and state database; the model is an in-process backend that answers at once. It
prints the per-turn p50/p99 overhead and turns per second.

    python bench/turn_overhead.py [--sessions 1000] [--turns 10] [--memory none|sqlite-fts5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.base import Adapter, AdapterContext, Incoming
from bot.config import Config
from bot.daemon import Daemon
from bot.llm.base import (
    Completion,
    LLMBackend,
    Message,
    SystemPrompt,
    TextSink,
    ToolSpec,
)
from bot.logs import configure_logging
from bot.persona.context import files_for_tier
from bot.persona.store import PersonaStore


class InstantLLM(LLMBackend):
    name = "instant"
    model = "instant"

    def __init__(self) -> None:
        self.prompt_chars = 0

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        self.prompt_chars = len(system.stable) + len(system.dynamic)
        text = "Noted. " + messages[-1].text[:40]
        if on_text is not None:
            await on_text(text)
        return Completion(text=text)


class NullAdapter(Adapter):
    platform = "console"

    async def start(self) -> None:
        self.health.running = True

    async def stop(self) -> None:
        self.health.running = False

    async def send(self, room: str, text: str, *, reply_to: str | None = None) -> str:
        return "1"


def build(data: Path, sessions: int, memory: str) -> Config:
    store = PersonaStore(data)
    config = Config.model_validate(
        {
            "daemon": {"data_dir": str(data)},
            "http": {"enabled": False},
            "llm": {"roles": {"chat": {"backend": "anthropic"}}},
            "prompt": {"default_tier": 4},
            "memory": {"backend": memory, "embeddings": "off"},
            "users": {
                f"u{i:04d}": {"identities": [f"console:u{i:04d}"], "timezone": "Europe/Lisbon"}
                for i in range(sessions)
            },
        }
    )
    filler = "The persona remembers a great many small things about this household. "
    for i in range(sessions):
        directory = store.directory(f"u{i:04d}", "inara")
        (directory / "sessions").mkdir(parents=True)
        for name in files_for_tier(4):
            size = config.prompt.limit(name)
            (directory / name).write_text((filler * (size // len(filler) + 1))[:size])
    return config


async def run(sessions: int, turns: int, memory: str) -> None:
    with tempfile.TemporaryDirectory(prefix="personad-bench-") as tmp:
        data = Path(tmp)
        t0 = time.perf_counter()
        config = build(data, sessions, memory)
        print(f"setup: {sessions} personas at their limits in {time.perf_counter() - t0:.1f}s")
        llm = InstantLLM()
        daemon = Daemon(config, backends={"anthropic": llm}, http=False, jobs=False)

        async def handler(incoming: Incoming) -> None:
            assert daemon.router is not None
            await daemon.router.handle(incoming)

        adapter = NullAdapter(
            AdapterContext(
                handler=handler, state=daemon.state.for_adapter("console"), data_dir=data
            )
        )
        daemon.attach("console", adapter)
        await daemon.start()
        latencies: list[float] = []
        started = time.perf_counter()
        try:
            for turn in range(turns):
                for i in range(sessions):
                    incoming = Incoming(
                        platform="console",
                        sender=f"u{i:04d}",
                        room="bench",
                        text=f"Turn {turn}: today I watered the tomatoes and fixed the gate.",
                        event_id=f"{i}:{turn}",
                    )
                    t = time.perf_counter()
                    await handler(incoming)
                    latencies.append(time.perf_counter() - t)
            elapsed = time.perf_counter() - started
        finally:
            await daemon.stop()
        latencies.sort()
        p50 = statistics.median(latencies) * 1000
        p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
        print(
            f"turn overhead, memory={memory}, tier 4, prompt {llm.prompt_chars:,} chars:"
            f" {len(latencies):,} turns, p50 {p50:.2f} ms, p99 {p99:.2f} ms,"
            f" {len(latencies) / elapsed:,.0f} turns/s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--memory", default="none", choices=("none", "sqlite-fts5"))
    args = parser.parse_args()
    configure_logging(fmt="json", level="warning")
    asyncio.run(run(args.sessions, args.turns, args.memory))


if __name__ == "__main__":
    main()
