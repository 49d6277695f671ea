"""Nothing said lingers on disk: ``personad run`` as a child process with Nextcloud Talk as its
platform (the loopback Talk, :mod:`tests.fakes.nctalk_server`) and a loopback model.

Talk's webhooks hand each message over once, so the daemon keeps an unanswered message in
``personad.db`` (the inbox) until it is answered, also across a SIGKILL. Once it is answered
no copy of its text may be left in ``personad.db``, its ``-wal`` or its ``-shm``: the bytes
of the files are read, not the tables. Off The Record, a command's reply that quotes what
the user typed waits for a refusing platform in memory only: its words are in no file of the
data folder, and it arrives once the platform takes it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.daemon_process import DaemonProcess
from tests.fakes.lifecycle import quiet_port
from tests.fakes.nctalk_server import FakeTalkServer, PostedMessage
from tests.fakes.streaming_model import StreamingModel, expected_answer
from tests.harness import make_persona

SECRET = "0123456789abcdef" * 4
ROOM = "scott-room"
WORDS = 6

CONFIG = """\
[daemon]
data_dir = "{data}"
log_format = "json"
[http]
host = "127.0.0.1"
port = {port}
token_env = "PERSONAD_API_TOKEN"
[llm.backends.local]
kind = "openai_compat"
model = "m"
base_url = "{model}"
timeout = 20.0
[llm.roles.chat]
backend = "local"
[memory]
backend = "none"
embeddings = "off"
[distill]
auto = false
[users.scott]
identities = ["nctalk:scott"]
[adapters.nctalk]
enabled = true
backend_url = "{talk}"
secret = "{secret}"
direct_rooms = ["{room}"]
retry_base_seconds = 0.01
"""


@dataclass
class World:
    talk: FakeTalkServer
    model: StreamingModel
    daemon: DaemonProcess
    data: Path
    _next_id: int = 100

    async def start(self) -> None:
        await asyncio.to_thread(self.daemon.start)

    async def say(self, text: str) -> None:
        self._next_id += 1
        delivery = await self.talk.deliver_message(
            actor="users/scott", room=ROOM, text=text, message_id=self._next_id
        )
        assert delivery.status == 200, delivery

    async def answers(self, count: int, within: float = 30.0) -> list[PostedMessage]:
        await until(lambda: len(self.talk.messages) >= count, within)
        return list(self.talk.messages)

    def state_files(self) -> list[Path]:
        """``personad.db`` and what SQLite keeps beside it."""
        return [p for p in self.data.glob("personad.db*") if p.is_file()]

    def holding(self, word: str, files: list[Path]) -> list[str]:
        """The files among ``files`` whose bytes hold ``word``."""
        needle = word.encode()
        return [p.name for p in files if p.is_file() and needle in p.read_bytes()]

    def every_file(self) -> list[Path]:
        return [p for p in self.data.rglob("*") if p.is_file()]

    async def lets_go_of(self, word: str, files: Callable[[], list[Path]]) -> None:
        """Wait (a few seconds at most) until no file holds ``word``; fail naming those that
        still do."""
        try:
            await until(lambda: not self.holding(word, files()), 5.0)
        except TimeoutError:
            raise AssertionError(f"{word!r} is left in {self.holding(word, files())}") from None

    def waiting(self) -> int:
        """How many answers to Talk wait in the daemon's outbox (``/status``)."""
        return int(self.daemon.status()["adapters"]["nctalk"]["outbox"]["waiting"])


async def until(check: Callable[[], bool], within: float) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.05)


@asynccontextmanager
async def talk_world(tmp_path: Path, config_text: str = CONFIG) -> AsyncIterator[World]:
    """``personad run`` with the loopback Talk and model, its config ``config_text`` (the
    fields of :data:`CONFIG` filled in)."""
    data = tmp_path / "data"
    make_persona(data, "scott")
    port = quiet_port()
    async with FakeTalkServer(SECRET) as talk:
        talk.webhook_url = f"http://127.0.0.1:{port}/webhooks/nctalk"
        with StreamingModel.run_in_thread(words=WORDS) as model:
            config = tmp_path / "personad.toml"
            fields = {"port": port, "model": model.api_url, "talk": talk.url, "room": ROOM}
            config.write_text(config_text.format(data=data, secret=SECRET, **fields))
            daemon = DaemonProcess(config, port, tmp_path / "daemon.log")
            try:
                yield World(talk, model, daemon, data)
            finally:
                daemon.kill()


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with talk_world(tmp_path) as world:
        yield world


async def test_an_answered_message_leaves_no_copy_of_its_text(world: World) -> None:
    await world.start()
    await world.say("msg-a1 my locker code is quetzalbanjo")
    [answer] = await world.answers(1)
    assert answer.message == expected_answer("msg-a1", WORDS)
    await world.lets_go_of("quetzalbanjo", world.state_files)
    assert world.daemon.running()


async def test_a_message_cut_off_by_sigkill_leaves_no_copy_once_answered(world: World) -> None:
    await world.start()
    world.model.lead = 3600.0  # the turn waits for the model until the process is killed
    await world.say("msg-b1 the spare key is under the marmotcandle")
    await until(lambda: bool(world.model.requests), 30.0)
    # kept until answered, so the next process answers it (Talk will not deliver it again)
    assert world.holding("marmotcandle", world.state_files())
    world.daemon.kill()
    world.model.lead = 0.0
    await world.start()
    [answer] = await world.answers(1)
    assert answer.message == expected_answer("msg-b1", WORDS)
    await world.lets_go_of("marmotcandle", world.state_files)


async def test_off_the_record_command_replies_wait_in_memory_only(world: World) -> None:
    await world.start()
    await world.say("/otr on")
    [mode] = await world.answers(1)
    assert mode.message.startswith("Off The Record is on")
    world.talk.refusing = True
    await world.say("/search okapimarzipan")
    await until(lambda: world.waiting() == 1, 30.0)  # the reply waits for Talk
    await world.say("/wombatlantern")
    await until(lambda: world.waiting() == 2, 30.0)
    assert world.holding("okapimarzipan", world.every_file()) == []
    assert world.holding("wombatlantern", world.every_file()) == []
    world.talk.refusing = False
    replies = [m.message for m in (await world.answers(3))[1:]]
    assert replies == [
        "Nothing in our past conversations matches “okapimarzipan”.",
        "I don't know the command /wombatlantern. Try /help.",
    ]
    assert world.waiting() == 0
    await asyncio.sleep(1.0)  # nothing arrives twice
    assert len(world.talk.messages) == 3
    assert world.holding("okapimarzipan", world.every_file()) == []
    assert world.holding("wombatlantern", world.every_file()) == []
