"""``personad chat`` as a subprocess against a loopback Anthropic Messages API.

This is the path a person takes on day one: a persona made from the template, one message per
line on stdin, the real Anthropic SDK on the wire, answers on stdout, the day's session log
on disk, and Off The Record leaving no byte behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_api import FakeAnthropic

REPO = Path(__file__).resolve().parent.parent


def _env(data_dir: Path, base_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "PERSONAD_"))}
    env.update(
        PERSONAD_DATA_DIR=str(data_dir),
        PYTHONPATH=str(REPO),
        TZ="America/New_York",
        PERSONAD__LLM__BACKENDS__ANTHROPIC__MAX_RETRIES="0",
        MEMORY_BACKEND="sqlite-fts5",
        PERSONAD__MEMORY__EMBEDDINGS="off",
    )
    if base_url:
        env.update(ANTHROPIC_API_KEY="test-key-0123456789", ANTHROPIC_BASE_URL=base_url)
    return env


def personad(
    *args: str, data_dir: Path, base_url: str | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.daemon.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(data_dir, base_url),
        timeout=120,
        cwd=REPO,
    )


def chat(data_dir: Path, fake: FakeAnthropic, stdin: str) -> subprocess.CompletedProcess[str]:
    """``personad chat`` as scott with inara, talking to ``fake``."""
    return personad(
        "chat",
        "--user",
        "scott",
        "--persona",
        "inara",
        data_dir=data_dir,
        base_url=fake.base_url,
        stdin=stdin,
    )


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic.run_in_thread() as server:
        yield server


def test_chat_end_to_end_with_otr(tmp_path: Path, fake: FakeAnthropic) -> None:
    data = tmp_path / "data"
    created = personad("persona", "new", "scott", "inara", data_dir=data)
    assert created.returncode == 0, created.stderr

    marker = "OTR-MARKER-c4f1a9e2"
    lines = [
        "I take my coffee without sugar.",
        "/otr on",
        f"Between us: {marker} is the surprise party code.",
        "/otr off",
        "Back on the record now.",
    ]
    result = chat(data, fake, "\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "echo: I take my coffee without sugar." in out
    assert "Off The Record is on" in out
    assert f"echo: Between us: {marker}" in out
    assert "echo: Back on the record now." in out

    # the system prompt of the first request: tier 2 files, then the System block
    first = fake.requests[0].body
    system = first["system"]
    stable, dynamic = system[0]["text"], system[-1]["text"]
    assert "--- IDENTITY.md ---" in stable and "--- SOUL.md ---" in stable
    assert "--- USER.md ---" in stable
    assert "--- SCRATCH.md ---" not in stable  # tier 4 only
    assert system[0].get("cache_control") == {"type": "ephemeral"}
    assert dynamic.startswith("--- System ---\nCurrent date and time: ")
    assert "Off The Record" not in dynamic
    otr_request = next(r.body for r in fake.requests if marker in str(r.body["messages"]))
    assert "Current mode: Off The Record" in otr_request["system"][-1]["text"]

    # the day's log holds the on-record turns and nothing of the OTR one
    logs = list((data / "scott/persona/inara/sessions").glob("*.md"))
    assert len(logs) == 1
    log_text = logs[0].read_text()
    assert "I take my coffee without sugar." in log_text
    assert "Back on the record now." in log_text
    for path in data.rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), f"OTR text leaked into {path}"


def test_restart_restores_todays_conversation(tmp_path: Path, fake: FakeAnthropic) -> None:
    data = tmp_path / "data"
    personad("persona", "new", "scott", "inara", data_dir=data)
    chat(data, fake, "My cat is called Miso.\n")
    fake.requests.clear()
    result = chat(data, fake, "What is my cat called?\n")
    assert result.returncode == 0, result.stderr
    texts = [str(m["content"]) for m in fake.requests[0].body["messages"]]
    assert any("My cat is called Miso." in t for t in texts)


def test_the_terminal_is_still_heard_after_a_reload(tmp_path: Path, fake: FakeAnthropic) -> None:
    """``/reload`` reads the users from the file again; the terminal's own identity, which
    ``chat`` adds for its user, stays, so what is typed after it is answered."""
    data = tmp_path / "data"
    personad("persona", "new", "scott", "inara", data_dir=data)
    config = tmp_path / "personad.toml"
    config.write_text('[users.scott]\nidentities = ["telegram:1"]\nadmin = true\n')
    result = personad(
        *("chat", "--config", str(config), "--user", "scott", "--persona", "inara"),
        data_dir=data,
        base_url=fake.base_url,
        stdin="/reload\nhello after the reload\n",
    )
    assert result.returncode == 0, result.stderr
    assert "reloaded" in result.stdout
    assert "hello after the reload" in str(fake.requests[-1].body["messages"])


def test_missing_key_and_missing_persona_are_one_sentence(tmp_path: Path) -> None:
    data = tmp_path / "data"
    missing = personad("chat", "--user", "scott", "--persona", "inara", data_dir=data, stdin="hi\n")
    assert missing.returncode == 2
    assert " persona new scott inara" in missing.stderr  # through invocation(), runnable here
    assert "Traceback" not in missing.stderr
    personad("persona", "new", "scott", "inara", data_dir=data)
    nokey = personad("chat", "--user", "scott", "--persona", "inara", data_dir=data, stdin="hi\n")
    assert nokey.returncode == 2
    assert "ANTHROPIC_API_KEY is not set" in nokey.stderr
    assert "Traceback" not in nokey.stderr
    bad = personad("persona", "new", "scott", "../evil", data_dir=data)
    assert bad.returncode == 2 and "may not contain" in bad.stderr
    assert not (tmp_path / "evil").exists()
