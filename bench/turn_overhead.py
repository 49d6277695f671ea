"""What personad itself adds to a turn, with a model that answers instantly.

1,000 sessions (one user and persona each) x 10 turns at tier 4, every persona file filled
to its character limit, through the real router, sessions, prompt builder, session log (with
its fsync) and state database; the model is an in-process backend that answers at once. It
prints the per-turn p50/p99 overhead and turns per second.

    python bench/turn_overhead.py [--sessions 1000] [--turns 10] [--memory none|sqlite-fts5]
                                  [--dir /dev/shm]

It prints the time until the answer is handed to the platform (what a person waits for,
beyond the model), for every turn and split into the first turn of each session (which opens
it: settings, today's log, the persona files read from disk) and the later ones; the whole
turn including the work after the answer (memory sync, the identity observer); and
throughput one turn at a time and with every session talking at once, with the event loop's
CPU time per turn. ``--dir /dev/shm`` puts the data on tmpfs, leaving the CPU cost alone.
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
from bot.daemon.daemon import Daemon
from bot.daemon.logs import configure_logging
from bot.llm.base import (
    Completion,
    LLMBackend,
    Message,
    SystemPrompt,
    TextSink,
    ToolSpec,
)
from bot.persona.context import files_for_tier
from bot.persona.store import PersonaStore
from bot.setup.config import Config


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
    """Records when the answer was handed to the platform."""

    platform = "console"
    last_send = 0.0

    async def start(self) -> None:
        self.health.running = True

    async def stop(self) -> None:
        self.health.running = False

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        self.last_send = time.perf_counter()
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


async def run(sessions: int, turns: int, memory: str, where: str | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="personad-bench-", dir=where) as tmp:
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
        replies: list[float] = []
        handled: list[float] = []
        try:
            started, cpu = time.perf_counter(), time.thread_time()
            for turn in range(turns):
                for i in range(sessions):
                    t = time.perf_counter()
                    await handler(_message(i, turn))
                    handled.append(time.perf_counter() - t)
                    replies.append(adapter.last_send - t)
            sequential = time.perf_counter() - started
            sequential_cpu = time.thread_time() - cpu
            started, cpu = time.perf_counter(), time.thread_time()

            async def converse(i: int) -> None:
                for turn in range(turns, 2 * turns):
                    await handler(_message(i, turn))

            await asyncio.gather(*(converse(i) for i in range(sessions)))
            concurrent = time.perf_counter() - started
            concurrent_cpu = time.thread_time() - cpu
        finally:
            await daemon.stop()
        print(
            f"data in {data.parent}, memory={memory}, tier 4, prompt {llm.prompt_chars:,} chars,"
            f" {sessions:,} sessions x {turns} turns"
        )
        print(f"  until the answer is sent: {_percentiles(replies)}")
        print(f"    first turn of a session: {_percentiles(replies[:sessions])}")
        if turns > 1:
            print(f"    later turns:             {_percentiles(replies[sessions:])}")
        print(f"  whole turn (log, memory): {_percentiles(handled)}")
        total = sessions * turns
        print(
            f"  one turn at a time:       {total / sequential:,.0f} turns/s,"
            f" event loop CPU {sequential_cpu / total * 1000:.2f} ms/turn"
        )
        print(
            f"  all sessions at once:     {total / concurrent:,.0f} turns/s,"
            f" event loop CPU {concurrent_cpu / total * 1000:.2f} ms/turn"
        )


def _message(i: int, turn: int) -> Incoming:
    return Incoming(
        platform="console",
        sender=f"u{i:04d}",
        room="bench",
        text=f"Turn {turn}: today I watered the tomatoes and fixed the gate.",
        event_id=f"{i}:{turn}",
    )


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000
    return f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--memory", default="none", choices=("none", "sqlite-fts5"))
    parser.add_argument(
        "--dir", help="where the data directory is made (default: the system's temp dir)"
    )
    args = parser.parse_args()
    configure_logging(fmt="json", level="warning")
    asyncio.run(run(args.sessions, args.turns, args.memory, args.dir))


if __name__ == "__main__":
    main()
