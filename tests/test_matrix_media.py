"""Pictures, voice notes and files through the Matrix adapter, against a real Synapse.

A person uploads through the media repository and sends the event a client sends; the adapter
must hand the core the attachment and download exactly the bytes uploaded (decrypted in an
encrypted room), and refuse a file over the cap or one that fails its checksum. A spoken
answer must reach the person as a voice message they can download (and decrypt).
"""

from __future__ import annotations

import asyncio
import io
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
from nio import (
    AsyncClient,
    MemoryDownloadResponse,
    RoomCreateResponse,
    RoomEncryptedAudio,
    RoomSendResponse,
    UploadResponse,
)
from nio.crypto import ENCRYPTION_ENABLED
from nio.crypto.attachments import decrypt_attachment
from PIL import Image

from adapters.base import AdapterContext, Incoming, Speech
from adapters.matrix.adapter import MatrixAdapter, Settings, create
from bot.daemon.daemon import Daemon
from bot.daemon.errors import AdapterError, MediaError, PermanentSendError
from bot.delivery.key_values import AdapterState
from bot.delivery.state import StateStore
from tests.fakes.audio_api import FakeAudio
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.media_files import VOICE_OGG
from tests.synapse import Collector, Human, MatrixUser, SynapseServer, human, synapse
from tests.test_matrix_e2e import ENCRYPTION, encrypted_dm, encrypted_person, synced_event

__all__ = ["human", "synapse"]  # the fixtures, imported for pytest

LIMIT = 1_000_000


def png(width: int = 32, height: int = 24) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(buffer, "PNG")
    return buffer.getvalue()


def ogg(size: int = 3000) -> bytes:
    return b"OggS" + os.urandom(size - 4)


async def upload(
    client: AsyncClient, data: bytes, mime: str, name: str, *, encrypt: bool = False
) -> tuple[str, dict[str, Any] | None]:
    answer, keys = await client.upload(
        io.BytesIO(data), content_type=mime, filename=name, encrypt=encrypt, filesize=len(data)
    )
    assert isinstance(answer, UploadResponse), answer
    return str(answer.content_uri), keys


def stored_media(synapse: SynapseServer) -> int:
    """How many files the homeserver's media repository holds."""
    return sum(1 for path in (synapse.workdir / "media_store").rglob("*") if path.is_file())


async def download(client: AsyncClient, url: str) -> bytes:
    answer = await client.download(mxc=url)
    assert isinstance(answer, MemoryDownloadResponse), answer
    return bytes(answer.body)


@dataclass
class Bot:
    account: MatrixUser
    adapter: MatrixAdapter
    collector: Collector


@pytest.fixture
async def make_bot(synapse: SynapseServer, tmp_path: Path) -> AsyncIterator[Any]:
    """Starts adapters for fresh bot accounts (``e2e`` as asked) and stops them afterwards."""
    started: list[MatrixAdapter] = []
    async with StateStore(tmp_path / "personad.db") as store:

        async def make(inviter: str, *, e2e: bool = False) -> Bot:
            account = synapse.register()
            collector = Collector()
            state = AdapterState(store, f"matrix-{len(started)}")
            context = AdapterContext(collector, state, tmp_path / f"data{len(started)}")
            settings = Settings(
                enabled=True,
                homeserver=synapse.url,
                user_id=account.user_id,
                password=account.password,
                e2e=e2e,
                allowed_inviters=[inviter],
                sync_timeout_ms=2000,
                backoff_max_seconds=1.0,
            )
            adapter = create(settings, context)
            await adapter.start()
            started.append(adapter)
            return Bot(account, adapter, collector)

        try:
            yield make
        finally:
            for adapter in started:
                await adapter.stop()


async def open_dm(human: Human, bot: Bot) -> str:
    room = await human.create_room(bot.account.user_id, direct=True)
    await human.wait_membership(room, bot.account.user_id, "join")
    return room


async def arrived(bot: Bot, event_id: str) -> Incoming:
    return await bot.collector.find(lambda e: e.event_id == event_id)


