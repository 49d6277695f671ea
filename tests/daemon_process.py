"""``personad run`` as a child process talking to a real Synapse, for crash tests and the soak.

:func:`daemon_config` writes the TOML of a daemon whose only platform is Matrix and whose model
is a loopback OpenAI-compatible server; :class:`DaemonProcess` starts it, waits until
``/healthz`` answers, and stops it the hard way (SIGKILL), the polite way (SIGTERM) or
not at all. What a person sees in a room is read back from the homeserver by
:func:`shown_answers`, every edit applied to the message it replaces.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bot.setup.init_files import render_toml
from tests.synapse import Human, MatrixUser, SynapseServer

__all__ = [
    "API_TOKEN",
    "DaemonProcess",
    "bot_messages",
    "daemon_config",
    "room_history",
    "shown_answers",
]

REPO = Path(__file__).resolve().parent.parent
API_TOKEN = "soak-and-crash-test-token"


def daemon_config(
    path: Path,
    *,
    data_dir: Path,
    server: SynapseServer,
    bot: MatrixUser,
    people: dict[str, str],
    model_url: str,
    port: int,
    matrix: dict[str, Any] | None = None,
) -> Path:
    """Write the config of a daemon for ``people`` (name -> Matrix id) to ``path``."""
    tree: dict[str, Any] = {
        "daemon": {
            "data_dir": str(data_dir),
            "log_format": "json",
            "stream_edit_seconds": 0.2,
            # the people's clients flush what they typed during an outage all at once: the
            # per-user limit is raised so every message counts toward delivery, not refusal
            "user_rate_per_minute": 600,
            "user_burst": 100,
        },
        "http": {"port": port, "token_env": "PERSONAD_API_TOKEN"},
        "llm": {
            "backends": {
                "local": {
                    "kind": "openai_compat",
                    "model": "m",
                    "base_url": model_url,
                    "timeout": 20.0,
                }
            },
            "roles": {"chat": {"backend": "local"}},
        },
        "memory": {"backend": "none", "embeddings": "off"},
        "distill": {"auto": False},
        "users": {name: {"identities": [f"matrix:{who}"]} for name, who in people.items()},
        "adapters": {
            "matrix": {
                "enabled": True,
                "homeserver": server.url,
                "user_id": bot.user_id,
                "password": bot.password,
                "sync_timeout_ms": 3000,
                "backoff_max_seconds": 2.0,
                **(matrix or {}),
            }
        },
    }
    path.write_text(render_toml(tree), encoding="utf-8")
    return path


class DaemonProcess:
    """One ``personad run``; :meth:`start` may be called again after it ended (a restart)."""

    def __init__(self, config: Path, port: int, log: Path) -> None:
        self.config = config
        self.port = port
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, within: float = 90.0) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONAD")}
        env.update(PYTHONPATH=str(REPO), PERSONAD_API_TOKEN=API_TOKEN)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot.daemon.cli", "--config", str(self.config), "run"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=REPO,
            )
        deadline = time.monotonic() + within
        while self.health() is None:
            if self.process.poll() is not None:
                raise RuntimeError(f"the daemon exited with {self.process.returncode}: {self.log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not serve /healthz in time: {self.log}")
            time.sleep(0.1)

    def health(self) -> tuple[int, dict[str, Any]] | None:
        """``/healthz``: its status code and body, or None while nothing answers."""
        return self._get("/healthz")

    def status(self) -> dict[str, Any]:
        answer = self._get("/status", {"Authorization": f"Bearer {API_TOKEN}"})
        assert answer is not None and answer[0] == 200, answer
        return answer[1]

    def _get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", headers=headers or {}
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
        except OSError:
            return None

    def kill(self) -> None:
        """SIGKILL: no drain, no clean-up, as a crash or an OOM kill."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def terminate(self, within: float = 120.0) -> int:
        """SIGTERM and wait for the exit; the exit code."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


async def room_history(person: Human, room: str) -> list[dict[str, Any]]:
    """Every event of ``room``, oldest first, paging back through the whole history."""
    events: list[dict[str, Any]] = []
    since = ""
    while True:
        page = f"&from={quote(since)}" if since else ""
        answer = await person.api("GET", f"/rooms/{quote(room)}/messages?dir=b&limit=500{page}")
        events.extend(answer["chunk"])
        since = answer.get("end") or ""
        if not answer["chunk"] or not since:
            return list(reversed(events))


def bot_messages(events: list[dict[str, Any]], bot_id: str) -> dict[str, tuple[str, str | None]]:
    """The bot's messages among ``events`` (oldest first) by event id, as a client shows them:
    (text after the latest edit, the event it replies to). An edit counts as the message it
    replaces, not as another."""
    messages: dict[str, tuple[str, str | None]] = {}
    for event in events:
        if event["sender"] != bot_id or event["type"] != "m.room.message":
            continue
        content = event["content"]
        relation = content.get("m.relates_to") or {}
        if relation.get("rel_type") == "m.replace":
            target = relation.get("event_id")
            if target in messages:
                messages[target] = (content["m.new_content"]["body"], messages[target][1])
            continue
        parent = (relation.get("m.in_reply_to") or {}).get("event_id")
        messages[event["event_id"]] = (content.get("body", ""), parent)
    return messages


async def shown_answers(person: Human, room: str, bot_id: str) -> list[str]:
    """The texts of the bot's messages in ``room`` as a client shows them, oldest first."""
    events = await room_history(person, room)
    return [text for text, _ in bot_messages(events, bot_id).values()]
