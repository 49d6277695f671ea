"""End-to-end encrypted rooms: the adapter with ``e2e = true`` against a real Synapse."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
from nio import AsyncClient, AsyncClientConfig, RoomCreateResponse, RoomMessageText
from nio.crypto import ENCRYPTION_ENABLED

from adapters.base import AdapterContext
from adapters.matrix.adapter import Settings, create
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.synapse import Collector, SynapseServer, synapse

__all__ = ["synapse"]  # the fixture, imported for pytest

pytestmark = pytest.mark.skipif(not ENCRYPTION_ENABLED, reason="matrix-nio[e2e] is missing")

ENCRYPTION = {
    "type": "m.room.encryption",
    "state_key": "",
    "content": {"algorithm": "m.megolm.v1.aes-sha2"},
}


async def encrypted_person(server: SynapseServer, store: Path) -> AsyncClient:
    account = server.register()
    store.mkdir(parents=True, exist_ok=True)
    client = AsyncClient(
        server.url,
        account.user_id,
        store_path=str(store),
        config=AsyncClientConfig(encryption_enabled=True, store_sync_tokens=False),
    )
    client.restore_login(account.user_id, account.device_id, account.access_token)
    await client.keys_upload()
    await client.sync(timeout=0)
    return client


async def encrypted_dm(person: AsyncClient, bot_id: str) -> str:
    """A new encrypted direct room of ``person``'s, once ``bot_id`` has joined it."""
    created = await person.room_create(is_direct=True, invite=[bot_id], initial_state=[ENCRYPTION])
    assert isinstance(created, RoomCreateResponse)
    room = str(created.room_id)
    deadline = time.monotonic() + 20
    while bot_id not in (person.rooms[room].users if room in person.rooms else {}):
        assert time.monotonic() < deadline, "the bot did not join"
        await person.sync(timeout=500)
    return room


async def synced_event(person: AsyncClient, room: str, event_id: str) -> Any:
    """``event_id`` as ``person``'s client reads it (decrypted), syncing until it comes."""
    deadline = time.monotonic() + 20
    while True:
        assert time.monotonic() < deadline, f"{event_id} did not reach {person.user_id}"
        sync: Any = await person.sync(timeout=500)
        info = sync.rooms.join.get(room)
        for event in info.timeline.events if info else []:
            if event.event_id == event_id:
                return event


async def test_encrypted_dm_round_trip(synapse: SynapseServer, tmp_path: Path) -> None:
    person = await encrypted_person(synapse, tmp_path / "person")
    bot = synapse.register()
    try:
        async with StateStore(tmp_path / "personad.db") as store:
            collector = Collector()
            context = AdapterContext(collector, AdapterState(store, "matrix"), tmp_path / "data")
            settings = Settings(
                enabled=True,
                homeserver=synapse.url,
                user_id=bot.user_id,
                password=bot.password,
                e2e=True,
                sync_timeout_ms=2000,
                allowed_inviters=[person.user_id],
            )
            adapter = create(settings, context)
            async with adapter:
                assert (tmp_path / "data" / "matrix" / "store").is_dir()
                room = await encrypted_dm(person, bot.user_id)
                await person.room_send(
                    room,
                    "m.room.message",
                    {"msgtype": "m.text", "body": "a secret hello"},
                    ignore_unverified_devices=True,
                )

                incoming = await collector.find(lambda e: e.room == room)
                assert incoming.kind == "text" and incoming.text == "a secret hello"

                answer_id = await adapter.send(
                    room, "**whispered** back", reply_to=incoming.event_id
                )
                answer = await synced_event(person, room, answer_id)
                assert isinstance(answer, RoomMessageText)
                assert answer.body == "**whispered** back"
                assert "<strong>whispered</strong>" in (answer.formatted_body or "")
                # on the wire (and in the homeserver's database) the answer is ciphertext
                url = f"{synapse.url}/_matrix/client/v3/rooms/{quote(room)}/event/" + quote(
                    answer_id
                )
                headers = {"Authorization": f"Bearer {person.access_token}"}
                async with aiohttp.ClientSession() as http, http.get(url, headers=headers) as r:
                    raw = await r.json()
                assert raw["type"] == "m.room.encrypted"
                assert "whispered" not in str(raw["content"])
    finally:
        await person.close()
