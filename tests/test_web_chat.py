"""The web console in a real browser: sign in with a one-time link, chat with the answer
streaming in, Off The Record and the tier shown by the mode indicator, and the walls: another
user's pages, another site's forms, another host name."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web

from bot.delivery.refusals import Refusal
from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.turn.conversation import Entry
from bot.turn.rooms import Room
from tests.browser import Console, browser_fixture, console_fixture, wait_for_answer
from tests.harness import make_persona

pytestmark = pytest.mark.asyncio(loop_scope="module")


console = console_fixture("web-chat")
browser = browser_fixture()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Any) -> AsyncIterator[Any]:
    context = await browser.new_context()
    yield await context.new_page()
    await context.close()


async def test_a_one_time_link_signs_in_once(console: Console, page: Any) -> None:
    await page.goto(f"{console.base}/")
    assert page.url == f"{console.base}/login"
    link = await console.link("scott")
    await page.goto(link)
    await console.shot(page, "login")
    await page.click("#sign-in")
    await page.wait_for_url(f"{console.base}/")
    assert "inara" in await page.inner_text("main")
    cookie = next(c for c in await page.context.cookies() if c["name"] == "personad_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    await page.goto(link)  # the same link again
    await page.click("#sign-in")
    assert "used up or expired" in await page.inner_text("main")


async def test_chat_streams_the_answer_and_the_mode_indicator_follows(
    console: Console, page: Any
) -> None:
    await console.sign_in(page, "scott")
    await page.goto(f"{console.base}/u/scott/inara/chat")
    assert await page.is_hidden("#mode")  # nothing non-default in effect: no indicator
    gate = asyncio.Event()
    console.llm.gate = gate
    text = "Good morning, Scott. The kettle is on and the day looks calm."
    console.llm.queue(text)
    await page.fill("#text", "good morning")
    await page.keyboard.press("Enter")
    answer = page.locator(".msg.persona").last
    try:
        await answer.wait_for()
        # half the answer is on the page while the model is still writing the rest
        assert (await answer.inner_text()) == text[: len(text) // 2]
    finally:
        gate.set()
    await wait_for_answer(page, text)
    assert await page.locator(".msg.user").last.inner_text() == "good morning"
    await console.shot(page, "chat")

    await page.click("#otr-toggle")
    await page.wait_for_selector("#mode-otr", state="visible")
    assert "Off The Record" in await page.inner_text("#mode")
    room = page.url.rsplit("/", 1)[1]
    assert console.daemon.router is not None
    assert console.daemon.router.otr.is_on("scott", Room("web", f"scott:inara:{room}"))
    await page.fill("#text", "a secret plan")
    await page.keyboard.press("Enter")
    await wait_for_answer(page, "echo: a secret plan")
    logs = console.data / "scott/persona/inara/sessions"
    assert "secret plan" not in "".join(p.read_text() for p in logs.glob("*.md"))
    assert "good morning" in "".join(p.read_text() for p in logs.glob("*.md"))
    await console.shot(page, "chat-otr")
    await page.click("#otr-toggle")
    await page.wait_for_selector("#mode", state="hidden")

    await page.select_option("#tier", "/tier 3")
    await page.click("form[data-tier] button")
    await page.wait_for_selector("#mode-tier", state="visible")
    assert await page.inner_text("#mode-tier") == "Tier 3"
    await page.select_option("#tier", "/tier 2")
    await page.click("form[data-tier] button")
    await page.wait_for_selector("#mode", state="hidden")


async def test_an_answer_is_rendered_markdown_and_html_in_it_is_shown_as_text(
    console: Console, page: Any
) -> None:
    await console.sign_in(page, "scott")
    await page.goto(f"{console.base}/u/scott/inara/chat")
    text = "**Tea** is ready.\n\n<script>window.pwned = 1</script>"
    console.llm.queue(text)
    await page.fill("#text", "is the tea ready?")
    await page.keyboard.press("Enter")
    answer = page.locator(".msg.persona").last
    await answer.locator("strong").wait_for()
    for _ in range(2):  # as it streamed in, then as the page renders it after a reload
        assert await answer.locator("strong").inner_text() == "Tea"
        assert "<script>window.pwned = 1</script>" in await answer.inner_text()
        assert await page.locator("#messages script").count() == 0
        assert await page.evaluate("window.pwned") is None
        await page.reload()
        answer = page.locator(".msg.persona").last


async def test_help_in_the_chat_is_a_list(console: Console, page: Any) -> None:
    await console.sign_in(page, "scott")
    await page.goto(f"{console.base}/u/scott/inara/chat")
    await page.fill("#text", "/help")
    await page.keyboard.press("Enter")
    answer = page.locator(".msg.persona").last
    await answer.locator("li").first.wait_for()
    items = await answer.locator("li").all_inner_texts()
    assert any(item.startswith("/otr") for item in items)
    assert "- /" not in await answer.inner_text()  # no list left as dashes
    await console.shot(page, "chat-help")


async def test_persona_in_a_web_chat_opens_that_personas_conversation(
    console: Console, page: Any
) -> None:
    make_persona(console.data, "scott", "tina")
    router = console.daemon.router
    assert router is not None
    await console.sign_in(page, "scott")
    await page.goto(f"{console.base}/u/scott/inara/chat")
    await page.click("#otr-toggle")
    await page.wait_for_selector("#mode-otr", state="visible")
    await page.fill("#text", "/persona tina")
    await page.keyboard.press("Enter")
    await page.wait_for_url(f"{console.base}/u/scott/tina/chat/*")
    assert await page.is_visible("#mode-otr")  # Off The Record came along
    room = Room("web", "scott:tina:" + page.url.rsplit("/", 1)[1])
    assert router.otr.is_on("scott", room)
    await page.fill("#text", "/persona")
    await page.keyboard.press("Enter")
    answer = page.locator(".msg.persona").last
    await answer.wait_for()
    assert "You are talking with tina" in await answer.inner_text()
    # the conversation changed persona; the default other platforms use did not
    assert await router.persona_for("scott") == "inara"
    assert await console.daemon.state.get_active_persona("scott") in (None, "inara")


async def test_a_message_that_cannot_be_sent_stays_in_the_box(
    console: Console, browser: Any
) -> None:
    async with console.signed_in(browser, "scott") as page:
        await page.goto(f"{console.base}/u/scott/inara/chat/lost01")
        await page.context.clear_cookies()  # signed out meanwhile (another tab, expiry)
        await page.fill("#text", "a long thought I do not want to type again")
        await page.keyboard.press("Enter")
        await page.wait_for_selector("#send-problem", state="visible")
        assert "signed out" in await page.inner_text("#send-problem")
        assert await page.input_value("#text") == "a long thought I do not want to type again"


async def test_another_user_cannot_reach_the_first_ones_pages(
    console: Console, browser: Any
) -> None:
    async with console.signed_in(browser, "holly") as page:
        for path in (
            "/u/scott/inara/chat",
            "/u/scott/inara/chat/abc123",
            "/u/scott/inara/chat/abc123/events",
            "/u/scott/inara/files",
            "/u/scott/inara/files/SOUL.md",
            "/u/scott/inara/search?q=x",
            "/u/scott/inara/memory/export",
            "/u/scott/inara/schedule",
        ):
            response = await page.goto(f"{console.base}{path}")
            assert response.status == 403, path
        await page.goto(f"{console.base}/setup/persona")  # her own page, with her token
        csrf = await page.get_attribute('meta[name="csrf"]', "content")
        response = await page.request.post(
            f"{console.base}/u/scott/inara/files/USER.md",
            form={"text": "overwritten", "csrf": csrf},
        )
        assert response.status == 403  # her own valid token opens nothing of his
        assert "overwritten" not in (console.data / "scott/persona/inara/USER.md").read_text()


async def test_a_cross_site_post_is_refused(console: Console, page: Any) -> None:
    await console.sign_in(page, "scott")
    target = f"{console.base}/u/scott/inara/chat/evil1"
    evil = web.Application()

    async def form(_request: web.Request) -> web.Response:
        return web.Response(
            content_type="text/html",
            text=f'<form id="f" method="post" action="{target}">'
            '<input name="text" value="/otr off"></form>'
            "<script>document.getElementById('f').submit()</script>",
        )

    evil.router.add_get("/", form)
    runner = web.AppRunner(evil)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with page.expect_response(target) as info:
            await page.goto(f"http://localhost:{port}/")
        assert (await info.value).status == 403
    finally:
        await runner.cleanup()
    feed = console.daemon.adapters["web"].feeds.get("scott:inara:evil1")  # type: ignore[attr-defined]
    assert feed is None or not feed.messages


async def test_requests_for_another_host_name_are_refused(console: Console) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(
            f"{console.base}/login", headers={"Host": "rebound.example:80"}
        ) as response:
            assert response.status == 403
        async with http.get(f"{console.base}/login") as response:
            assert response.status == 200
        async with http.post(f"{console.base}/u/scott/inara/chat/x1", data={"text": "hi"}) as r:
            assert r.status == 403  # no session, no CSRF token


async def test_admins_see_the_admin_page_and_run_a_distillation(
    console: Console, browser: Any
) -> None:
    # a day of sessions to distill, whatever else ran before
    sessions = SessionLog(console.data / "scott/persona/inara", "inara")
    said = Entry("user", "the fig tree needs water", datetime.now(UTC), platform="web")
    await sessions.append([LoggedTurn("scott", said)], ZoneInfo("UTC"))
    async with console.signed_in(browser, "scott") as page:
        await page.get_by_role("link", name="Admin").click()
        adapters = await page.inner_text("#adapters")
        assert "web" in adapters and "ok" in adapters
        assert "Every answer has been delivered" in await page.inner_text("#outbox")
        assert "holly" in await page.inner_text("#users")
        await page.select_option("#d-persona", "scott/inara")
        await page.select_option("#d-kind", "short")
        await page.click("#run-distill button")
        await page.wait_for_selector("#note")
        assert "refreshed" in await page.inner_text("#note")
        assert "short" in await page.inner_text("#distill")
        await console.shot(page, "admin")
    async with console.signed_in(browser, "holly") as page:
        assert await page.get_by_role("link", name="Admin").count() == 0
        response = await page.goto(f"{console.base}/admin")
        assert response.status == 403


async def test_the_admin_page_lists_answers_refused_for_good(
    console: Console, browser: Any
) -> None:
    outbox = console.daemon.outbox
    reason = "PermanentSendError: Telegram sendMessage forbidden: bot was blocked by the user"
    outbox.refused.append(
        Refusal("telegram", "4242:7", "holly", "inara", "4242", reason, 1, 0.0, time.time())
    )
    try:
        async with console.signed_in(browser, "scott") as page:
            await page.goto(f"{console.base}/admin")
            listed = await page.inner_text("#outbox")
            assert "Refused for good" in listed
            assert "telegram\t4242\tholly" in listed and "bot was blocked by the user" in listed
            assert "Every answer has been delivered" in listed  # none waits
    finally:
        outbox.refused.clear()


async def test_chat_keeps_the_conversation_and_lists_them(console: Console, page: Any) -> None:
    await console.sign_in(page, "scott")
    await page.goto(f"{console.base}/u/scott/inara/chat/new")
    first = page.url
    await page.fill("#text", "planning the garden beds")
    await page.keyboard.press("Enter")
    await wait_for_answer(page, "echo: planning the garden beds")
    await page.goto(f"{console.base}/u/scott/inara/files")
    await page.get_by_role("link", name="Chat", exact=True).click()
    await page.wait_for_load_state()
    assert page.url == first  # the conversation is still there after another page
    assert "planning the garden beds" in await page.inner_text("#messages")
    await page.click("#new-conversation")
    await page.wait_for_load_state()
    assert page.url != first and await page.locator("#messages li").count() == 0
    await page.fill("#text", "a second topic")
    await page.keyboard.press("Enter")
    await wait_for_answer(page, "echo: a second topic")
    await page.reload()
    titles = await page.locator("#conversations li a").all_inner_texts()
    assert titles[:2] == ["a second topic", "planning the garden beds"]
    await console.shot(page, "chat-conversations")
    await page.locator("#conversations li a", has_text="planning the garden beds").click()
    await page.wait_for_load_state()
    assert page.url == first
