"""Telegram media against the loopback Bot API: photos, albums, voice notes and documents in,
fetched through getFile under a cap, and spoken answers out through sendVoice."""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image

from adapters.base import Attachment, Incoming, Speech
from adapters.telegram.adapter import TelegramAdapter
from bot.daemon.errors import MediaError, PermanentSendError
from tests.fakes.telegram_api import FakeTelegram
from tests.test_telegram import Inbox, adapter, fake, in_order, inbox, make_adapter, store, until

__all__ = ["adapter", "fake", "inbox", "make_adapter", "store"]

pytestmark = pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'")

CHAT = 4242
#: larger than the loopback socket buffers: a download cut off early cannot have been sent whole
BIG = 40_000_000


def png(width: int = 64, height: int = 48, color: str = "teal") -> bytes:
    out = BytesIO()
    Image.new("RGB", (width, height), color).save(out, "PNG")
    return out.getvalue()


async def one_event(inbox: Inbox, count: int = 1) -> list[Incoming]:
    await until(lambda: len(inbox.events) >= count, f"{count} event(s)")
    return in_order(inbox.events)


def getfile_calls(fake: FakeTelegram) -> int:
    return sum(1 for method, _ in fake.requests if method == "getfile")


async def test_photo_with_caption_is_the_largest_size_and_downloads(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    picture = png(640, 480)
    sizes = fake.photo(picture, 640, 480)
    fake.push_file(CHAT, "photo", sizes, caption="our garden")
    [event] = await one_event(inbox)
    assert (event.kind, event.text, event.album) == ("attachment", "our garden", "")
    [attachment] = event.attachments
    assert attachment.ref == sizes[1]["file_id"]  # not the thumbnail
    assert (attachment.mime, attachment.size, attachment.voice) == (
        "image/jpeg",
        len(picture),
        False,
    )
    assert await adapter.download(attachment, limit=1_000_000) == picture


async def test_absurdly_large_photo_size_is_passed_over(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    sizes = [
        fake.file(png(90, 90), width=90, height=90),
        fake.file(png(1280, 1280), width=1280, height=1280),
        fake.file(b"huge", width=10_000, height=10_000),
    ]
    fake.push_file(CHAT, "photo", sizes)
    [event] = await one_event(inbox)
    assert [a.ref for a in event.attachments] == [sizes[1]["file_id"]]


async def test_album_photos_share_the_album_and_each_downloads(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    first, second = png(color="red"), png(color="blue")
    fake.push_file(CHAT, "photo", fake.photo(first, 64, 48), caption="two", album="13579")
    fake.push_file(CHAT, "photo", fake.photo(second, 64, 48), album="13579")
    events = await one_event(inbox, 2)
    assert [(e.album, e.text, len(e.attachments)) for e in events] == [
        ("13579", "two", 1),
        ("13579", "", 1),
    ]
    fetched = [await adapter.download(e.attachments[0], limit=100_000) for e in events]
    assert fetched == [first, second]


async def test_voice_note_is_marked_with_its_duration(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    audio = b"OggS\x00\x02" + bytes(200)
    fake.push_file(CHAT, "voice", fake.file(audio, duration=3, mime_type="audio/ogg"))
    [event] = await one_event(inbox)
    [attachment] = event.attachments
    assert (attachment.voice, attachment.duration, attachment.mime) == (True, 3.0, "audio/ogg")
    assert await adapter.download(attachment, limit=10_000) == audio


async def test_document_and_audio_keep_name_type_and_size(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    notes = b"# Notes\n\nPlant the tulips in October.\n"
    fake.push_file(
        CHAT,
        "document",
        fake.file(notes, file_name="notes.md", mime_type="text/markdown"),
        caption="read this",
    )
    song = b"ID3" + bytes(100)
    fake.push_file(
        CHAT, "audio", fake.file(song, file_name="song.mp3", mime_type="audio/mpeg", duration=7)
    )
    document, audio = await one_event(inbox, 2)
    assert document.text == "read this"
    assert document.attachments == (
        Attachment(
            ref=document.attachments[0].ref, name="notes.md", mime="text/markdown", size=len(notes)
        ),
    )
    assert await adapter.download(document.attachments[0], limit=1000) == notes
    [track] = audio.attachments
    assert (track.name, track.mime, track.voice, track.duration) == (
        "song.mp3",
        "audio/mpeg",
        False,
        7.0,
    )


async def test_videos_and_stickers_bring_no_attachment(
    fake: FakeTelegram, adapter: TelegramAdapter, inbox: Inbox
) -> None:
    video = fake.file(b"\x00\x00\x00\x18ftypmp42", width=640, height=360, duration=4)
    fake.push_file(CHAT, "video", video, caption="look")
    sticker = fake.file(
        b"RIFF", width=512, height=512, is_animated=False, is_video=False, type="regular"
    )
    fake.push_file(CHAT, "sticker", sticker)
    events = await one_event(inbox, 2)
    assert [(e.kind, e.text, e.attachments) for e in events] == [
        ("attachment", "look", ()),
        ("attachment", "", ()),
    ]


async def test_declared_size_over_the_cap_is_refused_unasked(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    described = fake.file(bytes(5000), file_name="big.pdf")
    attachment = Attachment(ref=described["file_id"], name="big.pdf", size=5000)
    with pytest.raises(MediaError) as caught:
        await adapter.download(attachment, limit=1000)
    assert "“big.pdf” is larger than the 1 kB" in caught.value.user_message
    assert getfile_calls(fake) == 0 and fake.served == {}


async def test_over_the_bot_api_limit_is_refused_with_telegrams_reason(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    described = fake.file(b"small really", size=25 * 1024 * 1024)
    declared = Attachment(ref=described["file_id"], size=25 * 1024 * 1024)
    with pytest.raises(MediaError, match="20 MB") as caught:
        await adapter.download(declared, limit=50_000_000)
    assert "20 MB Telegram lets bots download" in caught.value.user_message
    assert getfile_calls(fake) == 0
    # a message that did not say its size: getFile refuses it and the sentence is the same
    with pytest.raises(MediaError, match="20 MB"):
        await adapter.download(Attachment(ref=described["file_id"]), limit=50_000_000)
    assert getfile_calls(fake) == 1 and fake.served == {}


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
async def test_a_file_larger_than_it_said_is_cut_off_at_the_cap(
    fake: FakeTelegram, adapter: TelegramAdapter, chunked: bool
) -> None:
    described = fake.file(bytes(BIG), size=1000, chunked=chunked)
    path = fake.files[described["file_id"]].path
    with pytest.raises(MediaError) as caught:
        await adapter.download(Attachment(ref=described["file_id"], size=1000), limit=1_000_000)
    assert "larger than the 1 MB" in caught.value.user_message
    await until(lambda: path in fake.served, "the download to end")
    assert fake.served[path] < BIG


@pytest.mark.parametrize("status", [404, 500])
async def test_a_failed_download_is_a_media_error_with_a_sentence(
    fake: FakeTelegram, adapter: TelegramAdapter, status: int
) -> None:
    described = fake.file(png())
    fake.fail_download(status=status)
    with pytest.raises(MediaError) as caught:
        await adapter.download(Attachment(ref=described["file_id"]), limit=100_000)
    assert str(status) in str(caught.value)
    assert caught.value.user_message.startswith("I couldn't fetch your attachment")


async def test_an_unknown_file_id_is_a_media_error(adapter: TelegramAdapter) -> None:
    with pytest.raises(MediaError, match=r"(?i)invalid file_id") as caught:
        await adapter.download(Attachment(ref="no-such-file"), limit=100_000)
    assert caught.value.user_message.endswith("please send it again.")


async def test_spoken_answer_goes_out_as_a_voice_message(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    assert adapter.supports_voice
    audio = b"OggS\x00\x02" + bytes(range(256)) * 4
    message_id = await adapter.post_audio(str(CHAT), Speech(audio, duration=2.6), key="k1")
    [voice] = fake.voices
    assert (voice["chat_id"], str(voice["message_id"])) == (str(CHAT), message_id)
    assert voice["duration"] == 3
    assert voice["upload"].data == audio
    assert voice["upload"].filename == "answer.ogg"


async def test_voice_to_a_chat_that_is_gone_is_refused_for_good(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    fake.vanished.add("777")
    with pytest.raises(PermanentSendError):
        await adapter.post_audio("777", Speech(b"OggS" + bytes(10)))
    assert fake.voices == []


async def test_a_user_who_forbids_voice_messages_gets_the_answer_as_an_audio_file(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    fake.voice_forbidden.add(str(CHAT))
    audio = b"OggS\x00\x02" + bytes(range(256)) * 4
    message_id = await adapter.post_audio(str(CHAT), Speech(audio, duration=2.6), key="k2")
    assert fake.voices == []
    [document] = fake.documents
    assert (document["chat_id"], str(document["message_id"])) == (str(CHAT), message_id)
    assert (document["upload"].data, document["upload"].filename) == (audio, "answer.ogg")


async def test_a_chat_that_forbids_voice_messages_gets_audio_files_straight_away(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    fake.voice_forbidden.add(str(CHAT))
    audio = b"OggS\x00\x02" + bytes(range(256)) * 4
    for key in ("k3", "k4"):
        await adapter.post_audio(str(CHAT), Speech(audio, duration=2.6), key=key)
    methods = [method for method, _ in fake.requests if method in ("sendvoice", "senddocument")]
    assert methods == ["sendvoice", "senddocument", "senddocument"]
    assert [document["upload"].filename for document in fake.documents] == ["answer.ogg"] * 2
