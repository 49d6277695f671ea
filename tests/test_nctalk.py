"""The Nextcloud Talk adapter receiving signed webhooks on a real aiohttp server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from adapters.base import Incoming
from adapters.nctalk.adapter import NCTalkAdapter, Settings, create
from tests.fakes.nctalk_server import BotApp, FakeTalkServer, php_json

SECRET = "0123456789abcdef" * 4
OTHER_SECRET = "fedcba9876543210" * 4


@dataclass
class Rig:
    talk: FakeTalkServer
    app: BotApp
    adapter: NCTalkAdapter
    received: list[Incoming] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    reply: Callable[[Incoming], Awaitable[object]] | None = None

    async def next_incoming(self) -> Incoming:
        await asyncio.wait_for(self.arrived.wait(), 5)
        self.arrived.clear()
        return self.received[-1]


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    async with FakeTalkServer(SECRET) as talk, BotApp() as app:
        holder: list[Rig] = []

        async def handler(incoming: Incoming) -> None:
            current = holder[0]
            current.received.append(incoming)
            current.arrived.set()
            if current.reply is not None:
                await current.reply(incoming)

        settings = Settings(
            enabled=True,
            backend_url=talk.url,
            secret=SECRET,
            mention_name="inara",
            direct_rooms=["abc"],
            retry_base_seconds=0.01,
        )
        adapter = create(settings, app.context(handler))
        await app.start()
        talk.webhook_url = app.url + "/webhooks/nctalk"
        holder.append(Rig(talk, app, adapter))
        async with adapter:
            yield holder[0]


async def test_message_becomes_incoming(rig: Rig) -> None:
    result = await rig.talk.deliver_message(
        actor="users/scott", room="abc", text="hi", message_id=17
    )
    assert result.status == 200
    incoming = await rig.next_incoming()
    assert incoming.platform == "nctalk"
    assert incoming.identity == "nctalk:scott"
    assert (incoming.room, incoming.event_id, incoming.text) == ("abc", "17", "hi")
    assert incoming.is_direct and incoming.addressed
    assert incoming.kind == "text"
    assert incoming.sender_name == "Scott"


async def test_answer_is_posted_with_a_valid_signature(rig: Rig) -> None:
    async def answer(incoming: Incoming) -> None:
        await rig.adapter.send(
            incoming.room, f"echo **{incoming.text}**", reply_to=incoming.event_id
        )

    rig.reply = answer
    await rig.talk.deliver_message(room="abc", text="ping", message_id=42)
    [posted] = await rig.talk.wait_for_messages(1)
    assert posted.token == "abc"
    assert posted.message == "echo **ping**"
    assert posted.reply_to == 42
    assert len(posted.reference_id) == 64 and int(posted.reference_id, 16) >= 0
    request = rig.talk.requests[-1]
    assert request.status == 201
    assert request.headers["OCS-APIRequest"] == "true"
    assert request.headers["Accept"] == "application/json"


async def test_forged_signature_is_refused(rig: Rig) -> None:
    result = await rig.talk.deliver_message(text="forged", secret=OTHER_SECRET)
    assert result.status == 401
    await asyncio.sleep(0.05)
    assert rig.received == []


async def test_tampered_body_is_refused(rig: Rig) -> None:
    signed = php_json({"type": "Join"}).encode()
    headers = rig.talk.signed_headers(signed)
    payload = {
        "type": "Create",
        "actor": {"type": "Person", "id": "users/scott", "name": "Scott"},
        "object": {
            "type": "Note",
            "id": "5",
            "name": "message",
            "content": php_json({"message": "evil", "parameters": []}),
        },
        "target": {"type": "Collection", "id": "abc", "name": "x"},
    }
    result = await rig.talk.deliver_raw(php_json(payload).encode(), headers)
    assert result.status == 401
    await asyncio.sleep(0.05)
    assert rig.received == []


@pytest.mark.parametrize(
    "missing",
    ["X-Nextcloud-Talk-Random", "X-Nextcloud-Talk-Signature", "X-Nextcloud-Talk-Backend"],
)
async def test_missing_header_is_refused(rig: Rig, missing: str) -> None:
    body = php_json({"type": "Join"}).encode()
    headers = rig.talk.signed_headers(body)
    del headers[missing]
    result = await rig.talk.deliver_raw(body, headers)
    assert result.status == 401


async def test_wrong_backend_is_refused(rig: Rig) -> None:
    result = await rig.talk.deliver_message(text="hi", backend="https://evil.example.org/")
    assert result.status == 401
    await asyncio.sleep(0.05)
    assert rig.received == []


async def test_backend_without_trailing_slash_is_accepted(rig: Rig) -> None:
    result = await rig.talk.deliver_message(text="hi", backend=rig.talk.url)
    assert result.status == 200
    assert (await rig.next_incoming()).text == "hi"


async def test_redelivery_keeps_the_event_id(rig: Rig) -> None:
    await rig.talk.deliver_message(text="again", message_id=99)
    first = await rig.next_incoming()
    await rig.talk.deliver_message(text="again", message_id=99)
    second = await rig.next_incoming()
    assert first.event_id == second.event_id == "99"


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'{"type": "Create"}',
        php_json(
            {
                "type": "Create",
                "actor": {"id": "users/scott"},
                "object": {"id": "1"},
                "target": {"id": "abc"},
            }
        ).encode(),
    ],
)
async def test_malformed_payload_is_a_400(rig: Rig, body: bytes) -> None:
    result = await rig.talk.deliver_raw(body, rig.talk.signed_headers(body))
    assert result.status == 400
    follow_up = await rig.talk.deliver_message(text="still here")
    assert follow_up.status == 200
    assert (await rig.next_incoming()).text == "still here"
    assert len(rig.received) == 1


async def test_huge_body_is_refused(rig: Rig) -> None:
    body = b'{"type":"Create","pad":"' + b"x" * (1 << 20) + b'"}'
    result = await rig.talk.deliver_raw(body, rig.talk.signed_headers(body))
    assert result.status == 413
    assert rig.received == []


async def test_join_leave_and_reactions_are_ignored(rig: Rig) -> None:
    assert (await rig.talk.deliver_membership("Join")).status == 200
    assert (await rig.talk.deliver_membership("Leave")).status == 200
    assert (await rig.talk.deliver_reaction()).status == 200
    assert (await rig.talk.deliver_reaction(undo=True)).status == 200
    await asyncio.sleep(0.05)
    assert rig.received == []


async def test_group_room_needs_a_mention(rig: Rig) -> None:
    await rig.talk.deliver_message(room="grp", text="talking among ourselves", message_id=1)
    plain = await rig.next_incoming()
    assert not plain.is_direct and not plain.addressed
    await rig.talk.deliver_message(
        room="grp",
        text="{mention-user1} what do you think of {mention-user2}?",
        message_id=2,
        parameters={
            "mention-user1": {"type": "user", "id": "inara", "name": "Inara"},
            "mention-user2": {"type": "user", "id": "alice", "name": "Alice Liddell"},
        },
    )
    mentioned = await rig.next_incoming()
    assert mentioned.addressed and not mentioned.is_direct
    assert mentioned.text == "what do you think of @Alice Liddell?"


async def test_typed_mention_lets_a_command_through(rig: Rig) -> None:
    await rig.talk.deliver_message(room="grp", text="@Inara /otr on", message_id=3)
    incoming = await rig.next_incoming()
    assert incoming.addressed
    assert incoming.text == "/otr on"


async def test_attachment(rig: Rig) -> None:
    parameters = {
        "file": {
            "type": "file",
            "id": "881",
            "name": "holiday.jpg",
            "mimetype": "image/jpeg",
            "size": 12345,
        }
    }
    await rig.talk.deliver_message(text="{file}", parameters=parameters, message_id=5)
    incoming = await rig.next_incoming()
    assert (incoming.kind, incoming.text) == ("attachment", "")
    assert [(a.name, a.mime, a.size) for a in incoming.attachments] == [
        ("holiday.jpg", "image/jpeg", 12345)
    ]
    # Before Nextcloud 33 attachments arrived with an empty object name.
    await rig.talk.deliver_message(
        text="{file}", parameters=parameters, message_id=6, object_name=""
    )
    assert (await rig.next_incoming()).kind == "attachment"


async def test_other_actor_types_never_look_like_users(rig: Rig) -> None:
    await rig.talk.deliver_message(
        actor="guests/0a1b2c", actor_name="scott", text="x", message_id=7
    )
    guest = await rig.next_incoming()
    assert guest.identity == "nctalk:guests/0a1b2c"
    await rig.talk.deliver_message(actor="federated_users/scott@other.example", message_id=8)
    assert (await rig.next_incoming()).sender == "federated_users/scott@other.example"
    result = await rig.talk.deliver_message(actor="bots/bot-123", message_id=9)
    assert result.status == 200
    await asyncio.sleep(0.05)
    assert len(rig.received) == 2


async def test_reply_to_comes_from_in_reply_to(rig: Rig) -> None:
    await rig.talk.deliver_message(text="yes", message_id=21, in_reply_to=20)
    assert (await rig.next_incoming()).reply_to == "20"


async def test_webhook_is_answered_before_a_slow_turn_and_stop_drains_it(rig: Rig) -> None:
    release = asyncio.Event()
    finished: list[str] = []

    async def slow(incoming: Incoming) -> None:
        await release.wait()
        await rig.adapter.send(incoming.room, "done")
        finished.append(incoming.event_id)

    rig.reply = slow
    result = await asyncio.wait_for(rig.talk.deliver_message(text="slow", message_id=30), 2)
    assert result.status == 200
    await rig.next_incoming()
    stopping = asyncio.create_task(rig.adapter.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done()
    release.set()
    await asyncio.wait_for(stopping, 5)
    assert finished == ["30"]
    assert [m.message for m in rig.talk.messages] == ["done"]
    await rig.adapter.start()


async def test_failing_handler_does_not_break_the_adapter(rig: Rig) -> None:
    async def boom(incoming: Incoming) -> None:
        raise RuntimeError("turn failed")

    rig.reply = boom
    assert (await rig.talk.deliver_message(text="one", message_id=40)).status == 200
    await rig.next_incoming()
    assert (await rig.talk.deliver_message(text="two", message_id=41)).status == 200
    assert (await rig.next_incoming()).text == "two"


async def test_health_counts_only_verified_webhooks(rig: Rig) -> None:
    before = rig.adapter.health.last_ok
    await rig.talk.deliver_message(text="x", secret=OTHER_SECRET)
    assert rig.adapter.health.last_ok == before
    await asyncio.sleep(0.01)
    await rig.talk.deliver_membership("Join")
    assert rig.adapter.health.last_ok > before
    assert rig.adapter.health.running


async def test_stopped_adapter_refuses_and_restarts(rig: Rig) -> None:
    await rig.adapter.stop()
    assert not rig.adapter.health.running
    assert (await rig.talk.deliver_message(text="while down")).status == 503
    await rig.adapter.start()
    rig.reply = lambda incoming: rig.adapter.send(incoming.room, "back")
    assert (await rig.talk.deliver_message(text="up again", message_id=50)).status == 200
    assert (await rig.next_incoming()).text == "up again"
    assert [m.message for m in await rig.talk.wait_for_messages(1)] == ["back"]


async def test_response_body_is_json(rig: Rig) -> None:
    result = await rig.talk.deliver_membership("Join")
    assert json.loads(result.body) == {"status": "ignored"}
