"""A web conversation survives a restart of the daemon: its page shows what the session
restored of that room from the day's log, and nothing of any other room."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from adapters.base import Incoming
from bot.daemon.daemon import Daemon
from bot.web.auth import WebStore
from tests.harness import ScriptedLLM, make_config, make_persona


async def _say(daemon: Daemon, room: str, text: str, event: str) -> None:
    assert daemon.router is not None
    daemon.router.room_persona[f"web:{room}"] = "inara"
    await daemon.router.handle(
        Incoming(platform="web", sender="scott", room=room, text=text, event_id=event)
    )


async def test_a_conversation_page_shows_its_room_after_a_restart(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    first = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await first.start()
    try:
        await _say(first, "scott:inara:aaa111", "the plan for monday", "e1")
        await _say(first, "scott:inara:bbb222", "another room entirely", "e2")
    finally:
        await first.stop()

    second = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await second.start()
    try:
        base = f"http://127.0.0.1:{second.http_port}"
        token = await WebStore(second.state).issue_login("scott")
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as http:
            async with http.post(
                f"{base}/login", data={"token": token}, headers={"Origin": base}
            ) as response:
                assert response.status == 200  # followed to the home page
            async with http.get(f"{base}/u/scott/inara/chat/aaa111") as response:
                page = await response.text()
        # the conversation's own messages (the other one is only listed beside it)
        messages = page.split('id="messages"', 1)[1].split("</ol>", 1)[0]
        assert "the plan for monday" in messages
        assert "echo: the plan for monday" in messages
        assert "another room" not in messages
    finally:
        await second.stop()


async def test_only_the_web_platform_names_a_user_by_name(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await daemon.start()
    try:
        router = daemon.router
        assert router is not None

        def who(platform: str, sender: str) -> str | None:
            incoming = Incoming(platform=platform, sender=sender, room="r", text="x", event_id="1")
            return router.identify(incoming)

        assert who("web", "scott") == "scott"
        assert who("web", "mallory") is None  # not a configured user
        assert who("telegram", "scott") is None  # a bare name is no identity elsewhere
        assert who("console", "scott") == "scott"  # configured as console:scott
    finally:
        await daemon.stop()
