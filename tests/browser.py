"""Running the web console in a real headless browser (Debian's chromium via Playwright).

A test module starts one daemon with the console on a loopback port and one browser, shared
by its tests (``loop_scope="module"``). Without chromium or Playwright the tests skip with the
reason, unless ``PERSONAD_REQUIRE_BROWSER`` is set (CI sets it), when they fail instead.
Screenshots go to ``$PERSONAD_SCREENSHOTS`` (``docs/img`` for the README's pictures), else to
a temporary folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.daemon.daemon import Daemon
from bot.llm.base import Completion, Message, SystemPrompt, TextSink, ToolSpec
from bot.web.auth import WebStore
from tests.harness import RecordedCall, ScriptedLLM, make_config, make_persona

__all__ = [
    "BROWSER_ARGS",
    "Console",
    "GatedLLM",
    "browser_fixture",
    "console_fixture",
    "launch_browser",
    "page_fixture",
    "start_console",
    "wait_for_answer",
]

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
                system=system,
                messages=messages,
                tools=tools,
                max_tokens=max_tokens,
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

    @contextlib.asynccontextmanager
    async def signed_in(self, browser: Any, user: str, **options: Any) -> AsyncIterator[Any]:
        """A page of a fresh browser context, signed in as ``user``."""
        context = await browser.new_context(**options)
        try:
            page = await context.new_page()
            await self.sign_in(page, user)
            yield page
        finally:
            await context.close()


async def wait_for_answer(page: Any, text: str) -> None:
    """Wait until a message of the persona reads exactly ``text``."""
    await page.wait_for_function(
        "text => [...document.querySelectorAll('.msg.persona')].some(m => m.textContent === text)",
        arg=text,
    )


async def start_console(
    data: Path,
    *,
    users: dict[str, dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> AsyncIterator[Console]:
    """The daemon with the console; ``extra`` is more config (sections, as make_config's)."""
    make_persona(data, "scott")
    config = make_config(
        data,
        users=users,
        memory_backend="sqlite-fts5",
        extra={"http": {"enabled": True, "port": 0}, **(extra or {})},
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


async def launch_browser(*, args: Sequence[str] = ()) -> AsyncIterator[Any]:
    if not Path(CHROMIUM).exists():
        _unavailable("chromium is not installed")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*BROWSER_ARGS, *args]
        )
        try:
            yield browser
        finally:
            await browser.close()


def console_fixture(name: str) -> Any:
    """A module's daemon with the console (``console = console_fixture("web-x")``)."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
        async for running in start_console(tmp_path_factory.mktemp(name)):
            yield running

    return console


def browser_fixture() -> Any:
    """A module's one browser (``browser = browser_fixture()``)."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def browser() -> AsyncIterator[Any]:
        async for running in launch_browser():
            yield running

    return browser


def page_fixture(user: str | None = None, *, path: str = "", **options: Any) -> Any:
    """A module's page, signed in as ``user`` and opened at ``path`` when given."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def page(console: Console, browser: Any) -> AsyncIterator[Any]:
        context = await browser.new_context(**options)
        opened = await context.new_page()
        if user:
            await console.sign_in(opened, user)
        if path:
            await opened.goto(console.base + path)
        yield opened
        await context.close()

    return page
