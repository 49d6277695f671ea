"""What the Matrix adapter reads of a file's event, and the voice message it writes, offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterContext, Attachment, Incoming, Speech
from adapters.matrix.adapter import Settings, create
from adapters.matrix.attachments import MediaRef, attachment_of, voice_content
from adapters.matrix.events import parse_event
from bot.daemon.errors import MediaError
from tests.fakes.state import MemoryState

FILE = {
    "v": "v2",
    "url": "mxc://example.org/cipher",
    "key": {"kty": "oct", "alg": "A256CTR", "ext": True, "k": "c2VjcmV0", "key_ops": ["decrypt"]},
    "iv": "AAAAAAAAAAAAAAAAAAAAAA",
    "hashes": {"sha256": "aGFzaA"},
}


def message(content: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "m.room.message",
        "event_id": "$e1",
        "sender": "@scott:example.org",
        "origin_server_ts": 1,
        "content": content,
    }


def test_an_image_and_its_caption() -> None:
    captioned = parse_event(
        message(
            {
                "msgtype": "m.image",
                "body": "the **view** from here",
                "format": "org.matrix.custom.html",
                "formatted_body": "the <b>view</b> from here",
                "filename": "view.jpg",
                "url": "mxc://example.org/abc",
                "info": {"mimetype": "image/jpeg", "size": 2048, "w": 640, "h": 480},
            }
        )
    )
    assert captioned is not None and captioned.kind == "attachment"
    assert captioned.text == "the **view** from here"
    assert captioned.formatted_body == "the <b>view</b> from here"
    assert captioned.attachments == (
        Attachment("mxc://example.org/abc", "view.jpg", "image/jpeg", 2048),
    )
    # the body only names the file (with or without a filename field saying the same)
    for content in (
        {"msgtype": "m.image", "body": "view.jpg", "url": "mxc://example.org/abc"},
        {"msgtype": "m.image", "body": "view.jpg", "filename": "view.jpg", "url": "mxc://e/a"},
    ):
        bare = parse_event(message(content))
        assert bare is not None and bare.text == "" and bare.formatted_body is None
        assert bare.attachments[0].name == "view.jpg"


def test_an_encrypted_file_keeps_its_keys_in_the_handle() -> None:
    parsed = parse_event(message({"msgtype": "m.file", "body": "notes.pdf", "file": FILE}))
    assert parsed is not None
    (attachment,) = parsed.attachments
    assert json.loads(attachment.ref)["url"] == FILE["url"]  # plain JSON text, for the inbox
    assert MediaRef.parse(attachment.ref) == MediaRef(
        "mxc://example.org/cipher", "c2VjcmV0", "AAAAAAAAAAAAAAAAAAAAAA", "aGFzaA"
    )
    assert MediaRef.parse("mxc://example.org/plain") == MediaRef("mxc://example.org/plain")
    assert MediaRef.parse("https://example.org/x") is None
    assert MediaRef.parse('{"url": "mxc://a/b"}') is None


def test_voice_notes_and_their_length() -> None:
    voice = attachment_of(
        "m.audio",
        {
            "body": "Voice message",
            "url": "mxc://example.org/v",
            "info": {"mimetype": "audio/ogg"},
            "org.matrix.msc1767.audio": {"duration": 4200},
            "org.matrix.msc3245.voice": {},
        },
    )
    assert voice is not None and voice.voice and voice.duration == 4.2
    song = attachment_of("m.audio", {"body": "a.mp3", "url": "mxc://e/s", "info": {"duration": 1}})
    assert song is not None and not song.voice and song.duration == 0.001
    # only audio has a length the core reads
    picture = attachment_of("m.image", {"body": "x", "url": "mxc://e/p", "info": {"duration": 9}})
    assert picture is not None and picture.duration is None


@pytest.mark.parametrize(
    ("msgtype", "content"),
    [
        ("m.video", {"body": "clip.mp4", "url": "mxc://example.org/v"}),
        ("m.image", {"body": "x.png", "url": "https://example.org/x.png"}),
        ("m.image", {"body": "x.png"}),
        ("m.file", {"body": "x", "file": {**FILE, "hashes": {}}}),
        ("m.file", {"body": "x", "file": {**FILE, "url": "https://example.org/x"}}),
    ],
)
def test_files_the_core_cannot_fetch_have_no_attachment(
    msgtype: str, content: dict[str, Any]
) -> None:
    parsed = parse_event(message({"msgtype": msgtype, **content}))
    assert parsed is not None and parsed.kind == "attachment" and parsed.attachments == ()


def test_declared_sizes_are_read_only_when_they_are_sizes() -> None:
    for size in (-1, True, "12", 1.5):
        content = {"body": "x", "url": "mxc://e/a", "info": {"size": size, "duration": "long"}}
        attachment = attachment_of("m.audio", content)
        assert attachment is not None and attachment.size is None and attachment.duration is None


def test_a_voice_message_content() -> None:
    speech = Speech(b"OggS....", duration=3.25)
    plain = voice_content(speech, "mxc://example.org/a", None)
    assert plain["msgtype"] == "m.audio" and plain["url"] == "mxc://example.org/a"
    assert plain["org.matrix.msc3245.voice"] == {}
    assert plain["org.matrix.msc1767.audio"] == {"duration": 3250}
    assert plain["info"] == {"mimetype": "audio/ogg", "size": 8, "duration": 3250}
    assert plain["body"] == plain["filename"] == "answer.ogg"
    keys = {key: FILE[key] for key in ("v", "key", "iv", "hashes")}
    sealed = voice_content(Speech(b"OggS"), "mxc://example.org/c", keys)
    assert "url" not in sealed and sealed["file"] == {**keys, "url": "mxc://example.org/c"}
    assert sealed["org.matrix.msc1767.audio"] == {} and "duration" not in sealed["info"]
    # what the adapter writes, it reads back as a voice note
    back = attachment_of("m.audio", plain)
    assert back is not None and back.voice and back.duration == 3.25 and back.size == 8


async def test_download_before_start_is_a_media_error(tmp_path: Path) -> None:
    async def handler(_: Incoming) -> None:
        return None

    adapter = create(
        Settings(enabled=True, homeserver="http://127.0.0.1:9", user_id="@a:b", password="x"),
        AdapterContext(handler, MemoryState(), tmp_path),  # type: ignore[arg-type]
    )
    assert adapter.supports_voice
    with pytest.raises(MediaError) as refused:
        await adapter.download(Attachment("mxc://example.org/a"), limit=10)
    assert refused.value.user_message.endswith("please send it again.")
