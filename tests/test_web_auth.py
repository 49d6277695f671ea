"""Signing in to the web console without a browser: the CLI's one-time link, its expiry,
passwords, and the session cookie's flags behind a TLS proxy."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.daemon.cli import main
from bot.daemon.daemon import Daemon
from bot.daemon.errors import ConfigError
from bot.delivery.state import StateStore
from bot.setup.config_loader import load_config
from bot.web import passwords
from bot.web.adapter import WebAdapter
from bot.web.auth import WebStore
from bot.web.guard import COOKIE
from bot.web.login import MAX_FAILURES
from bot.web.passwords import (
    PASSWORD_LOCKS,
    check_password,
    hash_password,
    is_password_hash,
    lock_of,
    unmatchable_hash,
    verify_password,
)
from tests.harness import ScriptedLLM, make_config, make_persona

PASSWORD = "correct horse battery"


def test_a_password_hash_verifies_only_its_password() -> None:
    stored = hash_password(PASSWORD)
    assert stored.startswith("scrypt$")
    assert verify_password(PASSWORD, stored)
    assert not verify_password("wrong horse battery", stored)
    assert not verify_password(PASSWORD, "scrypt$garbage")
    assert not verify_password(PASSWORD, "")


def test_cli_login_prints_a_link_that_signs_in_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[http]\npublic_url = "https://p.example.org/"\n'
        '[users.scott]\nidentities = ["console:scott"]\n'
    )
    assert main(["web", "login", "scott", "--config", str(config)]) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("https://p.example.org/login?token=")
    assert main(["web", "login", "nobody", "--config", str(config)]) == 2
    assert "not configured" in capsys.readouterr().err

    async def redeem_twice() -> list[str | None]:
        async with StateStore(tmp_path / "personad.db") as state:
            store = WebStore(state)
            token = link.split("token=", 1)[1]
            return [await store.redeem_login(token), await store.redeem_login(token)]

    assert asyncio.run(redeem_twice()) == ["scott", None]
    # only the hash is kept
    assert link.split("token=", 1)[1].encode() not in (tmp_path / "personad.db").read_bytes()


def test_cli_logout_signs_one_user_out_of_every_browser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n'
        '[users.scott]\nidentities = ["console:scott"]\n'
        '[users.holly]\nidentities = ["console:holly"]\n'
    )

    async def open_sessions() -> list[str]:
        async with StateStore(tmp_path / "personad.db") as state:
            store = WebStore(state)
            return [(await store.open_session(user))[0] for user in ("scott", "scott", "holly")]

    async def still_open(cookies: list[str]) -> list[bool]:
        async with StateStore(tmp_path / "personad.db") as state:
            store = WebStore(state)
            return [await store.session(cookie) is not None for cookie in cookies]

    cookies = asyncio.run(open_sessions())

    async def issue(user: str) -> str:
        async with StateStore(tmp_path / "personad.db") as state:
            return await WebStore(state).issue_login(user)

    async def redeem(token: str) -> str | None:
        async with StateStore(tmp_path / "personad.db") as state:
            return await WebStore(state).redeem_login(token)

    unused = [asyncio.run(issue("scott")), asyncio.run(issue("holly"))]
    assert main(["web", "logout", "scott", "--config", str(config)]) == 0
    assert capsys.readouterr().out.strip() == "scott is signed out of 2 browsers."
    assert asyncio.run(still_open(cookies)) == [False, False, True]
    # a link not yet used (in a lost phone's messages) is used up too; another user's is not
    assert [asyncio.run(redeem(token)) for token in unused] == [None, "holly"]
    assert main(["web", "logout", "scott", "--config", str(config)]) == 0
    assert capsys.readouterr().out.strip() == "scott is signed out of 0 browsers."
    assert main(["web", "logout", "nobody", "--config", str(config)]) == 2
    assert "not configured" in capsys.readouterr().err


async def test_an_expired_link_signs_nobody_in(tmp_path: Path) -> None:
    async with StateStore(tmp_path / "personad.db") as state:
        store = WebStore(state)
        token = await store.issue_login("scott", now=0.0)
        assert await store.redeem_login(token) is None


@pytest.fixture
async def daemon(tmp_path: Path) -> AsyncIterator[Daemon]:
    make_persona(tmp_path, "scott")
    config = make_config(
        tmp_path,
        users={"scott": {"identities": [], "web_password": hash_password(PASSWORD)}},
        extra={"http": {"enabled": True, "port": 0}},
    )
    running = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await running.start()
    yield running
    await running.stop()


async def test_password_sign_in_and_the_cookie_behind_a_tls_proxy(daemon: Daemon) -> None:
    base = f"http://127.0.0.1:{daemon.http_port}"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(
            f"{base}/login", data={"user": "scott", "password": "nope nope nope"}
        ) as response:
            assert response.status == 403
            assert "Wrong user name or password" in await response.text()
        async with http.post(
            f"{base}/login",
            data={"user": "scott", "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https"},
            allow_redirects=False,
        ) as response:
            assert response.status == 302
            cookie = response.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" in cookie
        async with http.post(
            f"{base}/login", data={"user": "scott", "password": PASSWORD}, allow_redirects=False
        ) as response:
            assert "Secure" not in response.headers["Set-Cookie"]  # plain http on loopback
        async with http.get(f"{base}/") as response:  # signed in by the last cookie
            assert response.status == 200
            assert "inara" in await response.text()


async def test_a_name_without_a_password_takes_a_whole_check_to_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[str] = []

    def recording(password: str, stored: str) -> bool:
        checked.append(stored)
        return verify_password(password, stored)

    monkeypatch.setattr(passwords, "verify_password", recording)
    make_persona(tmp_path, "scott")
    stored = hash_password(PASSWORD)
    config = make_config(
        tmp_path,
        users={"scott": {"identities": [], "web_password": stored}, "holly": {"identities": []}},
        extra={"http": {"enabled": True, "port": 0}},
    )
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await daemon.start()
    try:
        base = f"http://127.0.0.1:{daemon.http_port}"
        async with aiohttp.ClientSession() as http:
            for name in ("nobody", "holly", "scott"):
                async with http.post(
                    f"{base}/login",
                    data={"user": name, "password": PASSWORD},
                    allow_redirects=False,
                ) as response:
                    assert response.status == (302 if name == "scott" else 403)
    finally:
        await daemon.stop()
    # a name unknown, or known without a password, is checked against a hash as costly as a
    # user's, which never matches
    unmatchable = unmatchable_hash()
    assert checked == [unmatchable, unmatchable, stored]
    assert unmatchable.split("$")[:4] == stored.split("$")[:4]
    assert not check_password(PASSWORD, None)


def test_password_checks_share_locks_by_chance_not_by_being_configured() -> None:
    # every try of one name holds one lock; names spread over all of them
    assert len({lock_of("scott") for _ in range(10)}) == 1
    spread = {lock_of(f"name{n}") for n in range(2000)}
    assert spread == set(range(PASSWORD_LOCKS))


@pytest.mark.parametrize(
    "stored",
    [
        "scrypt$garbage",
        "hunter2hunter2",
        "scrypt$1024$8$1$c2FsdHNhbHRzYWx0c2FsdA==$" + "A" * 44,  # cheaper than a real check
        hash_password(PASSWORD).replace("scrypt$", "bcrypt$"),
    ],
)
def test_a_password_that_is_no_hash_personad_made_is_refused_at_load(
    tmp_path: Path, stored: str
) -> None:
    config = tmp_path / "personad.toml"
    config.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n'
        f'[users.scott]\nidentities = ["console:scott"]\nweb_password = "{stored}"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config, {})
    assert "web_password" in str(caught.value)
    assert is_password_hash(hash_password(PASSWORD))


async def test_guessing_a_password_pauses_its_name_but_not_the_links(daemon: Daemon) -> None:
    base = f"http://127.0.0.1:{daemon.http_port}"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        for attempt in range(MAX_FAILURES):
            async with http.post(
                f"{base}/login", data={"user": "scott", "password": f"guess {attempt}"}
            ) as response:
                assert response.status == 403
        async with http.post(
            f"{base}/login", data={"user": "scott", "password": PASSWORD}, allow_redirects=False
        ) as response:
            assert response.status == 403
            assert "Too many wrong passwords" in await response.text()
        token = await WebStore(daemon.state).issue_login("scott")
        async with http.post(
            f"{base}/login", data={"token": token}, allow_redirects=False
        ) as response:
            assert response.status == 302


async def test_the_pause_outlasts_a_restart_and_the_name_is_kept_only_as_a_hash(
    daemon: Daemon,
) -> None:
    async def attempt(running: Daemon, password: str) -> tuple[int, str]:
        base = f"http://127.0.0.1:{running.http_port}"
        async with aiohttp.ClientSession() as http:
            async with http.post(
                f"{base}/login",
                data={"user": "scott", "password": password},
                allow_redirects=False,
            ) as response:
                return response.status, await response.text()

    for guess in range(MAX_FAILURES):
        assert (await attempt(daemon, f"guess {guess}"))[0] == 403
    await daemon.stop()
    again = Daemon(daemon.config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await again.start()
    try:
        status, page = await attempt(again, PASSWORD)
        assert status == 403 and "Too many wrong passwords" in page
    finally:
        await again.stop()
    with sqlite3.connect(daemon.config.data_dir / "personad.db") as db:
        names = {row[0] for row in db.execute("SELECT name_hash FROM web_password_failure")}
    assert names == {hashlib.sha256(b"scott").hexdigest()}


async def test_the_printed_link_opens_the_console_of_the_running_daemon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.lifecycle import quiet_port

    port = quiet_port()
    make_persona(tmp_path, "scott")
    config = make_config(
        tmp_path,
        users={"scott": {"identities": []}},
        extra={"http": {"enabled": True, "port": port}},
    )
    path = tmp_path / "personad.toml"
    path.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[http]\nport = {port}\n'
        "[users.scott]\nidentities = []\n"
    )
    running = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await running.start()
    try:
        code = await asyncio.to_thread(main, ["web", "login", "scott", "--config", str(path)])
        assert code == 0
        # the daemon in this process may log to stdout too: the link is the line it printed
        [link] = [ln for ln in capsys.readouterr().out.splitlines() if "/login?token=" in ln]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.get(link) as page:  # as a browser opens it: a button to press
                assert page.status == 200
            token = link.split("token=", 1)[1]
            async with http.post(link.split("?", 1)[0], data={"token": token}) as signed_in:
                assert signed_in.status == 200 and "inara" in await signed_in.text()
    finally:
        await running.stop()


@pytest.mark.parametrize(
    ("http", "problem"),
    [
        ({"enabled": False}, "http.enabled is false"),
        ({"port": 0}, "http.port is 0"),
        ({"host": "192.0.2.7"}, "http.host is 192.0.2.7"),
        ({"allowed_hosts": ["p.example.org"]}, "http.allowed_hosts does not include"),
    ],
)
def test_no_link_is_printed_that_would_not_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], http: dict[str, object], problem: str
) -> None:
    path = tmp_path / "personad.toml"
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in http.items())
    path.write_text(
        f'[daemon]\ndata_dir = "{tmp_path}"\n[http]\n{lines}[users.scott]\nidentities = []\n'
    )
    assert main(["web", "login", "scott", "--config", str(path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert problem in line and ("public_url" in line or "restart" in line)


async def test_an_open_conversation_stream_ends_once_its_browser_is_signed_out(
    daemon: Daemon,
) -> None:
    store = WebStore(daemon.state)
    cookie, _session = await store.open_session("scott")
    console = daemon.adapters["web"]
    assert isinstance(console, WebAdapter)
    room = "scott:inara:gone01"
    base = f"http://127.0.0.1:{daemon.http_port}"
    async with (
        aiohttp.ClientSession(headers={"Cookie": f"{COOKIE}={cookie}"}) as http,
        http.get(f"{base}/u/scott/inara/chat/gone01/events") as stream,
    ):
        assert stream.status == 200
        console.submit("scott", room, "said while signed in")
        async with asyncio.timeout(30):
            while b"said while signed in" not in await stream.content.readline():
                continue
        await store.close_sessions_of("scott")  # `personad web logout scott`, elsewhere
        console.submit("scott", room, "said after the sign-out")
        async with asyncio.timeout(30):
            rest = await stream.content.read()  # the stream ends
    assert b"said after the sign-out" not in rest
