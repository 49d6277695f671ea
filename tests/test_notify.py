"""Notices to a user's notification room, on Talk (the loopback fake) and on any adapter."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.base import Adapter, AdapterContext, Incoming
from adapters.nctalk.adapter import Settings, create
from bot.daemon.errors import AdapterError
from bot.daemon.notify import HELD_BACK, Notifier, parse_room
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.setup.preflight import shared_notification_warnings
from tests.fakes.nctalk_server import FakeTalkServer
from tests.fakes.state import MemoryState
from tests.harness import make_config, make_persona

SECRET = "0123456789abcdef" * 4


async def _ignore(incoming: Incoming) -> None:
    return None


def _context() -> AdapterContext:
    return AdapterContext(
        handler=_ignore,
        state=MemoryState(),
        data_dir=Path("."),
        add_route=lambda method, path, fn: None,
    )


class RecordingAdapter(Adapter):
    """A platform that keeps what it was asked to send; ``fail`` makes every send fail."""

    def __init__(self, platform: str, *, fail: bool = False) -> None:
        super().__init__(_context())
        self.platform = platform
        self.fail = fail
        self.sent: list[tuple[str, str]] = []

    async def start(self) -> None:
        self.health.running = True

    async def stop(self) -> None:
        self.health.running = False

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if self.fail:
            raise AdapterError(f"{self.platform} is down")
        self.sent.append((room, text))
        return str(len(self.sent))


CONFIG = Config.model_validate(
    {
        "users": {
            "scott": {"identities": ["nctalk:scott"], "notification_room": "nctalk:abc123"},
            "holly": {"identities": ["matrix:@holly:hs"], "notification_room": "matrix:!r:hs"},
            "brian": {"identities": ["telegram:42"]},
            "ann": {"identities": ["discord:7"], "notification_room": "discord:555"},
        }
    }
)


@pytest.fixture
async def talk() -> AsyncIterator[FakeTalkServer]:
    async with FakeTalkServer(SECRET) as server:
        yield server


async def test_notice_reaches_the_talk_room(talk: FakeTalkServer) -> None:
    settings = Settings(enabled=True, backend_url=talk.url, secret=SECRET)
    async with create(settings, _context()) as nctalk:
        notifier = Notifier(CONFIG, {"nctalk": nctalk})
        assert await notifier.notify("scott", "Weekly memory distilled.") is True
    [posted] = talk.messages
    assert (posted.token, posted.message) == ("abc123", "Weekly memory distilled.")


async def test_room_ids_with_colons_survive() -> None:
    matrix = RecordingAdapter("matrix")
    await matrix.start()
    assert await Notifier(CONFIG, {"matrix": matrix}).notify("holly", "done")
    assert matrix.sent == [("!r:hs", "done")]
    assert parse_room("matrix:!r:hs") == ("matrix", "!r:hs")


async def test_no_room_unknown_user_or_missing_adapter_is_false() -> None:
    notifier = Notifier(CONFIG, {})
    assert await notifier.notify("brian", "x") is False
    assert await notifier.notify("nobody", "x") is False
    assert await notifier.notify("scott", "x") is False


async def test_stopped_adapter_is_false() -> None:
    discord = RecordingAdapter("discord")
    assert await Notifier(CONFIG, {"discord": discord}).notify("ann", "x") is False
    assert discord.sent == []


async def test_failing_send_is_false_not_raised(talk: FakeTalkServer) -> None:
    broken = RecordingAdapter("discord", fail=True)
    await broken.start()
    assert await Notifier(CONFIG, {"discord": broken}).notify("ann", "x") is False
    settings = Settings(enabled=True, backend_url=talk.url, secret=SECRET)
    async with create(settings, _context()) as nctalk:
        talk.fail_next(401)
        assert await Notifier(CONFIG, {"nctalk": nctalk}).notify("scott", "x") is False


async def test_adapters_are_looked_up_at_each_call() -> None:
    live: dict[str, Adapter] = {}
    notifier = Notifier(CONFIG, live)
    assert await notifier.notify("ann", "first") is False
    discord = RecordingAdapter("discord")
    await discord.start()
    live["discord"] = discord
    assert await notifier.notify("ann", "second") is True
    assert discord.sent == [("555", "second")]


def test_parse_room_rejects_a_bare_value() -> None:
    with pytest.raises(ValueError):
        parse_room("abc123")


async def test_a_telegram_group_holds_back_private_notices_before_the_persona_speaks_there(
    tmp_path: Path,
) -> None:
    """A Telegram chat id below zero is a group's: private notices are held back there from
    the start, and ``check-config`` says so; a private chat's id (the user's own) takes them."""
    config = make_config(
        tmp_path,
        users={"scott": {"identities": ["telegram:42"], "notification_room": "telegram:-1001234"}},
    )
    make_persona(tmp_path, "scott")
    telegram = RecordingAdapter("telegram")
    await telegram.start()
    notifier = Notifier(config, {"telegram": telegram}, PersonaStore(tmp_path))
    assert not await notifier.notify("scott", "take the Zanzibarpills", private=True)
    assert telegram.sent == [("-1001234", HELD_BACK)]
    assert await notifier.notify("scott", "inara: mid-term memory updated")
    [warning] = shared_notification_warnings(config)
    assert "telegram:-1001234 is a shared room" in warning
    direct = make_config(
        tmp_path,
        users={"scott": {"identities": ["telegram:42"], "notification_room": "telegram:42"}},
    )
    assert shared_notification_warnings(direct) == []
    notifier = Notifier(direct, {"telegram": telegram}, PersonaStore(tmp_path))
    assert await notifier.notify("scott", "take the Zanzibarpills", private=True)
    assert telegram.sent[-1] == ("42", "take the Zanzibarpills")
