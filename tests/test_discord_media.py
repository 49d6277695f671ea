"""Discord media against the loopback Discord: attachments in (one event per message however
many files), fetched from the fake CDN under a cap, and spoken answers out as voice
messages."""

from __future__ import annotations

import base64
from io import BytesIO

import pytest
from PIL import Image

from adapters.base import Attachment, Speech
from adapters.discord.adapter import DiscordAdapter
from adapters.discord.media import VOICE_FLAG, waveform
from bot.daemon.errors import MediaError, PermanentSendError
from tests.fakes.discord_api import FakeDiscord
from tests.test_discord import (  # noqa: F401  (the fixtures are used by name)
    Collector,
    adapter_fixture,
    events_fixture,
    fake_fixture,
    state_fixture,
)

#: larger than the loopback socket buffers: a download cut off early cannot have been sent whole
BIG = 40_000_000


def png(color: str = "teal") -> bytes:
    out = BytesIO()
    Image.new("RGB", (32, 24), color).save(out, "PNG")
    return out.getvalue()


async def test_several_files_in_one_message_are_one_event(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    picture, notes = png(), b"Plant the tulips in October.\n"
    files = (
        fake.attachment(picture, "garden.png", content_type="image/png"),
        fake.attachment(notes, "notes.txt", content_type="text/plain; charset=utf-8"),
    )
    await fake.dispatch_message(
        "what do you think?", author=fake.user("scott"), channel_id="900", attachments=files
    )
    await fake.wait_for(lambda: len(events.events) == 1)
    [event] = events.events
    assert (event.kind, event.text) == ("attachment", "what do you think?")
    assert [(a.name, a.mime, a.size, a.voice) for a in event.attachments] == [
        ("garden.png", "image/png", len(picture), False),
        ("notes.txt", "text/plain; charset=utf-8", len(notes), False),
    ]
    assert event.attachments[0].ref == files[0]["url"]
    assert [await adapter.download(a, limit=100_000) for a in event.attachments] == [
        picture,
        notes,
    ]


async def test_voice_message_is_marked_with_its_duration(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    audio = b"OggS\x00\x02" + bytes(300)
    note = fake.attachment(
        audio, "voice-message.ogg", content_type="audio/ogg", voice_duration=4.25
    )
    await fake.dispatch_message(
        "", author=fake.user("scott"), channel_id="900", attachments=(note,), flags=VOICE_FLAG
    )
    await fake.wait_for(lambda: len(events.events) == 1)
    [attachment] = events.events[0].attachments
    assert (attachment.voice, attachment.duration, attachment.mime) == (True, 4.25, "audio/ogg")
    assert await adapter.download(attachment, limit=10_000) == audio


async def test_declared_size_over_the_cap_is_refused_unasked(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    payload = fake.attachment(bytes(5000), "scan.pdf")
    attachment = Attachment(ref=payload["url"], name="scan.pdf", size=5000)
    with pytest.raises(MediaError) as caught:
        await adapter.download(attachment, limit=1000)
    assert "“scan.pdf” is larger than the 1 kB" in caught.value.user_message
    assert fake.served == {}


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
async def test_a_file_larger_than_it_said_is_cut_off_at_the_cap(
    fake: FakeDiscord, adapter: DiscordAdapter, chunked: bool
) -> None:
    payload = fake.attachment(bytes(BIG), "small.bin", size=100, chunked=chunked)
    path = fake.cdn[payload["id"]].path
    with pytest.raises(MediaError) as caught:
        await adapter.download(Attachment(ref=payload["url"], size=100), limit=1_000_000)
    assert "larger than the 1 MB" in caught.value.user_message
    await fake.wait_for(lambda: path in fake.served)
    assert fake.served[path] < BIG


@pytest.mark.parametrize("status", [404, 500])
async def test_a_failed_download_is_a_media_error_with_a_sentence(
    fake: FakeDiscord, adapter: DiscordAdapter, status: int
) -> None:
    payload = fake.attachment(png(), "garden.png")
    fake.fail_cdn(status=status)
    with pytest.raises(MediaError, match=str(status)) as caught:
        await adapter.download(Attachment(ref=payload["url"]), limit=100_000)
    assert caught.value.user_message.startswith("I couldn't fetch your attachment")


async def test_spoken_answer_is_a_voice_message(fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    assert adapter.supports_voice
    audio = b"OggS\x00\x02" + bytes(range(256)) * 8
    message_id = await adapter.post_audio("900", Speech(audio, duration=3.4), key="voice-k1")
    [sent] = fake.sent
    assert sent["id"] == message_id and sent["channel_id"] == "900"
    assert sent["flags"] == VOICE_FLAG and sent["content"] == "" and sent["nonce"] == "voice-k1"
    [upload] = sent["uploads"]
    assert (upload.data, upload.filename, upload.content_type) == (audio, "answer.ogg", "audio/ogg")
    [listed] = sent["attachments"]
    assert listed["duration_secs"] == 3.4
    assert base64.b64decode(listed["waveform"]) == waveform(3.4)
    assert len(waveform(3.4)) == 34 and len(waveform(600)) == 256


async def test_the_same_key_shows_one_voice_message(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    speech = Speech(b"OggS" + bytes(64), duration=1.0)
    first = await adapter.post_audio("900", speech, key="same")
    again = await adapter.post_audio("900", speech, key="same")
    assert first == again and len(fake.sent) == 1


async def test_audio_without_a_duration_goes_as_a_file(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    audio = b"OggS" + bytes(64)
    await adapter.post_audio("900", Speech(audio), key="k2")
    [sent] = fake.sent
    assert sent["flags"] == 0 and [u.data for u in sent["uploads"]] == [audio]
    assert "duration_secs" not in sent["attachments"][0]


async def test_a_channel_without_voice_messages_gets_the_audio_as_a_file(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    fake.no_voice.add("900")
    audio = b"OggS" + bytes(64)
    message_id = await adapter.post_audio("900", Speech(audio, duration=1.5), key="k3")
    assert fake.posts == [("900", 400), ("900", 200)]
    [sent] = fake.sent
    assert sent["id"] == message_id and sent["flags"] == 0 and sent["nonce"] == "k3"
    assert [u.data for u in sent["uploads"]] == [audio]


async def test_voice_in_a_channel_the_bot_lost_is_refused_for_good(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    fake.no_access.add("901")
    with pytest.raises(PermanentSendError):
        await adapter.post_audio("901", Speech(b"OggS", duration=1.0))
    assert fake.sent == []