async def test_an_image_with_a_caption_downloads_as_uploaded(make_bot: Any, human: Human) -> None:
    bot = await make_bot(human.user_id)
    room = await open_dm(human, bot)
    picture = png()
    url, _ = await upload(human.client, picture, "image/png", "cat.png")
    info = {"mimetype": "image/png", "size": len(picture), "w": 32, "h": 24}
    captioned = await human.send(
        room,
        {
            "msgtype": "m.image",
            "body": "look at her",
            "filename": "cat.png",
            "url": url,
            "info": info,
        },
    )
    bare = await human.send(room, {"msgtype": "m.image", "body": "cat.png", "url": url})

    incoming = await arrived(bot, captioned)
    assert incoming.kind == "attachment" and incoming.text == "look at her"
    (attachment,) = incoming.attachments
    assert (attachment.name, attachment.mime, attachment.size) == (
        "cat.png",
        "image/png",
        len(picture),
    )
    assert not attachment.voice and attachment.duration is None
    assert await bot.adapter.download(attachment, limit=LIMIT) == picture

    plain = await arrived(bot, bare)
    assert plain.text == "" and plain.attachments[0].name == "cat.png"
    assert plain.attachments[0].size is None
    assert await bot.adapter.download(plain.attachments[0], limit=LIMIT) == picture


async def test_a_voice_note_carries_its_flag_and_length(make_bot: Any, human: Human) -> None:
    bot = await make_bot(human.user_id)
    room = await open_dm(human, bot)
    audio = ogg()
    url, _ = await upload(human.client, audio, "audio/ogg", "Voice message.ogg")
    voice = await human.send(
        room,
        {
            "msgtype": "m.audio",
            "body": "Voice message",
            "url": url,
            "info": {"mimetype": "audio/ogg", "size": len(audio), "duration": 2500},
            "org.matrix.msc1767.audio": {"duration": 2500, "waveform": [0, 512, 1024]},
            "org.matrix.msc3245.voice": {},
        },
    )
    song_url, _ = await upload(human.client, audio, "audio/ogg", "song.ogg")
    song = await human.send(
        room,
        {"msgtype": "m.audio", "body": "song.ogg", "url": song_url, "info": {"duration": 61000}},
    )
    text = b"name,value\nx,1\n"
    file_url, _ = await upload(human.client, text, "text/csv", "data.csv")
    document = await human.send(room, {"msgtype": "m.file", "body": "data.csv", "url": file_url})

    note = (await arrived(bot, voice)).attachments[0]
    assert note.voice and note.duration == 2.5 and note.mime == "audio/ogg"
    assert await bot.adapter.download(note, limit=LIMIT) == audio
    track = (await arrived(bot, song)).attachments[0]
    assert not track.voice and track.duration == 61.0
    sheet = (await arrived(bot, document)).attachments[0]
    assert sheet.name == "data.csv" and not sheet.voice and sheet.duration is None
    assert await bot.adapter.download(sheet, limit=LIMIT) == text


async def test_files_over_the_cap_or_gone_are_refused(make_bot: Any, human: Human) -> None:
    bot = await make_bot(human.user_id)
    room = await open_dm(human, bot)
    big = os.urandom(200_000)
    url, _ = await upload(human.client, big, "application/octet-stream", "big.bin")
    declared = await human.send(
        room, {"msgtype": "m.file", "body": "big.bin", "url": url, "info": {"size": len(big)}}
    )
    # a size that lies is not believed: the download itself stops at the cap
    understated = await human.send(
        room, {"msgtype": "m.file", "body": "small.bin", "url": url, "info": {"size": 10}}
    )
    missing = await human.send(
        room, {"msgtype": "m.file", "body": "gone.bin", "url": "mxc://localhost/NoSuchMedia"}
    )

    for event_id, name in ((declared, "big.bin"), (understated, "small.bin")):
        attachment = (await arrived(bot, event_id)).attachments[0]
        with pytest.raises(MediaError) as refused:
            await bot.adapter.download(attachment, limit=100_000)
        assert name in refused.value.user_message and "100 kB" in refused.value.user_message
        assert await bot.adapter.download(attachment, limit=LIMIT) == big
    with pytest.raises(MediaError) as gone:
        await bot.adapter.download((await arrived(bot, missing)).attachments[0], limit=LIMIT)
    assert "couldn't fetch" in gone.value.user_message


