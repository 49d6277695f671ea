"""A message of a megabyte (``daemon.max_message_chars`` raised) does not hold the event loop:
another user's short turn is answered while the long one is still being read, and the long
one is still read in full."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

import bot.persona.identity.observer as observer_module
from bot.daemon.disk import INLINE_TEXT, run_on_text
from bot.persona.identity.detect import Trait
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

LONG = "a " * 499_980 + "Please call me Captain."


async def test_a_short_turn_is_answered_while_a_megabyte_message_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    config = make_config(tmp_path, extra={"daemon": {"max_message_chars": 1_000_000}})
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm)

    # the long message's reading for traits waits (a bounded while) until the other user was
    # answered: that can only happen if the loop keeps running meanwhile
    reading, holly_answered = threading.Event(), threading.Event()
    answered_meanwhile: list[bool] = []
    real_detect = observer_module.detect

    def watched_detect(text: str, *, persona: str = "") -> list[Trait]:
        if len(text) > 100_000:
            reading.set()
            answered_meanwhile.append(holly_answered.wait(timeout=10))
        return real_detect(text, persona=persona)

    monkeypatch.setattr(observer_module, "detect", watched_detect)
    try:
        await adapter.deliver("hello", sender="holly", room="holly", event_id="h0")
        llm.queue("That is a lot of a's.")
        await adapter.deliver(LONG, sender="scott", room="scott", event_id="s1")
        assert adapter.sent[-1] == ("scott", "That is a lot of a's.")
        assert await asyncio.to_thread(reading.wait, 30)
        await adapter.deliver("a short question", sender="holly", room="holly", event_id="h1")
        assert adapter.sent[-1] == ("holly", "echo: a short question")
        holly_answered.set()
    finally:
        holly_answered.set()
        await daemon.stop()  # waits for the work after each answer
    assert answered_meanwhile == [True]
    voice = (tmp_path / "scott/persona/inara/VOICE.md").read_text()
    assert "Captain" in voice  # the end of the long message was read too


async def test_work_over_a_long_text_leaves_the_loop_running() -> None:
    """What memory backends and the identity observer run over a message: a short text on
    the loop (no hand-over cost), a long one beside it while the loop goes on."""
    loop_thread = threading.get_ident()
    ran_in: list[int] = []
    loop_ran = threading.Event()

    def analyse(text: str) -> int:
        ran_in.append(threading.get_ident())
        if len(text) > INLINE_TEXT:
            assert loop_ran.wait(timeout=10), "the event loop stood still meanwhile"
        return len(text)

    assert await run_on_text("short", analyse) == 5
    asyncio.get_running_loop().call_soon(loop_ran.set)  # runs only if the loop turns
    assert await run_on_text("x" * (INLINE_TEXT + 1), analyse) == INLINE_TEXT + 1
    assert ran_in[0] == loop_thread and ran_in[1] != loop_thread
