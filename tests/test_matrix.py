"""The Matrix adapter against a real Synapse, with a second real client as the human."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from nio import AsyncClient
from pydantic import SecretStr

from adapters.base import AdapterContext
from adapters.matrix.adapter import MatrixAdapter, Settings, create
from bot.daemon.errors import AdapterError, ConfigError
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.synapse import Collector, Human, MatrixUser, SynapseServer, human, synapse

__all__ = ["human", "synapse"]  # the fixtures, imported for pytest


@dataclass
class Rig:
    """A running adapter for a fresh bot account, its state and what it delivered."""

    bot: MatrixUser
    adapter: MatrixAdapter
    collector: Collector
    store: StateStore
    data_dir: Path

    def build(self, settings: Settings | None = None) -> MatrixAdapter:
        """Another adapter on the same account, state and data folder (a restart)."""
        context = AdapterContext(self.collector, AdapterState(self.store, "matrix"), self.data_dir)
        return create(settings or self.adapter.settings, context)


def bot_settings(server: SynapseServer, bot: MatrixUser, allowed: list[str]) -> Settings:
    return Settings(
        enabled=True,
        homeserver=server.url,
        user_id=bot.user_id,
        password=bot.password,
        allowed_inviters=allowed,
        sync_timeout_ms=3000,
        backoff_max_seconds=1.0,
    )


async def set_display_name(server: SynapseServer, user: MatrixUser, name: str) -> None:
    client = AsyncClient(server.url, user.user_id)
    client.user_id, client.access_token = user.user_id, user.access_token
    try:
        await client.set_displayname(name)
    finally:
        await client.close()


@pytest.fixture
async def rig(synapse: SynapseServer, human: Human, tmp_path: Path) -> AsyncIterator[Rig]:
    bot = synapse.register()
    await set_display_name(synapse, bot, "Inara")
    async with StateStore(tmp_path / "personad.db") as store:
        collector = Collector()
        context = AdapterContext(collector, AdapterState(store, "matrix"), tmp_path / "data")
        adapter = create(bot_settings(synapse, bot, [human.user_id]), context)
        await adapter.start()
        try:
            yield Rig(bot, adapter, collector, store, tmp_path / "data")
        finally:
            await adapter.stop()


async def open_dm(human: Human, rig: Rig) -> str:
    room = await human.create_room(rig.bot.user_id, direct=True)
    await human.wait_membership(room, rig.bot.user_id, "join")
    return room


async def test_dm_round_trip(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    event_id = await human.say(room, "hello there")

    incoming = await rig.collector.find(lambda e: e.event_id == event_id)
    assert (incoming.platform, incoming.sender, incoming.room) == ("matrix", human.user_id, room)
    assert incoming.text == "hello there"
    assert incoming.is_direct and incoming.addressed and incoming.kind == "text"
    assert incoming.identity == f"matrix:{human.user_id}"

    answer_id = await rig.adapter.send(
        room, "**Hi!** Here is code:\n\n```py\nx = 1\n```", reply_to=event_id
    )
    answer = await human.event(room, answer_id)
    content = answer["content"]
    assert answer["sender"] == rig.bot.user_id
    assert content["body"].startswith("**Hi!**")
    assert content["format"] == "org.matrix.custom.html"
    assert "<strong>Hi!</strong>" in content["formatted_body"]
    assert "<code" in content["formatted_body"] and "x = 1" in content["formatted_body"]
    assert content["m.relates_to"]["m.in_reply_to"]["event_id"] == event_id
    assert rig.adapter.health.running and rig.adapter.health.age() < 60


async def test_own_messages_are_not_delivered(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    await rig.adapter.send(room, "I speak first")
    marker = await human.say(room, "and I answer")
    await rig.collector.find(lambda e: e.event_id == marker)
    assert [e.text for e in rig.collector.events if e.room == room] == ["and I answer"]


async def test_long_answer_is_split(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    paragraphs = [f"Paragraph {n}: " + "words " * 400 for n in range(12)]
    last = await rig.adapter.send(room, "\n\n".join(paragraphs))
    sent = [
        e
        for e in await human.messages(room)
        if e["sender"] == rig.bot.user_id and e["type"] == "m.room.message"
    ]
    assert len(sent) >= 2 and sent[-1]["event_id"] == last
    assert all(len(e["content"]["body"]) <= rig.adapter.max_message_chars for e in sent)
    assert sent[0]["content"]["body"].startswith("Paragraph 0:")
    assert "Paragraph 11:" in sent[-1]["content"]["body"]


async def test_group_room_addressing(synapse: SynapseServer, rig: Rig, human: Human) -> None:
    friend = Human(synapse, synapse.register())
    try:
        room = await human.create_room(rig.bot.user_id, friend.user_id, name="group")
        await friend.client.join(room)
        await human.wait_membership(room, rig.bot.user_id, "join")
        await human.wait_membership(room, friend.user_id, "join")

        plain = await human.say(room, "just chatting with a friend")
        named = await human.say(room, "Inara: !otr on")
        by_id = await human.say(room, f"{rig.bot.user_id} what is the time?")
        pill = await human.say(
            room,
            "Inara can you help?",
            format="org.matrix.custom.html",
            formatted_body=f'<a href="https://matrix.to/#/{rig.bot.user_id}">Inara</a> '
            "can you help?",
            **{"m.mentions": {"user_ids": [rig.bot.user_id]}},
        )
        seen = {
            e.event_id: e
            for e in [
                await rig.collector.find(lambda e, i=i: e.event_id == i)
                for i in (plain, named, by_id, pill)
            ]
        }
        assert not seen[plain].is_direct
        assert seen[plain].addressed is False
        assert seen[named].addressed and seen[named].text == "!otr on"
        assert seen[by_id].addressed and seen[by_id].text == "what is the time?"
        assert seen[pill].addressed and seen[pill].text == "can you help?"

        bot_message = await rig.adapter.send(room, "I am here.")
        reply = await human.say(
            room, "thanks", **{"m.relates_to": {"m.in_reply_to": {"event_id": bot_message}}}
        )
        friend_message = await friend.say(room, "ok")
        reply_to_friend = await human.say(
            room, "sure", **{"m.relates_to": {"m.in_reply_to": {"event_id": friend_message}}}
        )
        replied = await rig.collector.find(lambda e: e.event_id == reply)
        other = await rig.collector.find(lambda e: e.event_id == reply_to_friend)
        assert replied.addressed and replied.reply_to == bot_message
        assert other.addressed is False
    finally:
        await friend.close()


async def test_invites_only_from_allowed_users(
    synapse: SynapseServer, rig: Rig, human: Human
) -> None:
    stranger = Human(synapse, synapse.register())
    try:
        refused = await stranger.create_room(rig.bot.user_id, direct=True)
        accepted = await human.create_room(rig.bot.user_id, direct=True)
        await human.wait_membership(accepted, rig.bot.user_id, "join")
        await stranger.wait_membership(refused, rig.bot.user_id, "leave")
        await stranger.say(refused, "hello?")
        marker = await human.say(accepted, "marker")
        await rig.collector.find(lambda e: e.event_id == marker)
        assert all(e.room != refused for e in rig.collector.events)
    finally:
        await stranger.close()


async def test_edit_replaces_the_message(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    first = await rig.adapter.send(room, "Thinking")
    await rig.adapter.edit(room, first, "Thinking about *this*")
    edits = [
        e
        for e in await human.messages(room)
        if e["content"].get("m.relates_to", {}).get("rel_type") == "m.replace"
    ]
    assert len(edits) == 1
    content = edits[0]["content"]
    assert content["m.relates_to"]["event_id"] == first
    assert content["body"] == "* Thinking about *this*"
    assert content["m.new_content"]["body"] == "Thinking about *this*"
    assert "<em>this</em>" in content["m.new_content"]["formatted_body"]
    assert rig.adapter.supports_edit


async def test_typing_notifications(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    first = await human.client.sync(timeout=0)
    since = getattr(first, "next_batch", None)

    async def typing_users(since: str | None) -> tuple[list[str], str | None]:
        answer: Any = await human.client.sync(timeout=3000, since=since)
        users: list[str] = []
        info = answer.rooms.join.get(room)
        for event in info.ephemeral if info else []:
            if type(event).__name__ == "TypingNoticeEvent":
                users = list(event.users)
        return users, answer.next_batch

    await rig.adapter.typing(room, True)
    users, since = await typing_users(since)
    while rig.bot.user_id not in users:
        users, since = await typing_users(since)
    await rig.adapter.typing(room, False)
    users, since = await typing_users(since)
    while rig.bot.user_id in users:
        users, since = await typing_users(since)


async def test_attachments_and_stickers(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    image = await human.send(
        room,
        {
            "msgtype": "m.image",
            "body": "cat.png",
            "url": "mxc://localhost/abcdef",
            "info": {"w": 1, "h": 1},
        },
    )
    sticker = await human.send(
        room, {"body": "wave", "url": "mxc://localhost/xyz", "info": {}}, event_type="m.sticker"
    )
    pdf = await human.send(
        room, {"msgtype": "m.file", "body": "report.pdf", "url": "mxc://localhost/pdf"}
    )
    for event_id in (image, sticker, pdf):
        incoming = await rig.collector.find(lambda e, i=event_id: e.event_id == i)
        assert incoming.kind == "attachment"
    text = await human.say(room, "still alive?")
    assert (await rig.collector.find(lambda e: e.event_id == text)).kind == "text"


async def test_restart_resumes_from_sync_token(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    before = await human.say(room, "before the restart")
    await rig.collector.find(lambda e: e.event_id == before)
    device = rig.adapter.client.device_id if rig.adapter.client else None

    await rig.adapter.stop()
    assert not rig.adapter.health.running
    during = await human.say(room, "while you were away")
    restarted = rig.build()
    await restarted.start()
    try:
        assert restarted.client is not None and restarted.client.device_id == device
        found = await rig.collector.find(lambda e: e.event_id == during)
        assert found.text == "while you were away"
        after = await human.say(room, "after the restart")
        await rig.collector.find(lambda e: e.event_id == after)
        ids = [e.event_id for e in rig.collector.events]
        assert ids.count(before) == 1 and ids.count(during) == 1 and ids.count(after) == 1
    finally:
        await restarted.stop()
    # the same object starts again after a stop
    await rig.adapter.start()
    again = await human.say(room, "same adapter again")
    await rig.collector.find(lambda e: e.event_id == again)
    assert [e.event_id for e in rig.collector.events].count(before) == 1


async def test_first_start_ignores_history(
    synapse: SynapseServer, rig: Rig, human: Human, tmp_path: Path
) -> None:
    room = await open_dm(human, rig)
    await rig.adapter.stop()
    old = await human.say(room, "said before this installation existed")
    async with StateStore(tmp_path / "fresh.db") as fresh:
        collector = Collector()
        context = AdapterContext(collector, AdapterState(fresh, "matrix"), tmp_path / "fresh")
        adapter = create(rig.adapter.settings, context)
        async with adapter:
            new = await human.say(room, "said afterwards")
            await collector.find(lambda e: e.event_id == new)
            assert all(e.event_id != old for e in collector.events)


async def test_bad_credentials_are_clear_errors(rig: Rig, tmp_path: Path) -> None:
    async with StateStore(tmp_path / "other.db") as other:
        context = AdapterContext(Collector(), AdapterState(other, "matrix"), tmp_path / "o")
        unset = rig.adapter.settings.model_copy(
            update={"password": None, "password_env": "PERSONAD_TEST_NO_SUCH_VARIABLE"}
        )
        with pytest.raises(ConfigError, match="PERSONAD_TEST_NO_SUCH_VARIABLE"):
            await create(unset, context).start()
        wrong = rig.adapter.settings.model_copy(update={"password": SecretStr("wrong")})
        adapter = create(wrong, context)
        with pytest.raises(AdapterError, match="login"):
            await adapter.start()
        assert adapter.client is None and not adapter.health.running
        await adapter.stop()


async def test_events_keep_flowing_while_handler_fails(rig: Rig, human: Human) -> None:
    room = await open_dm(human, rig)
    calls: list[str] = []
    original = rig.adapter.context.handler

    async def flaky(incoming: Any) -> None:
        calls.append(incoming.event_id)
        if incoming.text == "boom":
            raise RuntimeError("handler failed")
        await original(incoming)

    assert rig.adapter.rooms is not None
    rig.adapter.rooms.handler = flaky
    boom = await human.say(room, "boom")
    fine = await human.say(room, "fine")
    await rig.collector.find(lambda e: e.event_id == fine)
    assert calls.count(boom) == 1
    await asyncio.sleep(0)


async def test_access_token_login_uses_its_device(
    synapse: SynapseServer, human: Human, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = synapse.register()
    monkeypatch.setenv("PERSONAD_TEST_MATRIX_TOKEN", bot.access_token)
    settings = Settings(
        enabled=True,
        homeserver=synapse.url,
        user_id=bot.user_id,
        access_token_env="PERSONAD_TEST_MATRIX_TOKEN",
        allowed_inviters=[human.user_id],
        sync_timeout_ms=3000,
    )
    async with StateStore(tmp_path / "token.db") as store:
        collector = Collector()
        context = AdapterContext(collector, AdapterState(store, "matrix"), tmp_path / "t")
        async with create(settings, context) as adapter:
            assert isinstance(adapter, MatrixAdapter) and adapter.client is not None
            assert adapter.client.device_id == bot.device_id
            room = await human.create_room(bot.user_id, direct=True)
            await human.wait_membership(room, bot.user_id, "join")
            said = await human.say(room, "token login works?")
            await collector.find(lambda e: e.event_id == said)
        monkeypatch.setenv("PERSONAD_TEST_MATRIX_TOKEN", "syt_not_a_real_token")
        with pytest.raises(AdapterError, match="access token"):
            await create(settings, context).start()


async def test_history_before_the_invite_is_not_answered(rig: Rig, human: Human) -> None:
    await rig.adapter.stop()
    room = await human.create_room(name="older room")
    old = await human.say(room, "said before the bot was invited")
    await human.client.room_invite(room, rig.bot.user_id)
    early = await human.say(room, "said after the invite, before the join")
    await rig.adapter.start()
    await human.wait_membership(room, rig.bot.user_id, "join")
    late = await human.say(room, "said after the join")
    await rig.collector.find(lambda e: e.event_id == late)
    ids = [e.event_id for e in rig.collector.events]
    assert early in ids and old not in ids
    assert ids.index(early) < ids.index(late)
