"""The Discord adapter against a loopback Discord: messages in, answers out, the connection.

discord.py itself talks to :class:`tests.fakes.discord_api.FakeDiscord` (REST and gateway);
these tests check what reaches the handler and what the adapter puts on the wire.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterContext, Incoming, KeyValueStore
from adapters.discord.adapter import DiscordAdapter, Settings, create
from adapters.discord.send import DISCORD_MAX_CHARS
from bot.daemon.errors import AdapterError, ConfigError
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.state import MemoryState

MENU = [
    ("help", "What I can do", False),
    ("otr", "Off the record on or off", False),
    ("tier", "How much context to load", False),
    ("status", "Session status", False),
    ("new", "Start a new session", False),
    ("reload", "Reload configuration", True),
    ("users", "List users", True),
    ("distill", "Distill memory now", True),
    ("persona", "Show or switch persona", False),
]


class Collector:
    """The test's handler: records every event; can answer through the adapter."""

    def __init__(self) -> None:
        self.events: list[Incoming] = []
        self.adapter: DiscordAdapter | None = None
        self.answer: str | None = None

    async def __call__(self, incoming: Incoming) -> None:
        self.events.append(incoming)
        if self.answer is not None and self.adapter is not None:
            await self.adapter.send(incoming.room, self.answer, reply_to=incoming.event_id)


@pytest.fixture(name="fake")
async def fake_fixture() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(heartbeat_ms=200) as server:
        server.add_guild("home")
        yield server


@pytest.fixture(name="events")
def events_fixture() -> Collector:
    return Collector()


@pytest.fixture(name="state")
def state_fixture() -> MemoryState:
    return MemoryState()


def make_adapter(
    fake: FakeDiscord, events: Collector, state: KeyValueStore, tmp_path: Path, **extra: Any
) -> DiscordAdapter:
    settings = Settings(
        enabled=True,
        token=fake.token,
        token_env=None,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        connect_timeout=10,
        **extra,
    )
    context = AdapterContext(handler=events, state=state, data_dir=tmp_path, command_menu=MENU)
    adapter = create(settings, context)
    events.adapter = adapter
    return adapter


@pytest.fixture(name="adapter")
async def adapter_fixture(
    fake: FakeDiscord, events: Collector, state: MemoryState, tmp_path: Path
) -> AsyncIterator[DiscordAdapter]:
    async with make_adapter(fake, events, state, tmp_path) as running:
        assert isinstance(running, DiscordAdapter)
        yield running


def guild(fake: FakeDiscord) -> tuple[str, str]:
    guild_id = next(iter(fake.guilds))
    return guild_id, fake.guilds[guild_id]["channels"][0]["id"]


# --------------------------------------------------------------------------- settings
def test_token_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_DISCORD_TOKEN", " abc.def ")
    assert Settings(token_env="MY_DISCORD_TOKEN").token_value() == "abc.def"
    monkeypatch.delenv("MY_DISCORD_TOKEN")
    with pytest.raises(ConfigError, match="MY_DISCORD_TOKEN"):
        Settings(token_env="MY_DISCORD_TOKEN").token_value()


def test_bad_urls_are_refused() -> None:
    with pytest.raises(ValueError, match="ws"):
        Settings(gateway_url="http://127.0.0.1:1/gateway")
    with pytest.raises(ValueError, match="http"):
        Settings(api_base="ftp://example")


