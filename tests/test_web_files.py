"""The Files panel and its search box in a real browser: sizes against limits, editing with
the changelog and Undo, SOUL.md behind a confirmation, session search by date with the
matched words marked (and escaped), and the memory tab."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.persona.identity.changelog import pending_changes, read_changes
from bot.turn.audience import room_folder, room_note
from tests.browser import Console, browser_fixture, console_fixture, page_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")


console = console_fixture("web-files")
browser = browser_fixture()
page = page_fixture("scott")


async def test_every_file_is_listed_with_its_size_against_its_limit(
    console: Console, page: Any
) -> None:
    persona = console.data / "scott/persona/inara"
    (persona / "AGENTS.md").write_text("a" * 3500)  # limit 4000: near it
    (persona / "SCRATCH.md").write_text("b" * 4100)  # over it
    help_md = persona / "HELP.md"
    help_md.write_text(
        help_md.read_text()
        + "\n<img src=x onerror=alert(1)> **bold**\n\nTry `a < b` or [this](javascript:alert(2)).\n"
    )
    console.daemon.store.invalidate()
    await page.goto(f"{console.base}/u/scott/inara/files")
    rows = await page.locator("#files tbody tr").count()
    assert rows == 19  # the persona's 17, then shared/USER.md and shared/MEMORY.md
    assert await page.get_attribute("meter[aria-label^='AGENTS.md']", "data-level") == "near"
    assert await page.get_attribute("meter[aria-label^='SCRATCH.md']", "data-level") == "over"
    assert await page.get_attribute("meter[aria-label^='SOUL.md']", "data-level") == "ok"
    assert "3,500 / 4,000" in await page.inner_text("#files")
    assert "Talking with Inara" in await page.inner_text("#help")  # HELP.md after the commands
    shown = await page.inner_text("#help")
    assert shown.index("/otr") < shown.index("Talking with Inara")
    assert "<img src=x onerror=alert(1)>" in shown  # shown as typed, never run
    assert await page.locator("#help img").count() == 0
    assert await page.locator("#help strong", has_text="bold").count() == 1
    assert await page.locator("#help code", has_text="a < b").count() == 1  # escaped once
    assert await page.locator("#help a[href^='javascript']").count() == 0
    await console.shot(page, "files")


async def test_an_edit_is_logged_and_undone(console: Console, page: Any) -> None:
    voice = console.data / "scott/persona/inara/VOICE.md"
    before = voice.read_text()
    await page.goto(f"{console.base}/u/scott/inara/files/VOICE.md")
    await page.fill("#text", before + "- Answers in haiku on Fridays.\n")
    await page.click("#save")
    await page.wait_for_selector("#saved")
    assert voice.read_text().endswith("haiku on Fridays.\n")
    await console.shot(page, "file-edit")

    await page.goto(f"{console.base}/u/scott/inara/files")
    entry = page.locator("#changelog li.change").first
    assert "VOICE.md" in await entry.inner_text()
    assert "edited by scott" in await entry.inner_text()
    # what the entry changed is there to read before Undo
    await entry.locator("details.diff summary").click()
    added = await entry.locator("details.diff .add").all_inner_texts()
    assert added == ["+ - Answers in haiku on Fridays."]
    assert await entry.locator("details.diff .del").count() == 0
    await console.shot(page, "changelog-diff")
    # a chat's /undo reverts only what the persona changed on its own
    changes = await read_changes(console.daemon.store, "scott", "inara")
    assert pending_changes(changes) == []
    await entry.get_by_role("button", name="Undo").click()
    await page.wait_for_selector("#note")
    assert "Undone" in await page.inner_text("#note")
    assert voice.read_text() == before
    assert "undo of change" in await page.locator("#changelog li.change").first.inner_text()
    assert await page.locator("#changelog li.change button").count() == 0


async def test_soul_needs_a_confirmation_and_bad_json_is_refused(
    console: Console, page: Any
) -> None:
    soul = console.data / "scott/persona/inara/SOUL.md"
    before = soul.read_text()
    await page.goto(f"{console.base}/u/scott/inara/files/SOUL.md")
    await page.fill("#text", "Values: none.")
    await page.click("#save")
    await page.wait_for_selector("#problem")
    assert soul.read_text() == before
    assert await page.input_value("#text") == "Values: none."  # nothing typed is lost
    await page.check("#confirm")
    await page.click("#save")
    await page.wait_for_selector("#saved")
    assert soul.read_text() == "Values: none."

    await page.goto(f"{console.base}/u/scott/inara/files/TASKS.json")
    await page.fill("#text", "[{broken")
    await page.click("#save")
    await page.wait_for_selector("#problem")
    assert json.loads((console.data / "scott/persona/inara/TASKS.json").read_text()) == []


async def test_session_search_groups_by_date_and_marks_the_words(
    console: Console, page: Any
) -> None:
    sessions = console.data / "scott/persona/inara/sessions"
    (sessions / "2026-11-27.md").write_text(
        "### 09:00:00 · user · scott · web\n\nThe Café <b>trip</b> is on Friday.\n"
    )
    (sessions / "2026-11-28.md").write_text(
        "### 10:00:00 · user · scott · web\n\nBook the cafe table for the trip.\n"
    )
    await page.goto(f"{console.base}/u/scott/inara/files")
    await page.fill("#q", "cafe table")
    await page.press("#q", "Enter")
    await page.wait_for_selector("#results h2")
    headings = await page.locator("#results h2").all_inner_texts()
    assert headings == ["Saturday 28 November 2026"]
    await page.fill("#q", "café")
    await page.press("#q", "Enter")
    await page.wait_for_function("document.querySelectorAll('#results h2').length == 2")
    assert await page.locator("#results h2").all_inner_texts() == [
        "Saturday 28 November 2026",
        "Friday 27 November 2026",
    ]
    assert await page.locator("#results mark").all_inner_texts() == ["cafe", "Café"]
    assert "<b>trip</b>" in await page.inner_text("#results")  # shown as text, not markup
    assert await page.locator("#results b").count() == 0
    await console.shot(page, "search")
    # inflections match and are marked as whole words; every word of the query is required
    await page.fill("#q", "trips friday")
    await page.press("#q", "Enter")
    await page.wait_for_function("document.querySelectorAll('#results h2').length == 1")
    assert await page.locator("#results h2").all_inner_texts() == ["Friday 27 November 2026"]
    assert await page.locator("#results mark").all_inner_texts() == ["trip", "Friday"]
    excerpt = await page.inner_text("#results li.excerpt")
    assert excerpt == "The Café <b>trip</b> is on Friday."  # no ellipsis: nothing was cut
    await page.get_by_role("link", name="Memories", exact=True).click()  # the same words
    await page.wait_for_url("**in=memory")
    assert await page.input_value("#q") == "trips friday"


async def test_memory_tab_explains_forgets_and_exports(console: Console, page: Any) -> None:
    assert console.daemon.sessions is not None
    session = await console.daemon.sessions.get("scott", "inara")
    assert session.memory is not None
    added = await session.memory.add(
        "Scott takes his coffee black", source="test", category="preference", force=True
    )
    await session.memory.add(
        "Scott's cat Miso sleeps through every vacation", source="test", category="fact", force=True
    )
    await page.goto(f"{console.base}/u/scott/inara/search?in=memory&q=cat")
    cat = page.locator("#results li.memory").first
    assert "Miso" in await cat.inner_text()
    assert await cat.locator("mark").all_inner_texts() == ["cat"]  # whole words, not va-cat-ion
    await page.goto(f"{console.base}/u/scott/inara/search?in=memory&q=coffee")
    hit = page.locator("#results li.memory").first
    assert "[preference · test · " in await hit.locator(".citation").inner_text()
    assert await hit.locator("mark").all_inner_texts() == ["coffee"]
    score = await hit.locator(".score").inner_text()
    # how strong a match, and what it is made of, in words
    assert score.startswith("100% match:") and "words in common" in score
    await hit.get_by_role("link", name="Explain").click()
    assert "coffee black" in await page.inner_text("#explain")
    assert "Why it scored" in await page.inner_text("main")
    assert await page.locator("#score tr").count() >= 2
    await console.shot(page, "memory-explain")
    await page.click("#forget")
    # nothing is forgotten before its user has seen what and said yes
    assert "coffee black" in await page.inner_text("#forget-text")
    items = await session.memory.export()
    assert next(i for i in items if i["id"] == added.item_id)["status"] == "active"
    await console.shot(page, "memory-forget")
    await page.click("#forget-confirm")
    await page.wait_for_selector("#note")
    items = await session.memory.export()
    assert next(i for i in items if i["id"] == added.item_id)["status"] == "forgotten"
    response = await page.request.get(f"{console.base}/u/scott/inara/memory/export")
    assert response.ok
    assert any(i["id"] == added.item_id for i in (await response.json())["items"])


async def test_what_every_room_knows_is_seen_and_edited_here(console: Console, page: Any) -> None:
    persona = console.data / "scott/persona/inara"
    family = persona / room_folder("nctalk:family")
    family.mkdir(parents=True)
    (family / "ROOM.md").write_text(room_note("nctalk:family"))
    (family / "MEMORY_SHORT.md").write_text("# Recent sessions\n\nthe picnic at Larkspur\n")
    console.daemon.store.invalidate()
    await page.goto(f"{console.base}/u/scott/inara/files")
    listing = await page.inner_text("#files")
    assert "shared/USER.md (shared with every room)" in listing
    assert "rooms/nctalk-family/MEMORY_SHORT.md (room nctalk:family)" in listing
    assert "rooms/nctalk-family/SCRATCH.md" not in listing  # not written yet
    assert "only your direct conversations read them" in await page.inner_text("#audiences")
    await page.click("a[href$='/files/shared/USER.md']")
    await page.fill("#text", "# Shared with every room\n\n- I grew up in Saffronhill.\n")
    await page.click("#save")
    await page.wait_for_selector("#saved")
    assert "Saffronhill" in (persona / "shared" / "USER.md").read_text()
    await page.goto(f"{console.base}/u/scott/inara/files/rooms/nctalk-family/MEMORY_SHORT.md")
    assert "Larkspur" in await page.input_value("#text")
    for bad in ("rooms/nctalk-family/ROOM.md", "shared/SOUL.md", "rooms/x/USER.md"):
        response = await page.goto(f"{console.base}/u/scott/inara/files/{bad}")
        assert response is not None and response.status == 404, bad


async def test_the_editor_saves_the_whole_file_however_long(console: Console, page: Any) -> None:
    user_md = console.data / "scott/persona/inara/USER.md"
    original = "# About scott\n\n" + "".join(f"- note {n}: {'x' * 40}\n" for n in range(500))
    assert len(original) > 4 * 4000 + 4  # past what the prompt's limit can use
    user_md.write_text(original)
    console.daemon.store.invalidate()  # as after a restart
    await page.goto(f"{console.base}/u/scott/inara/files/USER.md")
    assert await page.input_value("#text") == original
    await page.fill("#text", original + "- one more line\n")
    await page.click("#save")
    await page.wait_for_selector("#saved")
    assert user_md.read_text() == original + "- one more line\n"
    await page.goto(f"{console.base}/u/scott/inara/files")
    await page.locator("#changelog li.change").first.get_by_role("button", name="Undo").click()
    await page.wait_for_selector("#note")
    assert user_md.read_text() == original
