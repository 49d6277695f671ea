"""How long one very long message holds the event loop, and what another user waits meanwhile.

One user sends a message of ``--chars`` characters (``daemon.max_message_chars`` raised to
match) through the real router, session, session log, memory backend and identity observer;
the model is an in-process backend that answers at once with a short reply. As soon as that
reply reaches the platform, a second user sends a short message. A heartbeat task measures
the longest gap between two event-loop iterations over the whole run.

    python bench/long_input.py [--chars 1000000] [--memory sqlite-fts5|holographic|none]
                               [--text words|lines|spaces|nopunct] [--runs 3]

It prints, per run, the longest loop stall, the second user's wait for their answer, and
the time until the long message's work after the answer (memory, identity) is done.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.base import AdapterContext
from bot.turn.router import Router
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

_WORDS = (
    "I really love the garden and my sister went to Lisbon yesterday please call me later"
    " the password is not here lol haha tomorrow we will see :) ! ?"
).split()


def long_text(kind: str, chars: int, seed: int = 1) -> str:
    """``chars`` characters of prose-like text, shaped as ``kind``."""
    rnd = random.Random(seed)
    if kind == "spaces":
        return ("a " * (chars // 2 + 1))[:chars]
    if kind == "lines":
        lines = (f"note {n}: {' '.join(rnd.choices(_WORDS, k=6))}" for n in range(chars))
        return "\n".join(lines)[:chars]
    parts: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rnd.choices(_WORDS, k=12)) + ("" if kind == "nopunct" else ". ")
        parts.append(sentence if kind != "nopunct" else sentence + " ")
        size += len(parts[-1])
    return "".join(parts)[:chars]


class _Adapter(RecordingAdapter):
    """Tells when the long message's answer went out."""

    def __init__(self, context: AdapterContext, **kw: Any) -> None:
        super().__init__(context, **kw)
        self.replied = asyncio.Event()

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if reply_to == "long":
            self.replied.set()
        return await super().send(room, text, reply_to=reply_to, key=key)


async def settle(router: Router) -> None:
    """Until no message and no work after an answer is in flight."""
    for _ in range(10_000_000):
        if not router.in_flight:
            return
        await asyncio.sleep(0.001)


async def run_once(text: str, memory: str) -> tuple[float, float, float]:
    data = Path(tempfile.mkdtemp(prefix="personad-long-"))
    make_persona(data, "scott")
    make_persona(data, "holly")
    llm = ScriptedLLM()
    config = make_config(
        data, memory_backend=memory, extra={"daemon": {"max_message_chars": len(text)}}
    )
    daemon, recording = await start_daemon(config, data, llm=llm, adapter_class=_Adapter)
    assert isinstance(recording, _Adapter)
    adapter = recording
    router = daemon.router
    assert router is not None
    for who in ("scott", "holly"):  # open both sessions first
        await adapter.deliver("hello", sender=who, room=who, event_id=f"warm-{who}")
    await settle(router)

    worst = 0.0
    running = True

    async def heartbeat() -> None:
        nonlocal worst
        last = time.perf_counter()
        while running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now

    beat = asyncio.create_task(heartbeat())
    llm.queue("Thanks, that is a lot to read.")
    started = time.perf_counter()
    long_turn = asyncio.create_task(
        adapter.deliver(text, sender="scott", room="scott", event_id="long")
    )
    await adapter.replied.wait()
    asked = time.perf_counter()
    await adapter.deliver("a short question", sender="holly", room="holly", event_id="short")
    waited = time.perf_counter() - asked
    await long_turn
    await settle(router)
    total = time.perf_counter() - started
    running = False
    await beat
    await daemon.stop()
    return worst, waited, total


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--memory", default="sqlite-fts5")
    parser.add_argument("--text", default="words", choices=["words", "lines", "spaces", "nopunct"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = long_text(args.text, args.chars)
    print(f"{len(text):,} characters ({args.text}), memory {args.memory}")
    for run in range(args.runs):
        worst, waited, total = await run_once(text, args.memory)
        print(
            f"run {run + 1}: loop stall max {worst * 1000:7.1f} ms  second user waited"
            f" {waited * 1000:7.1f} ms  long message done after {total:5.2f} s"
        )


if __name__ == "__main__":
    asyncio.run(main())