async def test_a_spoken_answer_is_a_voice_message(make_bot: Any, human: Human) -> None:
    bot = await make_bot(human.user_id)
    room = await open_dm(human, bot)
    assert bot.adapter.supports_voice
    audio = ogg()
    speech = Speech(audio, duration=1.5)
    event_id = await bot.adapter.post_audio(room, speech, key="answer-1/voice")
    # the key is the transaction id: posting again shows nothing new
    assert await bot.adapter.post_audio(room, speech, key="answer-1/voice") == event_id

    event = await human.event(room, event_id)
    content = event["content"]
    assert event["sender"] == bot.account.user_id
    assert content["msgtype"] == "m.audio" and content["org.matrix.msc3245.voice"] == {}
    assert content["org.matrix.msc1767.audio"]["duration"] == 1500
    assert content["info"] == {"mimetype": "audio/ogg", "size": len(audio), "duration": 1500}
    assert "file" not in content
    assert await download(human.client, content["url"]) == audio
    voices = [e for e in await human.messages(room) if e["content"].get("msgtype") == "m.audio"]
    assert len(voices) == 1

    # send_voice: the context's speech role makes the audio, post_audio sends it
    spoken: list[str] = []

    async def speak(text: str) -> Speech:
        spoken.append(text)
        return Speech(ogg(500), name="hello.ogg")

    bot.adapter.context.speak = speak
    second = await bot.adapter.send_voice(room, "Hello there", key="answer-2/voice")
    assert spoken == ["Hello there"]
    later = (await human.event(room, second))["content"]
    assert later["body"] == "hello.ogg" and "duration" not in later["info"]


async def test_no_voice_is_uploaded_for_a_room_the_client_has_not_synced(
    synapse: SynapseServer, make_bot: Any, human: Human
) -> None:
    bot = await make_bot(human.user_id)
    room = await human.create_room()  # the bot is not in it: its client knows nothing of it
    before = stored_media(synapse)
    with pytest.raises(AdapterError, match="has not synced that room yet") as refused:
        await bot.adapter.post_audio(room, Speech(ogg()), key="unknown-room/voice")
    assert not isinstance(refused.value, PermanentSendError)  # a later try may find it
    assert stored_media(synapse) == before


@dataclass
class Restarted:
    """A bot without end-to-end encryption, restarted after it joined an encrypted room (and
    ``plain`` rooms): its client syncs from its saved token, so a room it hears from again
    comes with the state that changed, not with ``m.room.encryption``."""

    bot: Bot
    again: MatrixAdapter
    room: str
    plain: list[str]

    def bots_events(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            e for e in events if e["sender"] == self.bot.account.user_id and "state_key" not in e
        ]


async def _joined_and_saved(adapter: MatrixAdapter, rooms: set[str]) -> bool:
    """The client has joined ``rooms`` and the sync that brought them is saved: a restart
    from the saved token does not sync the joins (and their full state) again."""
    client = adapter.client
    if client is None or not rooms <= set(client.rooms):
        return False
    synced: str = client.next_batch  # set with the rooms, before the adapter saves it
    return await adapter.context.state.get(f"next_batch:{client.user_id}") == synced


async def _restarted(make_bot: Any, human: Human, *, plain: int = 0) -> Restarted:
    bot = await make_bot(human.user_id)  # end-to-end encryption off
    created = await human.client.room_create(
        is_direct=True, invite=[bot.account.user_id], initial_state=[ENCRYPTION]
    )
    assert isinstance(created, RoomCreateResponse), created
    room = str(created.room_id)
    plains = [await human.create_room(bot.account.user_id) for _ in range(plain)]
    deadline = time.monotonic() + 20
    while not await _joined_and_saved(bot.adapter, {room, *plains}):
        assert time.monotonic() < deadline, "the bot did not sync and save the rooms it joined"
        await asyncio.sleep(0.1)
    await bot.adapter.stop()
    again = create(bot.adapter.settings, bot.adapter.context)
    await again.start()
    try:
        await human.say(room, "are you back?")
        while room not in (again.client.rooms if again.client else {}):
            assert time.monotonic() < deadline, "the restarted bot did not hear the room"
            await asyncio.sleep(0.1)
        assert again.client is not None and not again.client.rooms[room].encrypted
    except BaseException:
        await again.stop()
        raise
    return Restarted(bot, again, room, plains)


