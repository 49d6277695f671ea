"""A real Synapse homeserver on 127.0.0.1 for the Matrix tests, started once per test run.

Synapse runs from its own virtualenv (env ``PERSONAD_SYNAPSE_PYTHON``, default
``<repo>/.venv-synapse/bin/python``; ``.ci/install-synapse.sh`` creates it) with a SQLite
database in a temporary folder, a client listener only, no federation and rate limits raised so
tests are never throttled. If Synapse is not installed the tests that need it are skipped, unless
``PERSONAD_REQUIRE_SYNAPSE=1`` (as in CI), which turns the skip into a failure.

Test modules import the ``synapse`` fixture; the server behind it is one per process however
many modules import it, and it is stopped when the test run ends.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
from nio import AsyncClient, AsyncClientConfig, RoomCreateResponse, RoomPreset, RoomSendResponse

from adapters.base import Incoming

__all__ = [
    "Collector",
    "Human",
    "MatrixUser",
    "SynapseServer",
    "free_port",
    "human",
    "synapse",
    "synapse_python",
]

REPO = Path(__file__).resolve().parent.parent
SERVER_NAME = "localhost"
_RATE = {"per_second": 1000, "burst_count": 1000}


@dataclass(frozen=True, slots=True)
class MatrixUser:
    """A registered account: ``user_id`` is ``@name:localhost``."""

    user_id: str
    password: str
    access_token: str
    device_id: str


def synapse_python() -> Path:
    return Path(os.environ.get("PERSONAD_SYNAPSE_PYTHON", REPO / ".venv-synapse/bin/python"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class SynapseServer:
    """One Synapse process; :meth:`stop` then :meth:`start` keeps its port and database."""

    def __init__(self, python: Path, workdir: Path) -> None:
        self.python = python
        self.workdir = workdir
        self.port = free_port()
        self.shared_secret = secrets.token_hex(16)
        self.process: subprocess.Popen[bytes] | None = None
        self._config = workdir / "homeserver.yaml"
        self._serial = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def configure(self) -> None:
        """Generate a config once (for its signing key), then write our own over it."""
        generated = self.workdir / "generated.yaml"
        subprocess.run(
            [
                str(self.python),
                "-m",
                "synapse.app.homeserver",
                "--server-name",
                SERVER_NAME,
                "--config-path",
                str(generated),
                "--generate-config",
                "--report-stats=no",
                "--data-directory",
                str(self.workdir),
            ],
            cwd=self.workdir,
            check=True,
            capture_output=True,
            timeout=120,
        )
        config: dict[str, Any] = {
            "server_name": SERVER_NAME,
            "pid_file": str(self.workdir / "homeserver.pid"),
            "listeners": [
                {
                    "port": self.port,
                    "bind_addresses": ["127.0.0.1"],
                    "type": "http",
                    "tls": False,
                    "x_forwarded": False,
                    "resources": [{"names": ["client"], "compress": False}],
                }
            ],
            "database": {
                "name": "sqlite3",
                "args": {"database": str(self.workdir / "homeserver.db")},
            },
            "log_config": str(self.workdir / f"{SERVER_NAME}.log.config"),
            "media_store_path": str(self.workdir / "media_store"),
            "signing_key_path": str(self.workdir / f"{SERVER_NAME}.signing.key"),
            "report_stats": False,
            "macaroon_secret_key": secrets.token_hex(16),
            "form_secret": secrets.token_hex(16),
            "registration_shared_secret": self.shared_secret,
            "enable_registration": True,
            "enable_registration_without_verification": True,
            "trusted_key_servers": [],
            "federation_domain_whitelist": [],
            "bcrypt_rounds": 4,
            "suppress_key_server_warning": True,
            "presence": {"enabled": False},
            "url_preview_enabled": False,
            "rc_message": _RATE,
            "rc_registration": _RATE,
            "rc_registration_token_validity": _RATE,
            "rc_login": {"address": _RATE, "account": _RATE, "failed_attempts": _RATE},
            "rc_joins": {"local": _RATE, "remote": _RATE},
            "rc_joins_per_room": _RATE,
            "rc_invites": {"per_room": _RATE, "per_user": _RATE, "per_issuer": _RATE},
            "rc_admin_redaction": _RATE,
            "rc_3pid_validation": _RATE,
            "rc_room_creation": _RATE,
            "rc_presence": {"per_user": _RATE},
            "rc_delayed_event_mgmt": _RATE,
            "rc_reports": _RATE,
        }
        # JSON is YAML, and the test venv need not have a YAML library.
        self._config.write_text(json.dumps(config, indent=1), encoding="utf-8")

    def start(self, timeout: float = 60.0) -> None:
        log = (self.workdir / "stdout.log").open("ab")
        self.process = subprocess.Popen(
            [str(self.python), "-m", "synapse.app.homeserver", "--config-path", str(self._config)],
            cwd=self.workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"Synapse exited with {self.process.returncode}; "
                    f"see {self.workdir / 'stdout.log'}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/_matrix/client/versions", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"Synapse did not answer within {timeout:.0f} s")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def register(self, name: str | None = None, password: str | None = None) -> MatrixUser:
        """Register an account through the shared-secret admin API; return its login."""
        self._serial += 1
        name = name or f"u{self._serial}{secrets.token_hex(3)}"
        password = password or secrets.token_hex(8)
        endpoint = f"{self.url}/_synapse/admin/v1/register"
        nonce = self._request("GET", endpoint)["nonce"]
        mac = hmac.new(self.shared_secret.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), name.encode(), password.encode(), b"notadmin"]))
        body = {
            "nonce": nonce,
            "username": name,
            "password": password,
            "admin": False,
            "mac": mac.hexdigest(),
        }
        answer = self._request("POST", endpoint, body)
        return MatrixUser(answer["user_id"], password, answer["access_token"], answer["device_id"])

    def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            url, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{method} {url}: {exc.code} {exc.read()!r}") from exc


def _unavailable(reason: str) -> None:
    if os.environ.get("PERSONAD_REQUIRE_SYNAPSE") == "1":
        pytest.fail(f"{reason} (PERSONAD_REQUIRE_SYNAPSE=1)")
    pytest.skip(reason)


_shared: list[SynapseServer] = []


def _shut_down(server: SynapseServer) -> None:
    server.stop()
    shutil.rmtree(server.workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def synapse() -> SynapseServer:
    """The run's homeserver; skipped (or failed in CI) when Synapse is not installed."""
    if _shared:
        if _shared[0].process is None:
            _shared[0].start()
        return _shared[0]
    python = synapse_python()
    if not python.exists():
        _unavailable(
            f"Synapse is not installed: {python} is missing; "
            "run .ci/install-synapse.sh or set PERSONAD_SYNAPSE_PYTHON"
        )
    check = subprocess.run([str(python), "-c", "import synapse"], capture_output=True)
    if check.returncode != 0:
        _unavailable(f"{python} cannot import synapse; run .ci/install-synapse.sh")
    workdir = Path(tempfile.mkdtemp(prefix="personad-synapse-"))
    server = SynapseServer(python, workdir)
    atexit.register(_shut_down, server)
    server.configure()
    server.start()
    _shared.append(server)
    return server


