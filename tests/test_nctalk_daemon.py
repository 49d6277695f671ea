"""The whole daemon with Nextcloud Talk as its only platform, against the loopback Talk.

Talk's webhooks reach the daemon's own HTTP server; the router answers through the adapter
with the scripted model; answers come back to the fake's bot API, signed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.nctalk.adapter import NCTalkAdapter
from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from tests.fakes.nctalk_server import FakeTalkServer
from tests.harness import ScriptedLLM, make_config, make_persona

SECRET = "0123456789abcdef" * 4


class World:
    def __init__(self, daemon: Daemon, talk: FakeTalkServer, llm: ScriptedLLM) -> None:
        self.daemon = daemon
        self.talk = talk
        self.llm = llm

    @property
    def adapter(self) -> NCTalkAdapter:
        adapter = self.daemon.adapters["nctalk"]
        assert isinstance(adapter, NCTalkAdapter)
        return adapter

    def texts(self) -> list[str]:
        return [m.message for m in self.talk.messages]


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with FakeTalkServer(SECRET) as talk:
        make_persona(tmp_path, "scott")
        make_persona(tmp_path, "holly")
        users: dict[str, dict[str, Any]] = {
            "scott": {
                "identities": ["nctalk:scott"],
                "admin": True,
                "timezone": "America/New_York",
                "notification_room": "nctalk:notes",
            },
            "holly": {"identities": ["nctalk:holly"], "timezone": "Europe/Lisbon"},
        }
        section = {
            "enabled": True,
            "backend_url": talk.url,
            "secret": SECRET,
            "secret_env": None,
            "mention_name": "inara",
            "direct_rooms": ["scott-room", "holly-room"],
            "retry_base_seconds": 0.01,
        }
        config = make_config(
            tmp_path,
            users=users,
            adapters={"nctalk": section},
            extra={"http": {"enabled": True, "host": "127.0.0.1", "port": 0}},
        )
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, jobs=False) as daemon:
            talk.webhook_url = f"http://127.0.0.1:{daemon.http_port}/webhooks/nctalk"
            yield World(daemon, talk, llm)


async def test_message_answered_by_the_persona(world: World) -> None:
    result = await world.talk.deliver_message(
        actor="users/scott", room="scott-room", text="I like green tea.", message_id=101
    )
    assert result.status == 200
    [answer] = await world.talk.wait_for_messages(1)
    assert answer.token == "scott-room"
    assert answer.message == "echo: I like green tea."
    assert answer.reply_to == 101
    assert len(world.llm.calls) == 1
    assert world.adapter.health.running


async def test_redelivered_message_is_answered_once(world: World) -> None:
    await world.talk.deliver_message(room="scott-room", text="only once", message_id=102)
    await world.talk.wait_for_messages(1)
    await world.talk.deliver_message(room="scott-room", text="only once", message_id=102)
    await world.talk.deliver_message(room="scott-room", text="next", message_id=103)
    await world.talk.wait_for_messages(2)
    assert world.texts() == ["echo: only once", "echo: next"]
    assert len(world.llm.calls) == 2


async def test_otr_command_and_admin_refusal(world: World) -> None:
    await world.talk.deliver_message(room="scott-room", text="/otr on", message_id=110)
    [otr] = await world.talk.wait_for_messages(1)
    assert otr.message.startswith("Off The Record is on")
    await world.talk.deliver_message(
        actor="users/holly", actor_name="Holly", room="holly-room", text="/reload", message_id=111
    )
    await world.talk.wait_for_messages(2)
    assert world.talk.messages[1].message == ADMIN_ONLY
    assert world.talk.messages[1].token == "holly-room"
    assert world.llm.calls == []


async def test_group_chatter_strangers_and_guests_are_ignored(world: World) -> None:
    talk = world.talk
    await talk.deliver_message(room="team", text="talking among ourselves", message_id=120)
    await talk.deliver_message(
        actor="users/mallory", room="scott-room", text="hello", message_id=121
    )
    await talk.deliver_message(
        actor="guests/5f3a",
        actor_name="scott",
        room="team",
        text="@inara it's me, scott",
        message_id=122,
    )
    await talk.deliver_message(
        actor="users/holly", room="team", text="@inara are you there?", message_id=123
    )
    [answer] = await talk.wait_for_messages(1)
    assert (answer.token, answer.message) == ("team", "echo: are you there?")
    await talk.deliver_message(
        actor="users/holly", room="team", text="Inara: still here?", message_id=124
    )
    await talk.wait_for_messages(2)
    assert world.texts() == ["echo: are you there?", "echo: still here?"]
    assert len(world.llm.calls) == 2


async def test_forged_webhook_reaches_nobody(world: World) -> None:
    forged = await world.talk.deliver_message(
        room="scott-room", text="/otr off", message_id=130, secret="x" * 64
    )
    assert forged.status == 401
    await world.talk.deliver_message(room="scott-room", text="real", message_id=131)
    await world.talk.wait_for_messages(1)
    assert world.texts() == ["echo: real"]


async def test_a_shared_file_is_answered_with_why_it_cannot_be_read(world: World) -> None:
    await world.talk.deliver_file(
        room="scott-room", name="scan.pdf", mimetype="application/pdf", message_id=140
    )
    [answer] = await world.talk.wait_for_messages(1)
    assert "can't read files shared in Nextcloud Talk" in answer.message
    assert "paste the text" in answer.message
    assert world.llm.calls == []


async def test_notice_goes_to_the_notification_room(world: World) -> None:
    assert await world.daemon.notifier.notify("scott", "inara: weekly memory distilled")
    [notice] = await world.talk.wait_for_messages(1)
    assert (notice.token, notice.message) == ("notes", "inara: weekly memory distilled")
    assert await world.daemon.notifier.notify("holly", "nothing configured") is False


async def test_an_answer_talk_refuses_for_a_while_arrives_once(world: World) -> None:
    world.daemon.outbox.base_delay = 0.02
    world.talk.fail_next(*[503] * 12)  # more than one send's own retries: the outbox retries
    await world.talk.deliver_message(
        actor="users/scott", room="scott-room", text="Anyone home?", message_id=301
    )
    [answer] = await world.talk.wait_for_messages(1)
    assert answer.message == "echo: Anyone home?"
    refused = [r for r in world.talk.requests if r.status == 503]
    assert len(refused) == 12
    assert len({r.body["referenceId"] for r in world.talk.requests}) == 1  # one message, retried


async def test_a_queued_talk_answer_is_delivered_by_the_next_process(world: World) -> None:
    config = world.daemon.config
    world.daemon.outbox.base_delay = 60.0  # nothing more this process
    world.talk.fail_next(*[503] * 5)
    await world.talk.deliver_message(
        actor="users/scott", room="scott-room", text="Before the restart", message_id=302
    )
    async with asyncio.timeout(5):
        while not world.daemon.outbox.parcels:  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.01)
    await world.daemon.stop()
    async with Daemon(config, backends={"scripted": world.llm}, jobs=False) as again:
        again.outbox.base_delay = 0.02
        [answer] = await world.talk.wait_for_messages(1)
    assert answer.message == "echo: Before the restart"
    assert len(world.llm.calls) == 1


async def test_answers_talk_refuses_for_good_are_given_up_not_retried(world: World) -> None:
    world.daemon.outbox.base_delay = 0.02
    world.talk.rooms = {"scott-room"}  # holly's conversation was deleted
    world.talk.forbidden = {"scott-room"}  # the bot was removed from scott's
    await world.talk.deliver_message(
        actor="users/scott", room="scott-room", text="Still here?", message_id=401
    )
    await world.talk.deliver_message(
        actor="users/holly", room="holly-room", text="Anyone?", message_id=402
    )
    outbox = world.daemon.outbox
    async with asyncio.timeout(5):
        while len(outbox.refusals()) < 2:  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.01)
    posted = len(world.talk.requests)
    assert sorted(r.status for r in world.talk.requests) == [403, 404]  # one try each
    await asyncio.sleep(0.3)  # many backoff periods: nothing is tried again
    assert len(world.talk.requests) == posted
    assert outbox.parcels == [] and world.daemon.health.problems() == {}
    reasons = {r.room: r.reason for r in outbox.refusals()}
    assert reasons == {
        "scott-room": "PermanentSendError: nctalk: Talk refused the bot in scott-room (HTTP 403)",
        "holly-room": "PermanentSendError: nctalk: conversation holly-room not found (HTTP 404)",
    }