async def test_an_encrypted_room_a_restarted_client_knows_only_in_part_gets_no_plain_voice(
    synapse: SynapseServer, make_bot: Any, human: Human
) -> None:
    restarted = await _restarted(make_bot, human)
    again, room = restarted.again, restarted.room
    try:
        before = stored_media(synapse)
        with pytest.raises(PermanentSendError, match="end-to-end encryption off"):
            await again.post_audio(room, Speech(ogg()), key="sealed-room/voice")
        assert stored_media(synapse) == before
        assert again.client is not None
        assert again.client.rooms[room].encrypted  # the client learnt it from the homeserver
    finally:
        await again.stop()
    assert not restarted.bots_events(await human.messages(room))


async def test_a_restarted_client_without_e2e_sends_no_plain_text_into_an_encrypted_room(
    make_bot: Any, human: Human
) -> None:
    """A reminder or a job's message to a room that is encrypted never goes out readable by
    the homeserver, even when the client's synced state does not say the room is encrypted."""
    restarted = await _restarted(make_bot, human, plain=1)
    again, room, [plain] = restarted.again, restarted.room, restarted.plain
    try:
        with pytest.raises(PermanentSendError, match="end-to-end encryption off"):
            await again.send(room, "the reminder you asked for", key="sealed-room/text")
        sent = await again.send(plain, "a plain room still hears me", key="plain-room/text")
    finally:
        await again.stop()
    assert not restarted.bots_events(await human.messages(room))
    said = [e for e in await human.messages(plain) if e.get("event_id") == sent]
    assert said and said[0]["content"]["body"] == "a plain room still hears me"


# end-to-end encrypted rooms ------------------------------------------------------------------


@dataclass
class Sealed:
    """A person whose client encrypts, an e2e bot, and their encrypted direct room."""

    person: AsyncClient
    bot: Bot
    room: str

    async def send(self, content: dict[str, Any]) -> str:
        answer = await self.person.room_send(
            self.room, "m.room.message", content, ignore_unverified_devices=True
        )
        assert isinstance(answer, RoomSendResponse), answer
        return str(answer.event_id)


@pytest.fixture
async def sealed(synapse: SynapseServer, make_bot: Any, tmp_path: Path) -> AsyncIterator[Sealed]:
    if not ENCRYPTION_ENABLED:
        pytest.skip("matrix-nio[e2e] is missing")
    person = await encrypted_person(synapse, tmp_path / "person")
    try:
        bot = await make_bot(person.user_id, e2e=True)
        yield Sealed(person, bot, await encrypted_dm(person, bot.account.user_id))
    finally:
        await person.close()


async def test_an_encrypted_image_is_decrypted(sealed: Sealed) -> None:
    person, bot = sealed.person, sealed.bot
    picture = png(40, 30)
    url, keys = await upload(person, picture, "image/png", "secret.png", encrypt=True)
    assert keys is not None
    info = {"mimetype": "image/png", "size": len(picture)}
    secret = await sealed.send(
        {"msgtype": "m.image", "body": "secret.png", "info": info, "file": {**keys, "url": url}}
    )
    forged = {**keys, "url": url, "hashes": {"sha256": "A" * 43}}
    tampered = await sealed.send(
        {"msgtype": "m.image", "body": "forged.png", "info": info, "file": forged}
    )

    incoming = await arrived(bot, secret)
    (attachment,) = incoming.attachments
    assert incoming.kind == "attachment" and incoming.text == ""
    assert attachment.name == "secret.png" and attachment.mime == "image/png"
    assert keys["key"]["k"] in attachment.ref  # the handle keeps the key, not the bytes
    assert await bot.adapter.download(attachment, limit=LIMIT) == picture
    # on the homeserver the file is ciphertext
    assert await download(person, url) != picture

    with pytest.raises(MediaError) as damaged:
        await bot.adapter.download((await arrived(bot, tampered)).attachments[0], limit=LIMIT)
    assert "forged.png" in damaged.value.user_message
    assert "damaged" in damaged.value.user_message


