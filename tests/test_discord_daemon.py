"""The whole daemon with Discord as its only platform, against the loopback Discord.

The daemon builds the adapter from its config section, the router answers through it with
the scripted model, and the watchdog restarts it when the gateway goes silent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.discord.adapter import DiscordAdapter
from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from bot.delivery.steps import Step
from bot.turn.reply import TYPING_DELAY
from tests.fakes.discord_api import FakeDiscord, Json
from tests.harness import ScriptedLLM, make_config, make_persona


class World:
    def __init__(
        self, daemon: Daemon, fake: FakeDiscord, llm: ScriptedLLM, people: dict[str, Json]
    ) -> None:
        self.daemon = daemon
        self.fake = fake
        self.llm = llm
        self.people = people
        self.scott = people["scott"]
        self.holly = people["holly"]

    @property
    def adapter(self) -> DiscordAdapter:
        adapter = self.daemon.adapters["discord"]
        assert isinstance(adapter, DiscordAdapter)
        return adapter

    def final_text(self, message: Json) -> str:
        """A sent message as the user finally sees it, after the streaming edits."""
        return str(self.fake.messages[message["id"]]["content"])


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with FakeDiscord(heartbeat_ms=200) as fake:
        fake.add_guild("home")
        people = {name: fake.user(name) for name in ("scott", "holly", "stranger")}
        make_persona(tmp_path, "scott")
        make_persona(tmp_path, "holly")
        users = {
            "scott": {
                "identities": [f"discord:{people['scott']['id']}"],
                "admin": True,
                "timezone": "America/New_York",
            },
            "holly": {
                "identities": [f"discord:{people['holly']['id']}"],
                "timezone": "Europe/Lisbon",
            },
        }
        discord_section = {
            "enabled": True,
            "token": fake.token,
            "token_env": None,
            "api_base": fake.api_base,
            "gateway_url": fake.gateway_url,
            "stall_seconds": 1.0,
            "connect_timeout": 10,
        }
        config = make_config(tmp_path, users=users, adapters={"discord": discord_section})
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, http=False, jobs=False) as daemon:
            assert daemon.watchdog is not None
            await daemon.watchdog.stop()  # the tests call check() themselves
            yield World(daemon, fake, llm, people)


async def test_direct_message_answered_by_the_persona(world: World) -> None:
    fake = world.fake
    world.llm.delay = TYPING_DELAY * 2  # long enough for the typing indicator to show
    asked = await fake.dispatch_message("I like green tea.", author=world.scott, channel_id="900")
    await fake.wait_for(
        lambda: any(world.final_text(m) == "echo: I like green tea." for m in fake.sent)
    )
    first = fake.sent[0]
    assert first["channel_id"] == "900"
    assert first["message_reference"]["message_id"] == asked["id"]
    assert fake.typing and fake.typing[0] == "900"
    assert len(world.llm.calls) == 1


async def test_redelivered_message_is_answered_once(world: World) -> None:
    fake = world.fake
    asked = await fake.dispatch_message("only once", author=world.scott, channel_id="900")
    await fake.wait_for(lambda: any(world.final_text(m) == "echo: only once" for m in fake.sent))
    await fake.redeliver(asked)
    await fake.dispatch_message("next", author=world.scott, channel_id="900")
    await fake.wait_for(lambda: any(world.final_text(m) == "echo: next" for m in fake.sent))
    assert len(world.llm.calls) == 2


async def test_guild_chatter_ignored_mention_answered_strangers_ignored(world: World) -> None:
    fake = world.fake
    guild_id = next(iter(fake.guilds))
    channel_id = fake.guilds[guild_id]["channels"][0]["id"]
    await fake.dispatch_message(
        "talking among ourselves", author=world.scott, channel_id=channel_id, guild_id=guild_id
    )
    await fake.dispatch_message("hello bot", author=world.people["stranger"], channel_id="901")
    await fake.dispatch_message(
        f"<@{fake.bot_user['id']}> are you there?",
        author=world.holly,
        channel_id=channel_id,
        guild_id=guild_id,
        mention_bot=True,
    )
    await fake.wait_for(
        lambda: any(world.final_text(m) == "echo: are you there?" for m in fake.sent)
    )
    assert len(world.llm.calls) == 1
    assert {m["channel_id"] for m in fake.sent} == {channel_id}


async def test_slash_commands_through_the_router(world: World) -> None:
    fake = world.fake
    await fake.dispatch_interaction(
        "otr", [{"name": "state", "type": 3, "value": "on"}], user=world.scott, channel_id="900"
    )
    await fake.wait_for(lambda: len(fake.sent) == 1)
    answer = fake.sent[0]
    assert answer["via"] == "original" and answer["content"].startswith("Off The Record is on")
    await fake.dispatch_interaction("reload", user=world.holly, channel_id="902")
    await fake.wait_for(lambda: len(fake.sent) == 2)
    assert fake.sent[1]["content"] == ADMIN_ONLY and fake.sent[1]["via"] == "original"
    registered = {c["name"]: c for c in fake.commands}
    assert registered["reload"]["default_member_permissions"] == "8"
    assert registered["otr"]["default_member_permissions"] is None
    assert world.llm.calls == []


async def test_dropped_gateway_and_silent_gateway(world: World) -> None:
    fake = world.fake
    await fake.drop_connection()
    await fake.wait_for(lambda: fake.resumes == 1 and fake.connected)
    await fake.dispatch_message("after the drop", author=world.scott, channel_id="900")
    await fake.wait_for(
        lambda: any(world.final_text(m) == "echo: after the drop" for m in fake.sent)
    )
    assert world.adapter.health.reconnects == 1

    fake.go_silent()  # the socket stays open but nothing arrives: no ACKs, no events
    watchdog = world.daemon.watchdog
    assert watchdog is not None
    await fake.wait_for(lambda: world.adapter.health.age() > 1.0)
    assert await watchdog.check() == ["discord"]
    assert world.adapter.health.restarts == 1 and world.adapter.health.running
    assert fake.identifies == 2
    await fake.dispatch_message("after the restart", author=world.scott, channel_id="900")
    await fake.wait_for(
        lambda: any(world.final_text(m) == "echo: after the restart" for m in fake.sent)
    )


async def test_an_answer_discord_refuses_for_a_while_arrives_once(world: World) -> None:
    fake = world.fake
    world.daemon.outbox.base_delay = 0.02
    fake.refuse_posts = 1_000
    await fake.dispatch_message("Anyone home?", author=world.scott, channel_id="900")
    await fake.wait_for(lambda: bool(world.daemon.outbox.parcels))
    fake.refuse_posts = 0
    await fake.wait_for(lambda: not world.daemon.outbox.parcels)
    assert [world.final_text(m) for m in fake.sent] == ["echo: Anyone home?"]


async def test_a_repeated_key_makes_one_discord_message(world: World) -> None:
    first = await world.adapter.send("900", "once", key="0123456789abcdef01234567")
    again = await world.adapter.send("900", "once", key="0123456789abcdef01234567")
    assert first == again
    assert [m["content"] for m in world.fake.sent] == ["once"]


async def test_a_queued_discord_answer_is_delivered_by_the_next_process(world: World) -> None:
    fake = world.fake
    config = world.daemon.config
    fake.refuse_posts = 1_000
    await fake.dispatch_message("Before the restart", author=world.scott, channel_id="900")
    await fake.wait_for(lambda: bool(world.daemon.outbox.parcels))
    await world.daemon.stop()
    fake.refuse_posts = 0
    async with Daemon(config, backends={"scripted": world.llm}, http=False, jobs=False) as again:
        again.outbox.base_delay = 0.02
        await fake.wait_for(lambda: bool(fake.sent) and not again.outbox.parcels)
    assert [world.final_text(m) for m in fake.sent] == ["echo: Before the restart"]
    assert len(world.llm.calls) == 1


async def test_an_answer_whose_message_is_gone_is_sent_anew(world: World) -> None:
    # the streamed message was deleted while its final edit waited in the outbox
    step = Step("edit", "900", "The whole answer.", "0123456789abcdef01234567", message_id="42")
    await step.perform(world.adapter)
    assert [m["content"] for m in world.fake.sent] == ["The whole answer."]


async def test_answers_discord_refuses_for_good_are_given_up_not_retried(world: World) -> None:
    fake = world.fake
    world.daemon.outbox.base_delay = 0.02
    fake.no_access.add("900")
    fake.deleted_channels.add("901")
    await fake.dispatch_message("Still here?", author=world.scott, channel_id="900")
    await fake.dispatch_message("Anyone?", author=world.holly, channel_id="901")
    outbox = world.daemon.outbox
    await fake.wait_for(lambda: len(outbox.refusals()) == 2)
    # tried while the answer streamed and once whole, then never again
    assert set(fake.posts) == {("900", 403), ("901", 404)}
    posted = len(fake.posts)
    await asyncio.sleep(0.3)  # many backoff periods
    assert len(fake.posts) == posted and fake.sent == []
    assert outbox.parcels == [] and world.daemon.health.problems() == {}
    reasons = {r.room: r.reason for r in outbox.refusals()}
    assert reasons == {
        "900": "PermanentSendError: Discord refused to send to channel 900: Missing Access",
        "901": "PermanentSendError: Discord could not send to channel 901: not found"
        " (Unknown Channel)",
    }
