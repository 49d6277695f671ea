"""Running the web console in a real headless browser (Debian's chromium via Playwright).

A test module starts one daemon with the console on a loopback port and one browser, shared
by its tests (``loop_scope="module"``). Without chromium or Playwright the tests skip with the
reason, unless ``PERSONAD_REQUIRE_BROWSER`` is set (CI sets it), when they fail instead.
Screenshots go to ``$PERSONAD_SCREENSHOTS`` (``docs/img`` for the README's pictures), else to
a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.daemon import Daemon
from bot.llm.base import Completion, Message, SystemPrompt, TextSink, ToolSpec
from bot.web.auth import WebStore
from tests.harness import RecordedCall, ScriptedLLM, make_config, make_persona

__all__ = ["BROWSER_ARGS", "Console", "GatedLLM", "launch_browser", "start_console"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("PERSONAD_REQUIRE_BROWSER"):
        pytest.fail(f"{reason}, and PERSONAD_REQUIRE_BROWSER is set")
    pytest.skip(f"{reason}: browser tests skipped (install chromium and playwright)")


@dataclass
class GatedLLM(ScriptedLLM):
    """A scripted model that can hold an answer half-written until the test releases it."""

    gate: asyncio.Event | None = None

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        gate, self.gate = self.gate, None
        if gate is None or on_text is None or not self._queue:
            return await super().complete(
                system=system, messages=messages, tools=tools, max_tokens=max_tokens,
                on_text=on_text,
            )
        completion = self._queue.popleft()
        assert isinstance(completion, Completion)
        self.calls.append(RecordedCall(system, list(messages), list(tools)))
        half = len(completion.text) // 2
        await on_text(completion.text[:half])
        await gate.wait()
        await on_text(completion.text[half:])
        return completion


@dataclass
class Console:
    daemon: Daemon
    data: Path
    llm: GatedLLM
    shots: Path
    base: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    async def link(self, user: str) -> str:
        token = await WebStore(self.daemon.state).issue_login(user)
        return f"{self.base}/login?token={token}"

    async def sign_in(self, page: Any, user: str) -> None:
        await page.goto(await self.link(user))
        await page.click("#sign-in")
        await page.wait_for_url(lambda url: "/login" not in url)

    async def shot(self, page: Any, name: str) -> None:
        await page.screenshot(path=str(self.shots / f"{name}.png"), full_page=True)


async def start_console(
    data: Path, *, users: dict[str, dict[str, Any]] | None = None
) -> AsyncIterator[Console]:
    make_persona(data, "scott")
    config = make_config(
        data, users=users, memory_backend="sqlite-fts5",
        extra={"http": {"enabled": True, "port": 0}},
    )
    llm = GatedLLM()
    daemon = Daemon(config, backends={"scripted": llm}, env={}, jobs=False)
    await daemon.start()
    shots = Path(os.environ.get("PERSONAD_SCREENSHOTS") or tempfile.mkdtemp(prefix="shots-"))
    shots.mkdir(parents=True, exist_ok=True)
    console = Console(daemon, data, llm, shots, base=f"http://127.0.0.1:{daemon.http_port}")
    try:
        yield console
    finally:
        await daemon.stop()


async def launch_browser() -> AsyncIterator[Any]:
    if not Path(CHROMIUM).exists():
        _unavailable("chromium is not installed")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            await browser.close()
