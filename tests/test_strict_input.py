"""Names, HTTP API fields and the API token are read strictly: a bad one is refused with a
message naming it, never converted into something else."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.daemon.daemon import Daemon
from bot.daemon.errors import ConfigError, NameRejected
from bot.persona.names import validate_name
from bot.setup.config_loader import collect_problems, load_config
from tests.harness import ScriptedLLM, make_config, make_persona

TOKEN = "api-token-0123456789abcdef"
REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "name", ["scott\n", "scott\r\n", "\nscott", "sc ott", "scott\x00", "x" * 65, "CON", "nul"]
)
def test_names_with_hidden_or_special_characters_are_rejected(name: str) -> None:
    with pytest.raises(NameRejected):
        validate_name(name, "user")


@pytest.mark.parametrize("name", ["scott", "Holly-2", "a_b", "x" * 64, "console"])
def test_ordinary_names_pass(name: str) -> None:
    assert validate_name(name, "persona") == name


def test_a_config_user_name_with_a_trailing_newline_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[users."scott\\n"]\nidentities = ["telegram:1"]\n')
    _config, problems = collect_problems(path, {})
    assert any(problem.startswith("users.scott") for problem in problems), problems


@pytest.mark.parametrize("token", ["x", "short-token-15ch"[:15]])
def test_a_short_api_token_stops_start_and_names_the_variable(tmp_path: Path, token: str) -> None:
    _config, problems = collect_problems(None, {"PERSONAD_API_TOKEN": token})
    assert problems == [
        f"http.token_env: the API token in PERSONAD_API_TOKEN is {len(token)} characters"
        " long; it needs at least 16 (e.g. `openssl rand -hex 24`)"
    ]
    with pytest.raises(ConfigError, match="PERSONAD_API_TOKEN"):
        load_config(None, {"PERSONAD_API_TOKEN": token})


def test_a_long_token_or_none_or_a_disabled_api_is_fine() -> None:
    assert collect_problems(None, {"PERSONAD_API_TOKEN": "0123456789abcdef"})[1] == []
    assert collect_problems(None, {})[1] == []
    disabled = {"PERSONAD_API_TOKEN": "x", "PERSONAD__HTTP__ENABLED": "false"}
    assert collect_problems(None, disabled)[1] == []


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[aiohttp.ClientSession, str, Path]]:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, extra={"http": {"enabled": True, "port": 0}})
    daemon = Daemon(
        config, backends={"scripted": ScriptedLLM()}, env={"PERSONAD_API_TOKEN": TOKEN}, jobs=False
    )
    await daemon.start()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession(headers=auth) as http:
        yield http, f"http://127.0.0.1:{daemon.http_port}", tmp_path
    await daemon.stop()


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"user": None, "name": "tina"}, "user", "must be a string, not null"),
        ({"user": 7, "name": "tina"}, "user", "not a number"),
        ({"user": ["holly"], "name": "tina"}, "user", "not a list"),
        ({"user": "holly", "name": {"x": 1}}, "name", "not an object"),
        ({"user": "holly", "name": True}, "name", "not a boolean"),
        ({"name": "tina"}, "user", "is required"),
        ({"user": "holly"}, "name", "is required"),
        ({"user": "holly", "name": "tina", "admin": True}, "admin", "unknown field"),
        ({"user": "holly\n", "name": "tina"}, "user", "letters, digits"),
        ({"user": "holly", "name": "tina", "template": 3}, "template", "not a number"),
        ([], "body", "must be a JSON object, not a list"),
    ],
)
async def test_setup_persona_refuses_each_bad_field_by_name(
    api: tuple[aiohttp.ClientSession, str, Path], body: Any, field: str, says: str
) -> None:
    http, base, data = api
    async with http.post(f"{base}/setup/persona", json=body) as response:
        assert response.status == 400
        answer = await response.json()
    assert answer["field"] == field
    assert answer["error"].startswith(f"{field}: ") and says in answer["error"]
    assert not (data / "None").exists() and not (data / "holly").exists()


async def test_setup_persona_with_a_null_template_uses_the_default(
    api: tuple[aiohttp.ClientSession, str, Path],
) -> None:
    http, base, data = api
    body = {"user": "holly", "name": "tina", "template": None}
    async with http.post(f"{base}/setup/persona", json=body) as response:
        assert response.status == 201
    assert (data / "holly/persona/tina/IDENTITY.md").is_file()


@pytest.mark.parametrize(
    ("query", "field", "says"),
    [
        ("q=x&persona=inara", "user", "is required"),
        ("q=x&user=scott%0A&persona=inara", "user", "letters, digits"),
        ("q=x&user=scott&user=holly&persona=inara", "user", "more than once"),
        ("q=x&user=scott&persona=inara&limit=5", "limit", "unknown field"),
        ("user=scott&persona=inara", "q", "is required"),
        ("q=%20&user=scott&persona=inara", "q", "must not be empty"),
        (f"q={'a' * 501}&user=scott&persona=inara", "q", "the limit is 500"),
    ],
)
async def test_search_refuses_each_bad_query_field_by_name(
    api: tuple[aiohttp.ClientSession, str, Path], query: str, field: str, says: str
) -> None:
    http, base, _data = api
    async with http.get(f"{base}/sessions/search?{query}") as response:
        assert response.status == 400
        answer = await response.json()
    assert answer["field"] == field and says in answer["error"]


async def test_distill_refuses_a_name_with_a_trailing_newline(
    api: tuple[aiohttp.ClientSession, str, Path],
) -> None:
    http, base, _data = api
    async with http.post(f"{base}/distill/short?user=scott%0A&persona=inara") as response:
        assert response.status == 400
        assert (await response.json())["field"] == "user"


def test_check_config_names_a_short_api_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
    env.update(PYTHONPATH=str(REPO), PERSONAD_API_TOKEN="1234", PERSONAD_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", "check-config"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 1
    assert "PERSONAD_API_TOKEN is 4 characters long; it needs at least 16" in done.stderr
    assert "1234" not in done.stderr  # the token itself is never printed


async def test_a_body_nested_past_any_real_request_is_a_clean_400(
    api: tuple[aiohttp.ClientSession, str, Path],
) -> None:
    http, base, _data = api
    deep = "[" * 5000 + "]" * 5000
    headers = {"Content-Type": "application/json"}
    async with http.post(f"{base}/setup/persona", data=deep, headers=headers) as response:
        assert response.status == 400
        answer = await response.json()
    assert answer["error"].startswith("body: must be JSON")
