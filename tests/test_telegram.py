"""The Telegram adapter against a loopback Bot API: incoming messages, polling, restarts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterContext, Incoming
from adapters.telegram.adapter import Settings, TelegramAdapter, create
from adapters.telegram.polling import OFFSET_KEY
from bot.daemon.errors import AdapterError, ConfigError
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.fakes.telegram_api import FakeTelegram

pytestmark = pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'")

MENU = [
    ("help", "Show the commands", False),
    ("OTR", "Off the record on or off", False),
    ("reload", "Reload personas", True),
    ("bad name!", "Not a valid Telegram command", False),
]


class Inbox:
    """A handler that collects events; ``block`` (every room) or ``hold[room]`` makes it
    hang until the event is set."""

    def __init__(self) -> None:
        self.events: list[Incoming] = []
        self.block: asyncio.Event | None = None
        self.hold: dict[str, asyncio.Event] = {}

    async def __call__(self, event: Incoming) -> None:
        self.events.append(event)
        if self.block is not None:
            await self.block.wait()
        if event.room in self.hold:
            await self.hold[event.room].wait()


def in_order(events: list[Incoming]) -> list[Incoming]:
    """Events in the order they were sent (chats are handled concurrently)."""
    return sorted(events, key=lambda e: int(e.event_id.rsplit(":", 1)[1]))


async def until(predicate: Callable[[], object], what: str = "condition") -> None:
    for _ in range(500):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[StateStore]:
    async with StateStore(tmp_path / "personad.db") as state:
        yield state


@pytest.fixture
def inbox() -> Inbox:
    return Inbox()


MakeAdapter = Callable[..., TelegramAdapter]


@pytest.fixture
def make_adapter(
    fake: FakeTelegram, store: StateStore, inbox: Inbox, tmp_path: Path
) -> MakeAdapter:
    def make(**overrides: Any) -> TelegramAdapter:
        add_route = overrides.pop("add_route", None)
        settings = Settings.model_validate(
            {
                "enabled": True,
                "token": fake.token,
                "base_url": fake.base_url,
                "poll_timeout": 1,
                **overrides,
            }
        )
        context = AdapterContext(
            handler=inbox,
            state=AdapterState(store, "telegram"),
            data_dir=tmp_path,
            command_menu=MENU,
            add_route=add_route,
        )
        adapter = create(settings, context)
        adapter.typing_every = 0.05
        adapter.poll_backoff = 0.05
        return adapter

    return make


@pytest.fixture
async def adapter(make_adapter: MakeAdapter) -> AsyncIterator[TelegramAdapter]:
    async with make_adapter() as running:
        assert isinstance(running, TelegramAdapter)
        yield running


async def test_private_message_round_trip(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    update = fake.push_message(4242, "Hello there")
    await until(lambda: inbox.events, "the message")
    event = inbox.events[0]
    message_id = update["message"]["message_id"]
    assert (event.platform, event.sender, event.room) == ("telegram", "4242", "4242")
    assert event.identity == "telegram:4242"
    assert event.event_id == f"4242:{message_id}"
    assert event.text == "Hello there"
    assert event.is_direct and event.addressed and event.kind == "text"
    assert event.sender_name == "Scott"

    sent_id = await adapter.send(event.room, "**Hi** Scott", reply_to=event.event_id)
    assert fake.sent[-1]["visible"] == "Hi Scott"
    assert fake.sent[-1]["parse_mode"] == "HTML"
    assert fake.sent[-1]["reply_to"] == message_id
    assert sent_id == str(fake.sent[-1]["message_id"])
    assert adapter.health.running and adapter.health.age() < 60


async def test_group_messages_are_addressed_only_by_mention_reply_or_command(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    group = -100200300
    fake.push_message(group, "just chatting", chat_type="supergroup")
    fake.push_message(group, "@persona_bot what is the time?", chat_type="supergroup")
    fake.push_message(group, "hey @Persona_Bot, look", chat_type="supergroup")
    fake.push_message(group, "@someone_else hello", chat_type="supergroup")
    await until(lambda: len(inbox.events) == 4, "four group messages")
    chatting, mention, inside, other = inbox.events
    assert not chatting.is_direct and not chatting.addressed
    assert mention.addressed and mention.text == "what is the time?"
    assert inside.addressed and inside.text == "hey @Persona_Bot, look"
    assert not other.addressed
    assert mention.room == str(group)

    bot_reply = await adapter.send(str(group), "It is noon.")
    fake.push_message(group, "thanks!", chat_type="supergroup", reply_to=int(bot_reply))
    other_message = fake.push_message(group, "first", chat_type="supergroup")
    fake.push_message(
        group, "me too", chat_type="supergroup", reply_to=other_message["message"]["message_id"]
    )
    await until(lambda: len(inbox.events) == 7, "the replies")
    assert inbox.events[4].addressed and inbox.events[4].reply_to == f"{group}:{bot_reply}"
    assert not inbox.events[6].addressed


async def test_commands_with_and_without_the_bot_name(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    group = -4001
    fake.push_message(group, "/status@persona_bot all", chat_type="group")
    fake.push_message(group, "/help", chat_type="group")
    fake.push_message(group, "/status@other_bot", chat_type="group")
    fake.push_message(4242, "/otr@persona_bot on")
    await until(lambda: len(inbox.events) == 4, "four commands")
    named, bare, foreign, private = in_order(inbox.events)
    assert named.addressed and named.text == "/status all"
    assert bare.addressed and bare.text == "/help"
    assert not foreign.addressed and foreign.text == "/status@other_bot"
    assert private.text == "/otr on"


async def test_redelivered_update_keeps_its_event_id(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    update = fake.push_message(4242, "only once please")
    fake.push_update({"message": update["message"]})
    await until(lambda: len(inbox.events) == 2, "both deliveries")
    assert inbox.events[0].event_id == inbox.events[1].event_id


async def test_attachments_and_service_messages(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    photo = [{"file_id": "p1", "file_unique_id": "u1", "width": 90, "height": 90}]
    sticker = {
        "file_id": "s1",
        "file_unique_id": "su1",
        "width": 512,
        "height": 512,
        "is_animated": False,
        "is_video": False,
        "type": "regular",
    }
    voice = {"file_id": "v1", "file_unique_id": "vu1", "duration": 3}
    document = {"file_id": "d1", "file_unique_id": "du1", "file_name": "notes.pdf"}
    fake.push_message(4242, None, extra={"photo": photo, "caption": "our garden"})
    fake.push_message(4242, None, extra={"sticker": sticker})
    fake.push_message(4242, None, extra={"voice": voice})
    fake.push_message(4242, None, extra={"document": document})
    fake.push_message(-77, None, chat_type="group", extra={"photo": photo})
    fake.push_message(-77, None, chat_type="group", extra={"new_chat_title": "Renamed"})
    fake.push_message(4242, "after the media")
    await until(lambda: len(inbox.events) == 6, "six events")
    kinds = [(e.kind, e.text, e.addressed) for e in in_order(inbox.events)]
    assert kinds == [
        ("attachment", "our garden", True),
        ("attachment", "", True),
        ("attachment", "", True),
        ("attachment", "", True),
        ("attachment", "", False),
        ("text", "after the media", True),
    ]


async def test_malformed_and_edited_updates_are_skipped_without_stopping(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    fake.push_update({"message": {"garbage": True}})
    fake.push_update({"message": "not an object"})
    fake.push_update({"edited_message": fake.message(4242, "edited text")})
    fake.push_update({"callback_query": {"id": "1"}})
    last = fake.push_message(4242, "still listening")
    await until(lambda: inbox.events, "the good message")
    assert [e.text for e in inbox.events] == ["still listening"]
    await until(
        lambda: (
            fake.requests[-1][0] == "getupdates"
            and fake.requests[-1][1].get("offset") == str(last["update_id"] + 1)
        ),
        "the offset to move past every update",
    )
    assert adapter.health.running


async def test_offset_survives_a_restart(
    fake: FakeTelegram, make_adapter: MakeAdapter, store: StateStore, inbox: Inbox
) -> None:
    async with make_adapter():
        first = fake.push_message(4242, "before the restart")
        await until(lambda: inbox.events, "the first message")
        saved = AdapterState(store, "telegram")
        await until(lambda: fake.requests[-1][1].get("offset"), "a confirming poll")
    assert await saved.get(OFFSET_KEY) == str(first["update_id"] + 1)
    # the server forgets nothing it was not told to: without the saved offset the first
    # update would come back
    fake.push_update({"message": first["message"]} | {"update_id": first["update_id"]})
    fake.push_message(4242, "after the restart")
    async with make_adapter():
        await until(lambda: len(inbox.events) == 2, "the second message")
        polls = [p for m, p in fake.requests if m == "getupdates"]
    assert [e.text for e in inbox.events] == ["before the restart", "after the restart"]
    assert polls[-1]["offset"] != ""


async def test_unfinished_turn_is_delivered_again_after_a_crash(
    fake: FakeTelegram, make_adapter: MakeAdapter, inbox: Inbox
) -> None:
    inbox.block = asyncio.Event()
    adapter = make_adapter(drain_seconds=0)
    await adapter.start()
    fake.push_message(4242, "a long question")
    await until(lambda: inbox.events, "the question")
    await adapter.stop()  # the turn is cut short: the update stays unconfirmed
    inbox.block = None
    async with make_adapter():
        await until(lambda: len(inbox.events) == 2, "the question again")
    assert inbox.events[0].event_id == inbox.events[1].event_id


async def test_recovers_from_dropped_connections_and_bad_gateways(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    fake.drop_next(2)
    fake.fail_next(2, status=502)
    fake.push_message(4242, "are you there?")
    await until(lambda: inbox.events, "the message after the outage")
    assert adapter.health.reconnects >= 1
    assert adapter.health.running


async def test_watchdog_restart_stop_then_start(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    await adapter.stop()
    await adapter.stop()  # twice is fine
    assert not adapter.health.running
    await adapter.start()
    fake.push_message(4242, "after the restart")
    await until(lambda: inbox.events, "a message on the restarted adapter")
    await adapter.send("4242", "still here")
    assert fake.texts("4242") == ["still here"]
    conflicts = [m for m, _ in fake.requests if m == "getupdates"]
    assert conflicts  # polling resumed


async def test_command_menu_is_published_without_admin_commands(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    assert fake.commands == [
        {"command": "help", "description": "Show the commands"},
        {"command": "otr", "description": "Off the record on or off"},
    ]


async def test_bad_token_fails_start_without_leaking_it(
    fake: FakeTelegram, make_adapter: MakeAdapter
) -> None:
    adapter = make_adapter(token="999:wrong-secret-token")
    with pytest.raises(AdapterError) as caught:
        await adapter.start()
    assert "wrong-secret-token" not in str(caught.value)
    assert not adapter.health.running
    await adapter.stop()


async def test_sending_while_stopped_is_a_clear_error(make_adapter: MakeAdapter) -> None:
    with pytest.raises(AdapterError, match="not running"):
        await make_adapter().send("4242", "hello")


def test_settings_need_a_token_and_a_complete_webhook(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN"):
        Settings().resolve_token()
    monkeypatch.setenv("MY_TOKEN", "1:abc")
    assert Settings(token_env="MY_TOKEN").resolve_token() == "1:abc"
    with pytest.raises(ValueError, match="webhook_url"):
        Settings(mode="webhook")
    with pytest.raises(ValueError, match="extra"):
        Settings.model_validate({"tokn": "x"})
    assert Settings(base_url="http://127.0.0.1:8081").api_url() == "http://127.0.0.1:8081/bot"
    assert Settings().api_url() == "https://api.telegram.org/bot"


async def test_chats_run_concurrently_handed_over_in_order_and_unfinished_stay_unconfirmed(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    release = inbox.hold["4242"] = asyncio.Event()

    def seen() -> list[str]:
        return [e.text for e in inbox.events]

    blocked = fake.push_message(4242, "a long question")
    await until(lambda: seen() == ["a long question"], "the slow turn to start")
    fake.push_message(4242, "a follow-up")
    fake.push_message(5151, "another chat")
    await until(lambda: "another chat" in seen(), "the other chat to be answered")
    # handed over in order without waiting for the turn before it: the core keeps the chat's
    # order and answers a follow-up that arrives during a turn with the next one
    await until(lambda: "a follow-up" in seen(), "the follow-up to be handed over")
    assert seen().index("a long question") < seen().index("a follow-up")
    assert blocked["update_id"] in [u["update_id"] for u in fake.pending]
    release.set()
    await until(lambda: not fake.pending, "every update to be confirmed")