async def test_wrong_token_fails_start_cleanly(
    fake: FakeDiscord,
    events: Collector,
    state: MemoryState,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WRONG_DISCORD_TOKEN", "wrong-token")
    adapter = make_adapter(fake, events, state, tmp_path)
    adapter.settings = adapter.settings.model_copy(
        update={"token": None, "token_env": "WRONG_DISCORD_TOKEN"}
    )
    with pytest.raises(AdapterError, match="rejected the bot token"):
        await adapter.start()
    assert not adapter.health.running and fake.identifies == 0
    await adapter.stop()


async def test_missing_message_content_intent_fails_start_with_the_reason(
    fake: FakeDiscord, events: Collector, state: MemoryState, tmp_path: Path
) -> None:
    fake.refuse_identify = 4014
    adapter = make_adapter(fake, events, state, tmp_path)
    with pytest.raises(AdapterError, match="privileged intents"):
        await adapter.start()
    assert not adapter.health.running and fake.identifies == 0
    await adapter.stop()


# --------------------------------------------------------------------------- messages in
async def test_direct_message_round_trip(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    scott = fake.user("scott")
    events.answer = "Hello **Scott**."
    message = await fake.dispatch_message("hi there", author=scott, channel_id="900")
    await fake.wait_for(lambda: len(fake.sent) == 1)
    [incoming] = events.events
    assert incoming.platform == "discord"
    assert incoming.identity == f"discord:{scott['id']}"
    assert (incoming.text, incoming.room, incoming.event_id) == ("hi there", "900", message["id"])
    assert incoming.is_direct and incoming.addressed and incoming.kind == "text"
    assert incoming.sender_name == "Scott"
    [answer] = fake.sent
    assert answer["channel_id"] == "900"
    assert answer["content"] == "Hello **Scott**."  # markdown goes as is: Discord renders it
    assert answer["message_reference"]["message_id"] == message["id"]


async def test_guild_message_addressed_only_by_mention_or_reply(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    guild_id, channel_id = guild(fake)
    scott = fake.user("scott")
    await fake.dispatch_message(
        "just chatting", author=scott, channel_id=channel_id, guild_id=guild_id
    )
    bot_mention = f"<@{fake.bot_user['id']}>"
    await fake.dispatch_message(
        f"{bot_mention} what's the time?",
        author=scott,
        channel_id=channel_id,
        guild_id=guild_id,
        mention_bot=True,
    )
    sent = await adapter.send(channel_id, "noon")
    await fake.dispatch_message(
        "and tomorrow?", author=scott, channel_id=channel_id, guild_id=guild_id, reply_to=sent
    )
    await fake.wait_for(lambda: len(events.events) == 3)
    chatting, mentioned, replied = events.events
    assert not chatting.is_direct and not chatting.addressed
    assert mentioned.addressed and mentioned.text == "what's the time?"
    assert replied.addressed and replied.reply_to == sent and replied.text == "and tomorrow?"


async def test_own_and_other_bots_messages_are_ignored(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    await fake.dispatch_message("echo", author=fake.bot_user, channel_id="900")
    await fake.dispatch_message("beep", author=fake.user("robot", bot=True), channel_id="900")
    await fake.dispatch_message("a person", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    assert [e.text for e in events.events] == ["a person"]


async def test_files_and_stickers_are_attachments_with_the_text_as_caption(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    scott = fake.user("scott")
    await fake.dispatch_message("", author=scott, channel_id="900", attachments=("cat.png",))
    await fake.dispatch_message("", author=scott, channel_id="900", stickers=("wave",))
    await fake.dispatch_message("look", author=scott, channel_id="900", attachments=("a.pdf",))
    await fake.wait_for(lambda: len(events.events) == 3)
    photo, sticker, captioned = events.events
    assert (photo.kind, photo.text) == ("attachment", "")
    assert [a.name for a in photo.attachments] == ["cat.png"]
    assert (sticker.kind, sticker.text, sticker.attachments) == ("attachment", "", ())
    assert (captioned.kind, captioned.text) == ("attachment", "look")
    assert [a.name for a in captioned.attachments] == ["a.pdf"]


async def test_redelivered_message_keeps_its_event_id(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    message = await fake.dispatch_message("once", author=fake.user("scott"), channel_id="900")
    await fake.redeliver(message)
    await fake.wait_for(lambda: len(events.events) == 2)
    assert events.events[0].event_id == events.events[1].event_id == message["id"]


async def test_malformed_dispatch_is_ignored(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    await fake.dispatch("MESSAGE_CREATE", {"id": "1", "content": "no author, no channel"})
    await fake.dispatch("MESSAGE_CREATE", None)
    await fake.dispatch("SOMETHING_NEW", {"x": 1})
    await fake.dispatch_message("still here", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    assert events.events[0].text == "still here"
    assert fake.identifies == 1 and adapter.health.reconnects == 0


async def test_garbage_frame_costs_the_connection_not_the_adapter(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    await fake.send_text("this is not JSON")
    await fake.wait_for(lambda: fake.identifies == 2 and fake.connected)
    await fake.dispatch_message("back again", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    assert adapter.health.running and adapter.health.reconnects == 1


async def test_handler_failure_does_not_stop_delivery(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    seen: list[str] = []

    async def failing(incoming: Incoming) -> None:
        seen.append(incoming.text)
        raise RuntimeError("handler bug")

    adapter.context.handler = failing
    await fake.dispatch_message("one", author=fake.user("scott"), channel_id="900")
    await fake.dispatch_message("two", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(seen) == 2)
    assert adapter.health.running


# --------------------------------------------------------------------------- answers out
async def test_long_answer_split_with_code_blocks_intact(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    code = "\n".join(f"print({n})" for n in range(400))
    text = "Here is the script:\n\n```python\n" + code + "\n```\n\nThat is all."
    assert len(text) > 2 * DISCORD_MAX_CHARS
    last = await adapter.send("900", text, reply_to="123")
    chunks = [m["content"] for m in fake.sent]
    assert len(chunks) >= 3 and all(len(c) <= DISCORD_MAX_CHARS for c in chunks)
    assert last == fake.sent[-1]["id"]
    for chunk in chunks:
        assert chunk.count("```") % 2 == 0, chunk[:80]
    assert all(c.startswith("```python") for c in chunks[1:-1])
    joined = "\n".join(chunks)
    assert all(f"print({n})" in joined for n in range(400))
    # only the first part answers the message
    assert fake.sent[0]["message_reference"]["message_id"] == "123"
    assert all("message_reference" not in m for m in fake.sent[1:])


async def test_empty_answer_is_refused(adapter: DiscordAdapter) -> None:
    with pytest.raises(AdapterError, match="empty"):
        await adapter.send("900", "  \n ")


async def test_typing_and_edit(fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    await adapter.typing("900", True)
    await adapter.typing("900", True)  # within the indicator's lifetime: no second request
    await fake.wait_for(lambda: fake.typing == ["900"])
    await adapter.typing("900", False)
    await adapter.typing("900", True)
    assert fake.typing == ["900", "900"]
    message_id = await adapter.send("900", "draft")
    await adapter.edit("900", message_id, "final *answer*")
    assert fake.edits == [{"id": message_id, "content": "final *answer*", "via": "channel"}]
    assert fake.messages[message_id]["content"] == "final *answer*"
    with pytest.raises(AdapterError):
        await adapter.edit("900", message_id, "x" * (DISCORD_MAX_CHARS + 1))
    with pytest.raises(AdapterError, match="not found"):
        await adapter.edit("900", "42", "no such message")


async def test_send_to_user_opens_a_direct_message(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    await adapter.send("user:777", "a reminder")
    assert fake.sent[-1]["channel_id"] == "7771"  # the fake's DM channel id for user 777
    with pytest.raises(AdapterError, match="channel id"):
        await adapter.send("general", "where?")


# --------------------------------------------------------------------------- connection
async def test_dropped_gateway_resumes_and_keeps_delivering(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    scott = fake.user("scott")
    await fake.dispatch_message("before", author=scott, channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    await fake.drop_connection()
    await fake.dispatch_message("while away", author=scott, channel_id="900")
    await fake.wait_for(lambda: fake.resumes == 1 and fake.connected)
    await fake.dispatch_message("after", author=scott, channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 3)
    assert [e.text for e in events.events] == ["before", "while away", "after"]
    assert fake.identifies == 1
    assert adapter.health.reconnects == 1 and adapter.health.running


async def test_invalid_session_identifies_again(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    fake._session_id = "forgotten"  # the server lost the session: RESUME is refused
    await fake.drop_connection()
    await fake.wait_for(lambda: fake.identifies == 2 and fake.connected)
    await fake.dispatch_message("new session", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    assert adapter.health.reconnects >= 1


async def test_heartbeat_acks_keep_health_fresh(fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    seen = adapter.health.last_ok
    beats = fake.heartbeats
    await fake.wait_for(lambda: fake.heartbeats >= beats + 2)
    await fake.wait_for(lambda: adapter.health.last_ok > seen)
    assert adapter.health.age() < adapter.settings.stall_seconds


async def test_watchdog_restart_builds_a_new_client(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    first = adapter._client
    await adapter.stop()
    assert not adapter.health.running
    await adapter.stop()  # twice is fine
    await adapter.start()
    assert adapter.health.running and adapter._client is not first
    await fake.dispatch_message("after restart", author=fake.user("scott"), channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 1)
    assert fake.identifies == 2


def test_every_module_lists_its_public_names() -> None:
    import importlib

    for name in (
        "discord.adapter",
        "discord.client",
        "discord.commands",
        "discord.incoming",
        "discord.settings",
    ):
        module = importlib.import_module(f"adapters.{name}")
        assert module.__all__, name
        for public in module.__all__:
            assert hasattr(module, public), f"adapters.{name}.{public}"
