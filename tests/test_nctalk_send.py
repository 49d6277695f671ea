"""The Nextcloud Talk adapter posting answers through the OCS bot API, and its settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from adapters.base import AdapterContext, Incoming
from adapters.nctalk.adapter import NCTalkAdapter, Settings, create
from bot.daemon.errors import AdapterError, ConfigError
from tests.fakes.nctalk_server import FakeTalkServer
from tests.fakes.state import MemoryState

SECRET = "0123456789abcdef" * 4
OTHER_SECRET = "fedcba9876543210" * 4


async def _ignore(incoming: Incoming) -> None:
    return None


def _context() -> AdapterContext:
    routes: list[str] = []
    return AdapterContext(
        handler=_ignore,
        state=MemoryState(),
        data_dir=Path("."),
        add_route=lambda method, path, fn: routes.append(path),
    )


def _settings(talk: FakeTalkServer, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "enabled": True,
        "backend_url": talk.url + "/",
        "secret": SECRET,
        "retry_base_seconds": 0.01,
    }
    values.update(overrides)
    return Settings.model_validate(values)


@pytest.fixture
async def talk() -> AsyncIterator[FakeTalkServer]:
    async with FakeTalkServer(SECRET) as server:
        yield server


@pytest.fixture
async def adapter(talk: FakeTalkServer) -> AsyncIterator[NCTalkAdapter]:
    async with create(_settings(talk), _context()) as started:
        assert isinstance(started, NCTalkAdapter)
        yield started


async def test_send_posts_signed_markdown(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    reference = await adapter.send("room1", "# Title\n\n*hello*")
    [posted] = talk.messages
    assert posted.message == "# Title\n\n*hello*"
    assert posted.reference_id == reference
    assert posted.reply_to is None and not posted.silent
    assert adapter.supports_edit is False


async def test_throttled_send_is_retried(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    talk.fail_next(429, 500, 429)
    await adapter.send("room1", "eventually")
    assert [r.status for r in talk.requests] == [429, 500, 429, 201]
    assert [m.message for m in talk.messages] == ["eventually"]


async def test_persistent_throttling_gives_up_with_a_clear_error(
    talk: FakeTalkServer, adapter: NCTalkAdapter
) -> None:
    talk.fail_next(*[429] * 10)
    with pytest.raises(AdapterError, match="failed after 5 attempts"):
        await adapter.send("room1", "never")
    assert talk.messages == []


async def test_wrong_secret_is_a_clear_error(talk: FakeTalkServer) -> None:
    async with create(_settings(talk, secret=OTHER_SECRET), _context()) as wrong:
        with pytest.raises(AdapterError, match=r"secret.*talk:bot:install"):
            await wrong.send("room1", "hello")
    assert [r.status for r in talk.requests] == [401]


async def test_unknown_room_is_an_error(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    talk.rooms = {"known"}
    with pytest.raises(AdapterError, match="not found"):
        await adapter.send("missing", "hello")


async def test_long_text_is_split_and_only_the_first_part_replies(
    talk: FakeTalkServer, adapter: NCTalkAdapter
) -> None:
    talk.add_message("room1", 7)
    paragraphs = [f"Paragraph {n}: " + "word " * 2000 for n in range(8)]
    text = "\n\n".join(paragraphs)
    assert len(text) > 32000
    await adapter.send("room1", text, reply_to="7")
    assert len(talk.messages) >= 2
    assert all(len(m.message) <= 32000 for m in talk.messages)
    assert [m.reply_to for m in talk.messages] == [7] + [None] * (len(talk.messages) - 1)
    joined = " ".join(m.message for m in talk.messages).split()
    assert joined == text.split()


async def test_413_splits_smaller(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    talk.max_length = 1000
    text = "\n\n".join(f"Line {n} " + "abc " * 60 for n in range(10))
    assert len(text) > 2000
    await adapter.send("room1", text)
    accepted = talk.messages
    assert len(accepted) >= 3
    assert all(len(m.message) <= 1000 for m in accepted)
    assert " ".join(m.message for m in accepted).split() == text.split()
    assert 413 in [r.status for r in talk.requests]


async def test_refused_reply_to_is_sent_without_it(
    talk: FakeTalkServer, adapter: NCTalkAdapter
) -> None:
    await adapter.send("room1", "answer", reply_to="123456")
    [posted] = talk.messages
    assert posted.message == "answer" and posted.reply_to is None
    assert [r.status for r in talk.requests] == [400, 201]


async def test_empty_text_is_refused_locally(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    with pytest.raises(AdapterError):
        await adapter.send("room1", "   \n")
    assert talk.requests == []


async def test_silent_setting_is_passed(talk: FakeTalkServer) -> None:
    async with create(_settings(talk, silent=True), _context()) as quiet:
        await quiet.send("room1", "shh")
    assert talk.messages[0].silent


async def test_send_touches_health(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    before = adapter.health.last_ok
    await adapter.send("room1", "tick")
    assert adapter.health.last_ok > before


async def test_typing_is_a_no_op(talk: FakeTalkServer, adapter: NCTalkAdapter) -> None:
    await adapter.typing("room1", True)
    await adapter.typing("room1", False)
    assert talk.requests == []


async def test_server_down_is_an_adapter_error(talk: FakeTalkServer) -> None:
    settings = _settings(talk, backend_url="http://127.0.0.1:9", send_attempts=2)
    async with create(settings, _context()) as down:
        with pytest.raises(AdapterError, match="after 2 attempts"):
            await down.send("room1", "hello")


# -- settings -------------------------------------------------------------------------------


def test_webhook_path_must_be_under_webhooks() -> None:
    with pytest.raises(ValidationError, match="/webhooks/"):
        Settings(enabled=True, backend_url="https://cloud.example.org", webhook_path="/talk")


def test_enabled_needs_a_backend_url() -> None:
    with pytest.raises(ConfigError, match=r"adapters\.nctalk\.backend_url"):
        create(Settings(enabled=True, secret=SECRET), _context())
    assert Settings().enabled is False


def test_secret_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TALK_SECRET", SECRET)
    settings = Settings(
        enabled=True, backend_url="https://c.example.org", secret_env="MY_TALK_SECRET"
    )
    assert settings.secret_value() == SECRET
    assert SECRET not in repr(Settings(secret=SECRET))


def test_missing_or_short_secret_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NCTALK_BOT_SECRET", raising=False)
    with pytest.raises(ConfigError, match="NCTALK_BOT_SECRET"):
        create(Settings(enabled=True, backend_url="https://c.example.org"), _context())
    with pytest.raises(ConfigError, match="40 to 128"):
        create(
            Settings(enabled=True, backend_url="https://c.example.org", secret="short"), _context()
        )


async def test_without_an_http_server_start_fails_clearly(talk: FakeTalkServer) -> None:
    context = AdapterContext(handler=_ignore, state=MemoryState(), data_dir=Path("."))
    adapter = create(_settings(talk), context)
    with pytest.raises(AdapterError, match=r"http\.enabled"):
        async with adapter:
            pass
    assert not adapter.health.running
