"""The console as a daily user meets it, in a real browser: a private page is never shown
again from the browser's cache after signing out; a body that is not a form is a clean 400
(a JSON body nested too deep: tests/test_strict_input.py); a page says only what the server
said; a failed Add keeps what was typed and looks like an error; search is in the header;
every page has an icon."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from structlog.testing import capture_logs

from tests.browser import Console, browser_fixture, console_fixture, page_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

console = console_fixture("web-everyday")
browser = browser_fixture()
page = page_fixture("scott")


def _post(url: str, body: bytes, content_type: str, **headers: str) -> tuple[int, str]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": content_type, **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def test_a_private_page_is_gone_after_signing_out_even_with_back(
    console: Console, browser: Any
) -> None:
    async with console.signed_in(browser, "scott") as own:
        response = await own.goto(f"{console.base}/u/scott/inara/files")
        assert response is not None and response.headers.get("cache-control") == "no-store"
        assert await own.locator("#files").count() == 1
        await own.get_by_role("button", name="Sign out scott").click()
        await own.wait_for_url(lambda url: "/login" in url)
        await own.go_back()
        await own.wait_for_load_state()
        # the browser asked again and was sent away, instead of showing its copy
        assert await own.locator("#files").count() == 0
        assert "/login" in own.url


async def test_bodies_that_are_not_forms_or_json_are_a_clean_400(console: Console) -> None:
    with capture_logs() as logs:
        status, text = await _run(
            _post,
            f"{console.base}/login",
            b"--xx\r\ngarbage",
            "multipart/form-data; boundary=xx",
        )
    assert status == 400 and "could not be read" in text
    assert not [entry for entry in logs if entry.get("log_level") in ("error", "critical")]


async def _run(function: Any, *args: Any, **kwargs: Any) -> Any:
    import asyncio

    return await asyncio.to_thread(function, *args, **kwargs)


async def test_a_page_says_only_what_the_server_said(console: Console, page: Any) -> None:
    await page.goto(f"{console.base}/u/scott/inara/files?note=Your+account+is+locked.+Call+us")
    assert await page.locator("#note").count() == 0
    assert "account is locked" not in await page.inner_text("main")


async def test_a_failed_add_keeps_what_was_typed_and_reads_as_an_error(
    console: Console, page: Any
) -> None:
    await page.goto(f"{console.base}/u/scott/inara/schedule")
    await page.fill("#c-schedule", "every morning please")
    await page.fill("#c-prompt", "a short briefing about the weather")
    await page.click("#add-cron button")
    await page.wait_for_selector("#note")
    note = page.locator("#note")
    assert await note.get_attribute("class") == "error"
    assert await note.get_attribute("role") == "alert"
    assert "Nothing was changed" in await note.inner_text()
    assert "Traceback" not in await note.inner_text() and "literal" not in await note.inner_text()
    assert await page.input_value("#c-schedule") == "every morning please"
    assert await page.input_value("#c-prompt") == "a short briefing about the weather"
    assert not json.loads((console.data / "scott/persona/inara/CRONS.json").read_text() or "[]")
    await console.shot(page, "schedule-error")
    # a note is shown once: the next page says nothing
    await page.goto(f"{console.base}/u/scott/inara/schedule")
    assert await page.locator("#note").count() == 0


async def test_search_is_in_the_header_and_every_page_has_an_icon(
    console: Console, page: Any
) -> None:
    await page.goto(f"{console.base}/u/scott/inara/schedule")
    await page.fill("#top-search", "dentist")
    await page.press("#top-search", "Enter")
    await page.wait_for_url(lambda url: "/search?q=dentist" in url)
    icon = await page.goto(f"{console.base}/favicon.ico")
    assert icon is not None and icon.status == 200
    assert "svg" in (icon.headers.get("content-type") or "")