async def test_a_spoken_answer_in_an_encrypted_room(synapse: SynapseServer, sealed: Sealed) -> None:
    person, bot, room = sealed.person, sealed.bot, sealed.room
    hello = await sealed.send({"msgtype": "m.text", "body": "say it"})
    await arrived(bot, hello)  # the bot has the room's state and the person's keys

    audio = ogg()
    event_id = await bot.adapter.post_audio(room, Speech(audio, duration=2.0), key="v1")
    voice = await synced_event(person, room, event_id)
    assert isinstance(voice, RoomEncryptedAudio)
    content = voice.source["content"]
    assert content["org.matrix.msc3245.voice"] == {} and "url" not in content
    assert content["org.matrix.msc1767.audio"] == {"duration": 2000}
    file = content["file"]
    ciphertext = await download(person, file["url"])
    assert ciphertext != audio
    plain = decrypt_attachment(ciphertext, file["key"]["k"], file["hashes"]["sha256"], file["iv"])
    assert plain == audio

    # on the wire the event itself is ciphertext too
    url = f"{synapse.url}/_matrix/client/v3/rooms/{quote(room)}/event/{quote(event_id)}"
    headers = {"Authorization": f"Bearer {person.access_token}"}
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers) as r:
        raw = await r.json()
    assert raw["type"] == "m.room.encrypted" and "msc3245" not in str(raw["content"])


# the whole daemon ----------------------------------------------------------------------------


async def test_the_daemon_hears_a_voice_note_and_answers_aloud(
    synapse: SynapseServer, human: Human, tmp_path: Path
) -> None:
    """A voice note goes from the homeserver through the inbox (its handle only) to the
    transcription server; with ``/voice on`` the answer comes back as a voice message."""
    bot = synapse.register()
    make_persona(tmp_path, "scott")
    async with FakeAudio() as audio:
        audio_server = {"kind": "openai_compat", "base_url": audio.base_url, "timeout": 5}
        backends = {
            "scripted": {
                "kind": "openai_compat",
                "model": "scripted-1",
                "base_url": "http://127.0.0.1:9/v1",
            },
            "whisper": {**audio_server, "model": "whisper-1"},
            "piper": {**audio_server, "model": "piper-en"},
        }
        roles = {
            "chat": {"backend": "scripted"},
            "transcribe": {"backend": "whisper"},
            "speech": {"backend": "piper"},
            "distill_mid": {},
            "distill_long": {},
        }
        matrix = {
            "enabled": True,
            "homeserver": synapse.url,
            "user_id": bot.user_id,
            "password": bot.password,
            "sync_timeout_ms": 2000,
            "backoff_max_seconds": 1.0,
        }
        config = make_config(
            tmp_path,
            users={
                "scott": {"identities": [f"matrix:{human.user_id}"], "timezone": "UTC"},
            },
            adapters={"matrix": matrix},
            extra={"llm": {"backends": backends, "roles": roles}},
        )
        daemon = Daemon(config, backends={"scripted": ScriptedLLM()}, http=False, jobs=False)
        await daemon.start()
        try:
            room = await human.create_room(bot.user_id, direct=True)
            await human.wait_membership(room, bot.user_id, "join")
            await human.say(room, "/voice on")
            url, _ = await upload(human.client, VOICE_OGG, "audio/ogg", "Voice message.ogg")
            await human.send(
                room,
                {
                    "msgtype": "m.audio",
                    "body": "Voice message",
                    "url": url,
                    "info": {"mimetype": "audio/ogg", "size": len(VOICE_OGG), "duration": 2900},
                    "org.matrix.msc3245.voice": {},
                },
            )
            deadline = time.monotonic() + 30
            voices: list[dict[str, Any]] = []
            while not voices:
                assert time.monotonic() < deadline, "no spoken answer arrived"
                await asyncio.sleep(0.3)
                voices = [
                    event["content"]
                    for event in await human.messages(room)
                    if event["sender"] == bot.user_id
                    and event["content"].get("org.matrix.msc3245.voice") == {}
                ]
        finally:
            await daemon.stop()
    [heard] = audio.heard
    assert heard.audio == VOICE_OGG  # exactly the bytes the person uploaded
    [spoken] = audio.spoken
    assert audio.transcript in spoken["input"]
    assert await download(human.client, voices[0]["url"]) == audio.speech_audio