class Collector:
    """A stand-in for the core's handler: keeps every ``Incoming`` it is given, in order."""

    def __init__(self) -> None:
        self.events: list[Incoming] = []
        self._arrived = asyncio.Condition()

    async def __call__(self, incoming: Incoming) -> None:
        async with self._arrived:
            self.events.append(incoming)
            self._arrived.notify_all()

    async def find(self, predicate: Any, within: float = 20.0) -> Incoming:
        """The first event matching ``predicate``, waiting up to ``within`` seconds for it."""
        async with self._arrived:
            await asyncio.wait_for(
                self._arrived.wait_for(lambda: any(predicate(e) for e in self.events)), within
            )
            return next(e for e in self.events if predicate(e))


class Human:
    """A person on the homeserver, driven by a second real nio client and raw client API calls."""

    def __init__(self, server: SynapseServer, user: MatrixUser) -> None:
        self.server = server
        self.user = user
        self.user_id = user.user_id
        self.client = AsyncClient(
            server.url,
            user.user_id,
            config=AsyncClientConfig(encryption_enabled=False, max_timeouts=20, backoff_factor=0.2),
        )
        self.client.user_id = user.user_id
        self.client.device_id = user.device_id
        self.client.access_token = user.access_token

    async def close(self) -> None:
        await self.client.close()

    async def create_room(self, *invite: str, direct: bool = False, name: str = "") -> str:
        answer = await self.client.room_create(
            is_direct=direct,
            invite=list(invite),
            name=name or None,
            preset=RoomPreset.trusted_private_chat if direct else RoomPreset.private_chat,
        )
        assert isinstance(answer, RoomCreateResponse), answer
        return str(answer.room_id)

    async def send(
        self, room: str, content: dict[str, Any], event_type: str = "m.room.message"
    ) -> str:
        answer = await self.client.room_send(room, event_type, content)
        assert isinstance(answer, RoomSendResponse), answer
        return str(answer.event_id)

    async def say(self, room: str, text: str, **extra: Any) -> str:
        return await self.send(room, {"msgtype": "m.text", "body": text, **extra})

    async def api(self, method: str, path: str, body: Any = None) -> Any:
        url = f"{self.server.url}/_matrix/client/v3{path}"
        headers = {"Authorization": f"Bearer {self.user.access_token}"}
        async with (
            aiohttp.ClientSession() as session,
            session.request(method, url, json=body, headers=headers) as response,
        ):
            answer = await response.json()
            assert response.status == 200, (response.status, answer)
            return answer

    async def membership(self, room: str, user_id: str) -> str | None:
        url = (
            f"{self.server.url}/_matrix/client/v3/rooms/{quote(room)}/state/"
            f"m.room.member/{quote(user_id)}"
        )
        headers = {"Authorization": f"Bearer {self.user.access_token}"}
        async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as r:
            if r.status != 200:
                return None
            membership = (await r.json()).get("membership")
            return membership if isinstance(membership, str) else None

    async def wait_membership(
        self, room: str, user_id: str, wanted: str, within: float = 20.0
    ) -> None:
        deadline = time.monotonic() + within
        while (current := await self.membership(room, user_id)) != wanted:
            if time.monotonic() > deadline:
                raise AssertionError(f"{user_id} is {current!r} in {room}, not {wanted!r}")
            await asyncio.sleep(0.1)

    async def event(self, room: str, event_id: str) -> dict[str, Any]:
        answer: dict[str, Any] = await self.api(
            "GET", f"/rooms/{quote(room)}/event/{quote(event_id)}"
        )
        return answer

    async def messages(self, room: str, limit: int = 100) -> list[dict[str, Any]]:
        """The room's latest events, oldest first."""
        answer = await self.api("GET", f"/rooms/{quote(room)}/messages?dir=b&limit={limit}")
        return list(reversed(answer["chunk"]))


@pytest.fixture
async def human(synapse: SynapseServer) -> AsyncIterator[Human]:
    """A freshly registered person on the run's homeserver."""
    person = Human(synapse, synapse.register())
    yield person
    await person.close()
