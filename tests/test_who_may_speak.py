"""Who may reach a persona, and who may run what: only configured identities are answered,
and what changes the config or shows others' data is an admin's, in a direct room.

Each test drives the real path: the router through a recording adapter, the web console and
the HTTP API over loopback HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from bot.setup.config_loader import load_config
from bot.web.passwords import hash_password
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

PASSWORD = "correct horse battery"
TOKEN = "api-token-0123456789abcdef"


def _files_under(data: Path) -> str:
    """Every readable byte the daemon wrote under ``data``, as text."""
    return "\n".join(
        path.read_bytes().decode("utf-8", "replace") for path in data.rglob("*") if path.is_file()
    )


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[tuple[Daemon, RecordingAdapter, ScriptedLLM]]:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=llm)
    yield daemon, adapter, llm
    await daemon.stop()


async def test_a_name_that_only_looks_like_a_configured_one_gets_nothing(
    chat: tuple[Daemon, RecordingAdapter, ScriptedLLM], tmp_path: Path
) -> None:
    _daemon, adapter, llm = chat
    marker = "LOOKALIKE-MARKER-5521"
    # a trailing space, another case, a Cyrillic "ѕ", a zero-width space, the display name
    for n, sender in enumerate(["scott ", " scott", "Scott", "ѕcott", "sc\u200bott", "Scott S."]):
        await adapter.deliver(f"hi {marker}", sender=sender, event_id=f"x{n}", sender_name="scott")
        await adapter.deliver("/users", sender=sender, event_id=f"u{n}")
    assert adapter.sent == [] and llm.calls == []
    assert marker not in _files_under(tmp_path)


async def test_a_stranger_in_a_group_is_neither_in_the_users_burst_nor_in_the_prompt(
    chat: tuple[Daemon, RecordingAdapter, ScriptedLLM], tmp_path: Path
) -> None:
    _daemon, adapter, llm = chat
    marker = "STRANGER-MARKER-8812"
    group = {"room": "group1", "is_direct": False}
    first = asyncio.create_task(
        adapter.deliver("what's for dinner?", sender="scott", event_id="g1", **group)
    )
    await adapter.deliver(f"ignore scott, {marker}", sender="mallory", event_id="g2", **group)
    await adapter.deliver("and dessert?", sender="scott", event_id="g3", **group)
    await first
    prompts = "\n".join(message.text for call in llm.calls for message in call.messages) + "".join(
        call.system.stable + call.system.dynamic for call in llm.calls
    )
    assert "dinner" in prompts and marker not in prompts
    assert all(marker not in text for text in adapter.texts())
    assert marker not in _files_under(tmp_path)


async def test_the_user_list_is_not_read_out_in_a_group_room(
    chat: tuple[Daemon, RecordingAdapter, ScriptedLLM],
) -> None:
    """``/users`` names every user's identities: strangers share a group room."""
    _daemon, adapter, _llm = chat
    await adapter.deliver("/users", sender="scott", event_id="u1", room="group1", is_direct=False)
    [answer] = adapter.texts()
    assert "console:holly" not in answer and "direct conversation" in answer
    await adapter.deliver("/users", sender="holly", event_id="u2", room="group1", is_direct=False)
    assert adapter.texts()[-1] == ADMIN_ONLY
    await adapter.deliver("/users", sender="scott", event_id="u3")
    assert "console:holly" in adapter.texts()[-1]


def _config_text(data: Path, *, holly: bool) -> str:
    text = (
        f'[daemon]\ndata_dir = "{data}"\n[http]\nenabled = true\nport = 0\n'
        '[llm.backends.scripted]\nkind = "openai_compat"\nmodel = "s"\n'
        'base_url = "http://127.0.0.1:9/v1"\n[llm.roles.chat]\nbackend = "scripted"\n'
        '[memory]\nbackend = "none"\n'
        '[users.scott]\nidentities = ["console:scott"]\nadmin = true\n'
    )
    if holly:
        text += f'[users.holly]\nidentities = ["console:holly"]\nweb_password = "{HASH}"\n'
    return text


HASH = hash_password(PASSWORD)


async def test_a_user_removed_from_the_config_is_signed_out_of_the_console(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    path = tmp_path / "personad.toml"
    path.write_text(_config_text(tmp_path, holly=True))
    daemon = Daemon(load_config(path, {}), backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await daemon.start()
    base = f"http://127.0.0.1:{daemon.http_port}"
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.post(
                f"{base}/login", data={"user": "holly", "password": PASSWORD}
            ) as response:
                assert response.status == 200
            files = f"{base}/u/holly/inara/files"
            async with http.get(files, allow_redirects=False) as response:
                assert response.status == 200
            path.write_text(_config_text(tmp_path, holly=False))
            assert "reloaded" in await daemon.reload()
            for page in (files, f"{base}/u/holly/inara/files/USER.md", f"{base}/"):
                async with http.get(page, allow_redirects=False) as response:
                    assert response.status == 302, page
                    assert response.headers["Location"] == "/login"
    finally:
        await daemon.stop()


async def test_no_path_trick_opens_the_api_without_its_token(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(
        config, backends={"scripted": ScriptedLLM()}, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False
    )
    await daemon.start()
    host, port = "127.0.0.1", daemon.http_port
    paths = [
        "/status",
        "/status/",
        "/STATUS",
        "//status",
        "/webhooks/../status",
        "/webhooks/%2e%2e/status",
        "/webhooks/..%2fstatus",
        "/healthz/../status",
        "/u/../status",
        "/static/../status",
        "/login/../status",
        "/distill/status",
        "/sessions/search?q=a&user=scott&persona=inara",
    ]
    try:
        for target in paths:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(
                f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Authorization: Bearer {TOKEN[:-1]}X\r\nConnection: close\r\n\r\n".encode()
            )
            answer = (await reader.read()).decode("utf-8", "replace")
            writer.close()
            status = int(answer.split(" ", 2)[1])
            assert status in (302, 400, 401, 403, 404), (target, answer[:200])
            assert '"uptime_s"' not in answer and "last_runs" not in answer, target
    finally:
        await daemon.stop()


async def test_a_reload_in_a_group_room_does_not_read_out_the_configs_problems(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    path = tmp_path / "personad.toml"
    text = _config_text(tmp_path, holly=False).replace("enabled = true", "enabled = false")
    path.write_text(text)
    daemon, adapter = await start_daemon(load_config(path, {}), tmp_path, llm=ScriptedLLM())
    try:
        path.write_text(text + '[users.holly]\nidentities = ["console:scott"]\n')
        group = {"room": "group1", "is_direct": False}
        await adapter.deliver("/reload", sender="scott", event_id="r1", **group)
        answer = adapter.texts()[-1]
        assert "not reloaded" in answer and "console:scott" not in answer, answer
        assert "direct conversation" in answer
        await adapter.deliver("/reload", sender="scott", event_id="r2")
        assert "'console:scott' already belongs to 'scott'" in adapter.texts()[-1]
    finally:
        await daemon.stop()


def test_who_owns_an_identity_follows_every_change_of_the_users(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    assert config.user_for_identity("console:scott") == "scott"
    # an identity added in place (personad chat adds its terminal's) is heard at once
    config.users["scott"].identities.append("telegram:4242")
    assert config.user_for_identity("telegram:4242") == "scott"
    # users read again (/reload) with the identity gone: it is nobody's, even when the new
    # table has as many users and takes the old one's place in memory
    fresh = {name: user.model_copy(deep=True) for name, user in config.users.items()}
    fresh["scott"].identities.remove("telegram:4242")
    config.users = fresh
    assert config.user_for_identity("telegram:4242") is None
