"""The HTTP API: open health check, bearer token on everything else, clear errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.daemon.daemon import Daemon
from tests.harness import ScriptedLLM, make_config, make_persona

TOKEN = "api-token-0123456789abcdef"


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(
        config, backends={"scripted": ScriptedLLM()}, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False
    )
    await daemon.start()
    yield f"http://127.0.0.1:{daemon.http_port}", tmp_path
    await daemon.stop()


async def test_healthz_is_open_and_the_rest_needs_the_token(api: tuple[str, Path]) -> None:
    base, _data = api
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as response:
            assert response.status == 200
            assert (await response.json())["status"] == "ok"
        async with http.get(f"{base}/status") as response:
            assert response.status == 401
        async with http.get(
            f"{base}/status", headers={"Authorization": "Bearer wrong"}
        ) as response:
            assert response.status == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        async with http.get(f"{base}/status", headers=auth) as response:
            assert response.status == 200
            assert "uptime_s" in await response.json()


async def test_distill_search_and_setup(api: tuple[str, Path]) -> None:
    base, data = api
    sessions = data / "scott/persona/inara/sessions"
    (sessions / "2026-11-28.md").write_text(
        "### 10:00:00 · user · scott · console\n\nWe planned the Café trip.\n"
    )
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession(headers=auth) as http:
        async with http.post(f"{base}/distill/short?user=scott&persona=inara") as response:
            assert response.status == 200
            assert "refreshed" in (await response.json())["result"]
        assert "Café trip" in (data / "scott/persona/inara/MEMORY_SHORT.md").read_text()
        async with http.get(f"{base}/sessions/search?q=cafe&user=scott&persona=inara") as response:
            body = await response.json()
            assert body["results"][0]["date"] == "2026-11-28"
        async with http.get(f"{base}/sessions/search?q=x&user=../etc&persona=inara") as response:
            assert response.status == 400
        async with http.post(
            f"{base}/setup/persona", json={"user": "holly", "name": "tina"}
        ) as response:
            assert response.status == 201
        assert (data / "holly/persona/tina/IDENTITY.md").is_file()
        async with http.post(f"{base}/setup/persona", data=b"not json") as response:
            assert response.status == 400


async def test_without_a_token_the_api_is_closed(tmp_path: Path) -> None:
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, env={}, jobs=False)
    await daemon.start()
    try:
        async with aiohttp.ClientSession() as http:
            base = f"http://127.0.0.1:{daemon.http_port}"
            async with http.get(f"{base}/status", headers={"Authorization": "Bearer "}) as response:
                assert response.status == 503
            async with http.get(f"{base}/healthz") as response:
                assert response.status == 200
    finally:
        await daemon.stop()
