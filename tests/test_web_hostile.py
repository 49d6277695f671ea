"""Hostile values in a real browser: whatever a stranger can get into the console (a chat
message, a model's answer repeating a web page, a file's name, a persona file, a memory, a
search term, a room's name, a platform's error) is shown as the characters it is, on every
page that shows it: no element is made of it, no script runs, no link leads to a script.
The same attacks without a browser are in tests/test_web_hostile_http.py."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio

from bot.delivery.refusals import Refusal
from bot.persona.edits import edit_file
from bot.tools.crons.tools import cron_tools
from bot.tools.tasks import task_tools
from bot.turn.audience import room_folder, room_note
from tests.browser import Console, browser_fixture, console_fixture, page_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

console = console_fixture("web-hostile")
browser = browser_fixture()
page = page_fixture("scott")

#: each part would set ``window.pwned`` if the page ran it
HOSTILE = (
    '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    '<svg onload="window.pwned=3"> <a href="javascript:window.pwned=4">a</a> "\'><b>x</b>'
)
#: the same as markdown a model may write: links that run, an image, a reference
HOSTILE_MARKDOWN = (
    f"{HOSTILE}\n\n[click](javascript:window.pwned=5) ![pic](x)"
    ' [ref][r] <http://a" onmouseover="window.pwned=6>\n\n[r]: javascript:window.pwned=7'
)
ROOM = 'matrix:!<img src=x onerror="window.pwned=8">:example.org'

#: what a page holds that text alone could not have made, and links that go nowhere safe
_INJECTED = """() => {
  const made = document.querySelectorAll(
    "main script, main img, main svg, main iframe, main object, main embed, main form b,"
    + " [onerror], [onload], [onclick], [onmouseover], script:not([src='/static/console.js'])");
  const links = [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href"))
    .filter(href => !/^(\\/|\\?|#|https?:|mailto:)/i.test(href));
  return {pwned: window.pwned ?? null, made: made.length, links: links};
}"""


async def _clean(page: Any, where: str) -> None:
    found = await page.evaluate(_INJECTED)
    assert found == {"pwned": None, "made": 0, "links": []}, where


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def hostile(console: Console) -> AsyncIterator[dict[str, str]]:
    """Hostile values put everywhere the console reads from; the addresses of some."""
    daemon, store = console.daemon, console.daemon.store
    await edit_file(store, "scott", "inara", "USER.md", f"# About Scott\n\n{HOSTILE}\n", by="scott")
    await store.write("scott", "inara", "HELP.md", HOSTILE_MARKDOWN)
    folder = console.data / "scott/persona/inara" / room_folder(ROOM)
    folder.mkdir(parents=True)
    (folder / "ROOM.md").write_text(room_note(ROOM))
    (folder / "MEMORY_SHORT.md").write_text(HOSTILE)
    store.invalidate()
    zone, clock = daemon.config.users["scott"].zone, daemon.clock
    tasks = {t.name: t for t in task_tools(store, "scott", "inara", zone, clock)}
    await tasks["task_add"].handler({"title": HOSTILE})
    crons = {t.name: t for t in cron_tools(store, "scott", "inara", zone, clock)}
    await crons["cron_add"].handler({"schedule": "0 7 * * 1", "prompt": HOSTILE})
    reminders = console.data / "scott/persona/inara/REMINDERS.md"
    reminders.write_text(f"- [ ] 2030-03-04 09:30 {HOSTILE}\n")
    assert daemon.sessions is not None
    memory = (await daemon.sessions.get("scott", "inara")).memory
    assert memory is not None
    added = await memory.add(f"pwned {HOSTILE}", source=HOSTILE, category="fact", force=True)
    daemon.outbox.refused.append(
        Refusal("matrix", "e1", "scott", "inara", ROOM, HOSTILE, 1, 0.0, time.time())
    )
    yield {"memory": str(added.item_id), "room": quote(room_folder(ROOM))}
    daemon.outbox.refused.clear()


async def test_a_hostile_message_its_file_and_the_answer_stay_text_in_the_chat(
    console: Console, page: Any
) -> None:
    dialogs: list[str] = []

    def seen(dialog: Any) -> None:
        dialogs.append(dialog.message)

    page.on("dialog", seen)
    await page.goto(f"{console.base}/u/scott/inara/chat/hostile1")
    console.llm.queue(HOSTILE_MARKDOWN)
    name = '<img src=x onerror="window.pwned=9">.txt'
    await page.set_input_files(
        "#file", files=[{"name": name, "mimeType": "text/plain", "buffer": b"a note"}]
    )
    await page.fill("#text", HOSTILE)
    await page.keyboard.press("Enter")
    await page.locator(".msg.persona").last.locator("span").first.wait_for()
    for when in ("as it streamed in", "after a reload"):
        mine = await page.locator(".msg.user").last.inner_text()
        assert HOSTILE in mine and "📎 <img src=x onerror=" in mine, when  # browsers send " as %22
        answer = page.locator(".msg.persona").last
        assert HOSTILE in await answer.inner_text(), when
        assert await answer.locator("a").count() == 1  # only the http link, its quote kept
        await _clean(page, when)
        await page.reload()
        await page.locator(".msg.persona", has_text="window.pwned=1").last.wait_for()
    titles = await page.locator("#conversations a").all_inner_texts()
    assert any(title.startswith('<img src=x onerror="window.pwned=1">') for title in titles)
    page.remove_listener("dialog", seen)
    assert not dialogs


@pytest.mark.parametrize(
    "path",
    [
        "/u/scott/inara/files",
        "/u/scott/inara/files/USER.md",
        "/u/scott/inara/files/HELP.md",
        "/u/scott/inara/files/{room}/MEMORY_SHORT.md",
        "/u/scott/inara/search?q=pwned",
        "/u/scott/inara/search?in=memory&q=pwned",
        "/u/scott/inara/search?in=memory&q=" + quote(HOSTILE),
        "/u/scott/inara/memory/{memory}?q=" + quote(HOSTILE),
        "/u/scott/inara/search?q=" + quote(HOSTILE),
        "/u/scott/inara/schedule",
        "/admin",
        "/login?token=" + quote(HOSTILE),
    ],
)
async def test_hostile_values_are_shown_as_text_on_every_page(
    console: Console, page: Any, hostile: dict[str, str], path: str
) -> None:
    dialogs: list[str] = []

    def seen(dialog: Any) -> None:
        dialogs.append(dialog.message)

    page.on("dialog", seen)
    response = await page.goto(console.base + path.format(**hostile))
    assert response is not None and response.status == 200, path
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe" not in policy
    assert response.headers["x-frame-options"] == "DENY"
    await _clean(page, path)
    shown = await page.inner_text("main")
    if "/files/" in path:
        assert HOSTILE in await page.input_value("#text")  # the whole text, none of it run
    elif "token=" in path:
        assert await page.input_value("input[name=token]") == HOSTILE
    elif "q=pwned" in path or "/memory/" in path:
        assert "onerror=" in shown  # the hit is there, as text
    elif "q=" in path:
        assert await page.input_value("#q") == HOSTILE
    else:
        assert HOSTILE in shown or ROOM in shown, path
    page.remove_listener("dialog", seen)
    assert not dialogs


async def test_a_hostile_persona_name_is_refused_in_words(console: Console, page: Any) -> None:
    await page.goto(f"{console.base}/setup/persona")
    await page.evaluate("document.getElementById('name').removeAttribute('pattern')")
    await page.fill("#name", '<img src=x onerror="window.pwned=1">')
    await page.click("#create")
    await page.wait_for_selector("#problem")
    await _clean(page, "setup")
    assert "<img src=x" in await page.inner_text("#problem")
    assert sorted(p.name for p in (console.data / "scott/persona").iterdir()) == ["inara"]
