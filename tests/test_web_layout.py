"""Every page of the console at phone width and by keyboard: nothing wider than the screen,
the skip link first in the tab order, a visible focus ring, and Enter sending a message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.browser import Console, browser_fixture, console_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

console = console_fixture("web-layout")
browser = browser_fixture()

PHONE = {"width": 360, "height": 740}
LONG = "A table and a long line:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n" + "x" * 300 + "\n```"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def phone(console: Console, browser: Any) -> AsyncIterator[Any]:
    """A phone-sized page, signed in, with a conversation, a task, a job and a memory."""
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = await context.new_page()
    await console.sign_in(page, "scott")
    inara = console.data / "scott/persona/inara"
    (inara / "TASKS.json").write_text(
        json.dumps([{"id": 1, "title": "Renew the passport " * 5, "status": "open"}])
    )
    (inara / "CRONS.json").write_text(
        json.dumps([{"id": 1, "schedule": "0 7 * * 1-5", "prompt": "Brief me. " * 20}])
    )
    (inara / "sessions/2026-11-28.md").write_text(
        "### 10:00:00 · user · scott · web\n\nBook the cafe table for the trip.\n"
    )
    assert console.daemon.sessions is not None
    session = await console.daemon.sessions.get("scott", "inara")
    assert session.memory is not None
    await session.memory.add("Scott takes his coffee black", source="t", force=True)
    yield page
    await context.close()


PAGES = [
    "/",
    "/u/scott/inara/chat/phone1",
    "/u/scott/inara/files",
    "/u/scott/inara/files/USER.md",
    "/u/scott/inara/search?q=cafe",
    "/u/scott/inara/search?in=memory&q=coffee",
    "/u/scott/inara/memory/1?q=coffee",
    "/u/scott/inara/schedule",
    "/setup/persona",
    "/admin",
]


async def test_a_chat_with_wide_content_fits_a_phone(console: Console, phone: Any) -> None:
    await phone.goto(f"{console.base}/u/scott/inara/chat/phone1")
    console.llm.queue(LONG)
    await phone.fill("#text", "show me something wide")
    await phone.keyboard.press("Enter")  # Enter sends
    await phone.locator(".msg.persona pre").wait_for()
    await phone.locator(".msg.persona table").wait_for()
    assert await phone.input_value("#text") == ""
    await console.shot(phone, "phone-chat")


@pytest.mark.parametrize("path", PAGES)
async def test_every_page_fits_a_phone(console: Console, phone: Any, path: str) -> None:
    response = await phone.goto(console.base + path)
    assert response.status == 200
    overflow = await phone.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{path} is {overflow}px wider than the screen"
    await console.shot(phone, "phone" + path.replace("/", "-").split("?")[0])


# a conversation of its own: the phone test above fills phone1 with long content
KEYBOARD_PAGES = [page.replace("chat/phone1", "chat/keys1") for page in PAGES]


@pytest.mark.parametrize("path", KEYBOARD_PAGES)
async def test_keyboard_skip_link_first_and_focus_visible(
    console: Console, phone: Any, path: str
) -> None:
    await phone.goto(console.base + path)
    # a loaded machine may still be laying the page out: keys go in once it is complete
    await _settles(phone, "() => document.readyState", "complete")
    await phone.keyboard.press("Tab")
    await _settles(phone, "() => document.activeElement.textContent", "Skip to content")
    await phone.keyboard.press("Enter")
    await phone.keyboard.press("Tab")  # the first control of the page's own content
    focused = """() => {
        const e = document.activeElement;
        return {inMain: !!e.closest('main'), ring: getComputedStyle(e).outlineStyle};
    }"""
    await _settles(phone, focused, {"inMain": True, "ring": "solid"})


async def _settles(page: Any, script: str, expected: object) -> None:
    """``script`` evaluates to ``expected`` within a few seconds (the page's CSP forbids the
    string evaluation ``wait_for_function`` uses)."""
    found: object = None
    for _ in range(100):
        found = await page.evaluate(script)
        if found == expected:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{found!r} != {expected!r}")
