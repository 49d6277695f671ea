"""The web console against a hostile client, without a browser: what every response says of
itself, guesses at a password sent all at once, addresses that try to leave the persona's
folder, a persona file that is a symbolic link, and a session that must end when it should.
What a page does with a hostile value is in tests/test_web_hostile.py."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio
from yarl import URL

from bot.web.guard import COOKIE
from bot.web.login import MAX_FAILURES
from bot.web.passwords import hash_password
from tests.browser import Console, start_console

pytestmark = pytest.mark.asyncio(loop_scope="module")

PASSWORD = "a long and right password"
SECRET = "the neighbour's secret"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    users = {
        "scott": {"identities": [], "admin": True},
        "holly": {"identities": [], "web_password": hash_password(PASSWORD)},
    }
    async for running in start_console(tmp_path_factory.mktemp("web-hostile-http"), users=users):
        yield running


async def _signed_in(console: Console, http: aiohttp.ClientSession) -> str:
    """Sign ``http`` in as scott; the session's CSRF token."""
    link = await console.link("scott")
    token = link.split("token=", 1)[1]
    async with http.post(f"{console.base}/login", data={"token": token}) as response:
        page = await response.text()
    found = re.search(r'<meta name="csrf" content="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def _jar() -> aiohttp.CookieJar:
    return aiohttp.CookieJar(unsafe=True)


async def test_no_response_names_the_server_software_or_its_version(console: Console) -> None:
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        await _signed_in(console, http)
        for path in ("/login", "/", "/static/console.css", "/u/scott/nobody/files", "/status"):
            async with http.get(f"{console.base}{path}", allow_redirects=False) as response:
                server = response.headers.get("Server", "")
                assert "aiohttp" not in server and "Python" not in server, (path, server)
                assert not re.search(r"\d", server), (path, server)


async def test_error_pages_are_framed_by_nobody_and_never_sniffed(console: Console) -> None:
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        await _signed_in(console, http)
        for path, status in (
            ("/u/scott/nobody/files", 404),
            ("/u/holly/inara/files", 403),
            ("/u/scott/inara/files/NOT-A-FILE.md", 404),
            ("/u/scott/inara/memory/no-such-item", 404),
        ):
            async with http.get(f"{console.base}{path}", allow_redirects=False) as response:
                assert response.status == status, path
                headers = response.headers
                assert headers.get("X-Frame-Options") == "DENY", path
                assert headers.get("X-Content-Type-Options") == "nosniff", path
                assert "frame-ancestors 'none'" in headers.get("Content-Security-Policy", ""), path
                assert headers.get("Cache-Control") == "no-store", path


async def test_guesses_sent_all_at_once_are_paused_like_guesses_one_by_one(
    console: Console,
) -> None:
    async with aiohttp.ClientSession() as http:

        async def guess(number: int) -> str:
            form = {"user": "holly", "password": f"guess {number}"}
            async with http.post(f"{console.base}/login", data=form) as response:
                return await response.text()

        answers = await asyncio.gather(*(guess(n) for n in range(3 * MAX_FAILURES)))
    tried = [a for a in answers if "Wrong user name or password" in a]
    assert len(tried) == MAX_FAILURES
    assert all("Too many wrong passwords" in a for a in answers if a not in tried)


async def test_files_outside_the_persona_cannot_be_reached_by_address(console: Console) -> None:
    (console.data / "secret.md").write_text(SECRET)
    neighbour = console.data / "holly" / "persona" / "inara"
    neighbour.mkdir(parents=True)
    (neighbour / "USER.md").write_text(SECRET)
    files = "/u/scott/inara/files/"
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        await _signed_in(console, http)
        for path in (
            files + "..%2F..%2F..%2Fsecret.md",
            files + "%2E%2E%2F%2E%2E%2F%2E%2E%2Fsecret.md",
            files + "%2Fetc%2Fpasswd",
            files + "shared%2F..%2F..%2F..%2F..%2Fholly%2Fpersona%2Finara%2FUSER.md",
            files + "rooms/..%2F..%2F..%2F..%2Fholly/USER.md",
            files + "rooms/%2e%2e/%2e%2e/%2e%2e/%2e%2e/holly/persona/inara/USER.md",
            files + "rooms/matrix-%252e%252e/USER.md",
            "/u/scott/..%2F..%2Fholly%2Fpersona%2Finara/files/USER.md",
            "/u/scott/%2e%2e/files/USER.md",
            "/static/..%2F..%2F..%2F..%2Fsecret.md",
        ):
            async with http.get(f"{console.base}{path}", allow_redirects=False) as response:
                assert SECRET not in await response.text(), path
                assert response.status in (302, 303, 403, 404, 503), (path, response.status)


async def test_a_persona_file_that_is_a_link_elsewhere_is_neither_read_nor_written_through(
    console: Console,
) -> None:
    outside = console.data / "elsewhere.md"
    outside.write_text(SECRET)
    notes = console.data / "scott" / "persona" / "inara" / "MEMORY.md"
    kept = notes.read_text()
    notes.unlink()
    notes.symlink_to(outside)
    console.daemon.store.invalidate()
    try:
        async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
            csrf = await _signed_in(console, http)
            address = f"{console.base}/u/scott/inara/files/MEMORY.md"
            async with http.get(address) as response:
                assert SECRET not in await response.text()
            async with http.post(address, data={"csrf": csrf, "text": "written"}) as response:
                await response.read()
        assert outside.read_text() == SECRET
    finally:
        notes.unlink(missing_ok=True)
        notes.write_text(kept)
        console.daemon.store.invalidate()


async def test_signing_in_starts_a_new_session_and_signing_out_ends_it(console: Console) -> None:
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        planted = "a-session-id-someone-else-chose"
        http.cookie_jar.update_cookies({COOKIE: planted}, URL(console.base))
        token = (await console.link("scott")).split("token=", 1)[1]
        async with http.post(
            f"{console.base}/login?next=https://evil.example/",
            data={"token": token, "next": "https://evil.example/"},
            allow_redirects=False,
        ) as response:
            assert response.status == 302
            assert response.headers["Location"] == "/"  # never where the address said
        session = http.cookie_jar.filter_cookies(URL(console.base))[COOKIE].value
        assert session != planted
        async with http.get(f"{console.base}/", allow_redirects=False) as response:
            page = await response.text()
            assert response.status == 200
        found = re.search(r'<meta name="csrf" content="([^"]+)"', page)
        assert found is not None
        async with http.post(
            f"{console.base}/logout", data={"csrf": found.group(1)}, allow_redirects=False
        ) as response:
            assert response.status == 302
    async with aiohttp.ClientSession(cookie_jar=_jar()) as replay:  # the old cookie, kept
        replay.cookie_jar.update_cookies({COOKIE: session})
        async with replay.get(f"{console.base}/u/scott/inara/files", allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"] == "/login"


async def test_a_sign_in_posted_by_another_site_is_refused(console: Console) -> None:
    token = (await console.link("scott")).split("token=", 1)[1]
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        async with http.post(
            f"{console.base}/login",
            data={"token": token},
            headers={"Origin": "https://evil.example"},
            allow_redirects=False,
        ) as response:
            assert response.status == 403
            assert COOKIE not in response.cookies


async def test_a_message_with_files_needs_the_token_in_its_header(console: Console) -> None:
    async with aiohttp.ClientSession(cookie_jar=_jar()) as http:
        csrf = await _signed_in(console, http)
        form = aiohttp.FormData()
        form.add_field("csrf", csrf)
        form.add_field("text", "a file from elsewhere")
        form.add_field("file", b"hello", filename="note.txt", content_type="text/plain")
        address = f"{console.base}/u/scott/inara/chat/upload1"
        async with http.post(address, data=form, allow_redirects=False) as response:
            assert response.status == 403  # a form another site made carries no header
        feed = console.daemon.adapters["web"].feeds.get("scott:inara:upload1")  # type: ignore[attr-defined]
        assert feed is None or not feed.messages
