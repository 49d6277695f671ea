"""Pictures, voice notes and documents through the whole daemon: what the model receives at
its wire, what the user gets back, what the session log keeps, and every bad-media case
answered once with one clear sentence while the daemon keeps going."""

from __future__ import annotations

import asyncio
import base64
import io
import itertools
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from adapters.base import Attachment, Incoming
from bot.daemon.daemon import Daemon
from bot.daemon.errors import PermanentSendError
from bot.delivery.inbox import from_json, to_json
from bot.delivery.spoken_copies import SPOKEN_TRIES
from bot.media import prepare
from bot.media.kinds import SUPPORTED
from bot.media.prepare import NO_TRANSCRIBER, NO_VISION, PDF_POOL, PDF_THREADS
from bot.setup.config import Config
from bot.turn.voice import SPOKEN_CHARS, spoken_text
from tests.fakes.anthropic_api import FakeAnthropic
from tests.fakes.audio_api import FakeAudio
from tests.fakes.openai_api import FakeOpenAI
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.media_files import (
    VOICE_OGG,
    WEBM_SOUND,
    base64_needle,
    bomb_png,
    crowded_pdf,
    damaged_pdf,
    files_holding,
    middle,
    pdf,
    picture,
    silence_wav,
)
from tests.rig import start_daemon

SCOTT = "scott"
_ids = itertools.count(1)


@dataclass
class World:
    daemon: Daemon
    adapter: RecordingAdapter
    data: Path
    audio: FakeAudio

    async def send(
        self,
        text: str = "",
        *files: tuple[str, bytes, dict[str, Any]],
        sender: str = SCOTT,
        album: str = "",
        event_id: str = "",
    ) -> str:
        """Deliver a message with ``files`` (name, bytes, Attachment fields); its event id."""
        attachments = []
        for name, data, extra in files:
            ref = f"ref-{next(_ids)}"
            self.adapter.files[ref] = data
            attachments.append(Attachment(ref, name=name, size=len(data), **extra))
        event = event_id or f"e{next(_ids)}"
        await self.adapter.context.handler(
            Incoming(
                platform="console",
                sender=sender,
                room="room1",
                text=text,
                event_id=event,
                kind="attachment" if files else "text",
                attachments=tuple(attachments),
                album=album,
            )
        )
        return event

    def log_text(self) -> str:
        folder = self.data / SCOTT / "persona" / "inara" / "sessions"
        return "\n".join(p.read_text() for p in sorted(folder.rglob("*.md")))


def _config(tmp: Path, audio: FakeAudio, **extra: Any) -> Config:
    llm = extra.pop("models", {})
    media = extra.pop("media", {})
    servers = {
        "whisper": {
            "kind": "openai_compat",
            "model": "whisper-1",
            "base_url": audio.base_url,
            "timeout": 2,
        },
        "piper": {
            "kind": "openai_compat",
            "model": "piper-en",
            "base_url": audio.base_url,
            "timeout": 2,
        },
    }
    roles = {"chat": {"backend": "scripted"}, "distill_mid": {}, "distill_long": {}}
    roles.update(llm.get("roles", {}))
    backends = {
        "scripted": {
            "kind": "openai_compat",
            "model": "scripted-1",
            "base_url": "http://127.0.0.1:9/v1",
            "vision": True,
        },
        **servers,
        **llm.get("backends", {}),
    }
    return make_config(
        tmp,
        users={SCOTT: {"identities": ["console:scott"], "admin": True, "timezone": "UTC"}},
        extra={
            "llm": {"backends": backends, "roles": roles},
            "media": media,
            "daemon": {"user_rate_per_minute": 10_000, "user_burst": 1000},
            **extra,
        },
    )


@pytest.fixture
async def audio() -> AsyncIterator[FakeAudio]:
    async with FakeAudio() as fake:
        yield fake


async def _world(
    tmp: Path, audio: FakeAudio, llm: Any = None, env: dict[str, str] | None = None, **extra: Any
) -> World:
    make_persona(tmp, SCOTT)
    daemon, adapter = await start_daemon(_config(tmp, audio, **extra), tmp, llm=llm, env=env)
    return World(daemon, adapter, tmp, audio)


TRANSCRIBE = {"roles": {"transcribe": {"backend": "whisper"}}}
SPEAK = {"roles": {"speech": {"backend": "piper"}}}


# -- pictures at the model's wire -----------------------------------------------------------


async def test_a_photo_with_a_caption_reaches_anthropic_as_an_image_block(
    tmp_path: Path, audio: FakeAudio
) -> None:
    async with FakeAnthropic() as model:
        anthropic = {
            "kind": "anthropic",
            "model": "claude-test",
            "base_url": model.base_url,
            "max_retries": 0,
        }
        world = await _world(
            tmp_path,
            audio,
            models={"backends": {"scripted": anthropic}},
            env={"ANTHROPIC_API_KEY": "k"},
        )
        try:
            photo = picture(4032, 3024, "JPEG")
            await world.send("what bird is this?", ("bird.jpg", photo, {"mime": "image/jpeg"}))
        finally:
            await world.daemon.stop()
    [(media_type, shown)] = model.pictures
    assert media_type == "image/jpeg" and shown != photo and len(shown) < len(photo)
    content = model.requests[-1].body["messages"][-1]["content"]
    assert [block["type"] for block in content] == ["image", "text"]
    assert content[1]["text"].endswith("[picture: what bird is this?]")
    assert world.adapter.texts()[-1].startswith("echo: ")
    log = world.log_text()
    assert "[picture: what bird is this?]" in log
    assert base64.b64encode(shown[:30]).decode()[:20] not in log


async def test_a_local_vision_model_gets_data_uris(tmp_path: Path, audio: FakeAudio) -> None:
    async with FakeOpenAI() as model:
        local = {
            "kind": "openai_compat",
            "model": "llava",
            "base_url": f"{model.base_url}/v1",
            "vision": True,
            "max_retries": 0,
        }
        world = await _world(tmp_path, audio, models={"backends": {"scripted": local}})
        try:
            await world.send("", ("a.png", picture(800, 600, "PNG"), {"mime": "image/png"}))
        finally:
            await world.daemon.stop()
    [(media_type, shown)] = model.pictures
    assert media_type == "image/png" and shown.startswith(b"\x89PNG")
    content = model.requests[-1].body["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": content[0]["text"]}
    assert content[0]["text"].endswith("[picture]")
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


async def test_a_model_without_vision_says_so_in_one_sentence(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(
        tmp_path,
        audio,
        llm,
        models={
            "backends": {
                "scripted": {
                    "kind": "openai_compat",
                    "model": "m",
                    "base_url": "http://127.0.0.1:9/v1",
                }
            }
        },
    )
    try:
        await world.send("", ("a.png", picture(), {"mime": "image/png"}))
        await world.send("are you there?")
        await world.send("look at this", ("b.png", picture(), {"mime": "image/png"}))
    finally:
        await world.daemon.stop()
    alone, typed, captioned = world.adapter.texts()
    assert (alone, typed) == (NO_VISION, "echo: are you there?")
    # a caption is answered all the same, with the sentence below the answer
    assert captioned.startswith("echo: look at this") and captioned.endswith(f"\n\n{NO_VISION}")
    assert world.adapter.bytes_served == 0  # not even downloaded
    assert len(llm.calls) == 2


async def test_an_album_is_one_turn_with_every_picture(tmp_path: Path, audio: FakeAudio) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        first = asyncio.create_task(
            world.send(
                "our holiday", ("1.jpg", picture(fmt="JPEG"), {"mime": "image/jpeg"}), album="g7"
            )
        )
        await asyncio.sleep(0.1)
        second = asyncio.create_task(
            world.send("", ("2.jpg", picture(300, 300, "JPEG"), {"mime": "image/jpeg"}), album="g7")
        )
        await asyncio.gather(first, second)
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 2
    assert call.messages[-1].text.endswith("[2 pictures: our holiday]")
    assert len(world.adapter.texts()) == 1


async def test_a_group_album_named_by_a_later_picture_is_one_turn_in_the_group(
    tmp_path: Path, audio: FakeAudio
) -> None:
    """In a group, the picture whose caption names the persona may come after the album's
    others (a caption put on a later picture): those wait for it, and the album is answered
    whole, in the group, on the group's own record."""
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)

    def in_group(n: int, caption: str) -> Incoming:
        ref = f"g-{n}"
        world.adapter.files[ref] = picture(200 + n, 150, "JPEG")
        attachment = Attachment(ref, name=f"{n}.jpg", mime="image/jpeg")
        return Incoming(
            "console",
            SCOTT,
            "group1",
            caption,
            f"g-e{n}",
            is_direct=False,
            addressed=bool(caption),
            kind="attachment",
            attachments=(attachment,),
            album="g8",
        )

    try:
        handle = world.adapter.context.handler
        await asyncio.gather(
            handle(in_group(1, "")), handle(in_group(2, "")), handle(in_group(3, "inara, look"))
        )
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    # in the order they were sent, though the first two waited for the third
    assert [shown.width for shown in call.messages[-1].pictures] == [201, 202, 203]
    assert call.messages[-1].text.endswith("[3 pictures: inara, look]")
    assert [room for room, _text in world.adapter.sent] == ["group1"]
    logged = "· user · scott · console:group1 · shared\n\n[3 pictures: inara, look]"
    assert logged in world.log_text()


# -- voice notes -------------------------------------------------------------------------------


async def test_a_voice_note_is_transcribed_and_the_transcript_is_the_message(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE, media={"echo_transcript": True})
    try:
        # Matrix names a voice note "Voice message", with no extension
        await world.send(
            "",
            ("Voice message", VOICE_OGG, {"mime": "audio/ogg", "voice": True, "duration": 3.0}),
        )
    finally:
        await world.daemon.stop()
    [heard] = audio.heard
    assert heard.audio == VOICE_OGG and heard.model == "whisper-1"
    assert heard.filename == "voice.ogg"
    assert heard.response_format == "json"  # its length was known: no need to ask
    said = "[voice note 0:03, transcribed] remind me to buy flour and eggs tomorrow morning"
    assert llm.calls[-1].messages[-1].text.endswith(said)
    [answer] = world.adapter.texts()
    assert answer.startswith("> remind me to buy flour and eggs tomorrow morning\n\necho: ")
    assert said in world.log_text()


async def test_a_recording_of_unknown_length_is_timed_by_the_server(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    audio.duration = 14.2
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    try:
        await world.send("", ("rec.webm", WEBM_SOUND, {"mime": "audio/webm", "voice": True}))
    finally:
        await world.daemon.stop()
    [heard] = audio.heard
    assert (heard.filename, heard.response_format) == ("voice.webm", "verbose_json")
    said = f"[voice note 0:14, transcribed] {audio.transcript}"
    assert llm.calls[-1].messages[-1].text.endswith(said)


async def test_a_server_that_only_answers_json_still_transcribes_an_untimed_recording(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    audio.formats = {"json", "text"}
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    try:
        await world.send("", ("rec.webm", WEBM_SOUND, {"mime": "audio/webm", "voice": True}))
    finally:
        await world.daemon.stop()
    assert [heard.response_format for heard in audio.heard] == ["json"]
    said = f"[voice note, transcribed] {audio.transcript}"
    assert llm.calls[-1].messages[-1].text.endswith(said)


async def test_without_a_transcription_server_the_user_learns_how_to_enable_it(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _world(tmp_path, audio, ScriptedLLM())
    try:
        await world.send("", ("voice.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True}))
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [NO_TRANSCRIBER]
    assert "llm.roles.transcribe" in NO_TRANSCRIBER
    assert re.split(r"(?<=[.!?])\s+", NO_TRANSCRIBER) == [NO_TRANSCRIBER]  # one sentence


# -- documents --------------------------------------------------------------------------------


async def test_a_pdf_is_given_to_the_model_with_its_name(tmp_path: Path, audio: FakeAudio) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        document = pdf(["The boiler service is booked for 14 March.", "Ana has the spare key."])
        await world.send(
            "when is the service?", ("house.pdf", document, {"mime": "application/pdf"})
        )
    finally:
        await world.daemon.stop()
    text = llm.calls[-1].messages[-1].text
    assert "when is the service?\n\n[document house.pdf, 2 pages]\n" in text
    assert "booked for 14 March" in text and "spare key" in text
    assert "[document house.pdf, 2 pages]" in world.log_text()


# -- bad media: one sentence each, answered once, the daemon goes on ---------------------------


class SlowAdapter(RecordingAdapter):
    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        await asyncio.sleep(30)
        return b""


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("unsupported", f"{SUPPORTED}; “report.docx” is none of those."),
        ("too large", "larger than the 1 MB I accept"),
        ("declared too large", "larger than the 1 MB I accept"),
        ("bomb", "more than I open; please send a smaller one"),
        ("broken", "could not be opened as a picture"),
        ("damaged pdf", "“letter.pdf” could not be read as a PDF."),
        ("gone", "That file is gone from the server."),
        ("too long", "I listen to at most 1:00"),
        ("longer than it says", "That recording is 1:01 long; I listen to at most 1:00."),
        ("too long for the server", "That recording is 1:01 long; I listen to at most 1:00."),
        ("server down", "couldn't hear your voice note"),
        ("too many", "I read at most 10 in one message"),
        ("sticker", f"{SUPPORTED}; I can't open that kind of message."),
    ],
)
async def test_bad_media_is_one_clear_sentence_and_the_daemon_goes_on(
    tmp_path: Path, audio: FakeAudio, case: str, said: str
) -> None:
    llm = ScriptedLLM()
    world = await _world(
        tmp_path,
        audio,
        llm,
        models=TRANSCRIBE,
        media={"max_image_bytes": 1_000_000, "max_audio_seconds": 60},
    )
    big = picture(2000, 2000, "PNG") + b"\x00" * 1_000_000
    files: dict[str, tuple[tuple[str, bytes, dict[str, Any]], ...]] = {
        "unsupported": (
            ("report.docx", b"PK\x03\x04" + b"\x01\x02" * 200, {"mime": "text/plain"}),
        ),
        "too large": (("big.png", big, {"mime": "image/png"}),),
        "bomb": (("bomb.png", bomb_png(), {"mime": "image/png"}),),
        "broken": (("half.png", picture()[:500], {"mime": "image/png"}),),
        "damaged pdf": (("letter.pdf", damaged_pdf(), {"mime": "application/pdf"}),),
        "too long": (
            ("talk.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True, "duration": 61.0}),
        ),
        # the platform says 5 s, the file 61 s: the longer counts
        "longer than it says": (
            ("long.wav", silence_wav(61), {"mime": "audio/wav", "duration": 5.0}),
        ),
        # nothing says how long: the server that heard it does
        "too long for the server": (
            ("rec.webm", WEBM_SOUND, {"mime": "audio/webm", "voice": True}),
        ),
        "server down": (("v.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True}),),
        "too many": tuple((f"{n}.png", picture(64, 64), {"mime": "image/png"}) for n in range(11)),
    }
    try:
        if case == "server down":
            audio.fail = 503
        audio.duration = 61.0
        if case == "gone":
            ref = Attachment("missing", name="x.png", mime="image/png")
            incoming = Incoming(
                "console", SCOTT, "room1", "", "gone-1", kind="attachment", attachments=(ref,)
            )
            await world.adapter.context.handler(incoming)
            event = "gone-1"
        elif case == "declared too large":
            ref = Attachment("huge", name="huge.png", mime="image/png", size=50_000_000)
            world.adapter.files["huge"] = b"x"
            incoming = Incoming(
                "console", SCOTT, "room1", "", "huge-1", kind="attachment", attachments=(ref,)
            )
            await world.adapter.context.handler(incoming)
            event = "huge-1"
        elif case == "sticker":
            incoming = Incoming("console", SCOTT, "room1", "", "st-1", kind="attachment")
            await world.adapter.context.handler(incoming)
            event = "st-1"
        else:
            event = await world.send("", *files[case])
        if case == "too large":
            assert world.adapter.bytes_served <= 1_000_000 + 65536  # reading stopped at the cap
        if case == "declared too large":
            assert world.adapter.bytes_served == 0
        if case in ("too long", "longer than it says"):
            assert audio.heard == []  # refused before it was sent anywhere
        if case == "too long for the server":
            assert [heard.response_format for heard in audio.heard] == ["verbose_json"]
        await world.send("still there?")
        # the platform hands the same event over again: it was answered once, not again
        ref = Attachment("ref-again", name="x.png", mime="image/png")
        await world.adapter.context.handler(
            Incoming("console", SCOTT, "room1", "", event, kind="attachment", attachments=(ref,))
        )
    finally:
        await world.daemon.stop()
    texts = world.adapter.texts()
    assert len(texts) == 2, texts
    assert said in texts[0]
    assert texts[1] == "echo: still there?"
    assert len(llm.calls) == 1


async def test_a_bad_file_in_a_burst_leaves_the_typed_messages_around_it_answered(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM(hold=asyncio.Event())
    world = await _world(tmp_path, audio, llm)
    zip_file = ("notes.zip", b"PK\x03\x04" + b"\x01\x02" * 200, {"mime": "application/zip"})
    try:
        first = asyncio.create_task(world.send("first"))
        for _ in range(100):
            if llm.calls:
                break
            await asyncio.sleep(0.01)
        # three messages arrive while the first turn runs: a typed one, a bad file, a typed one
        later = [
            asyncio.create_task(world.send("typed before")),
            asyncio.create_task(world.send("", zip_file)),
            asyncio.create_task(world.send("typed after")),
        ]
        await asyncio.sleep(0.1)
        assert llm.hold is not None
        llm.hold.set()
        await asyncio.gather(first, *later)
    finally:
        await world.daemon.stop()
    texts = world.adapter.final_texts()
    assert texts[0] == "echo: first" and texts[1] == "echo: typed before"
    assert SUPPORTED in texts[2] and texts[3] == "echo: typed after"
    assert len(texts) == 4


# -- a file that cannot be used among others: the rest answered, that one named --------------


async def _again(world: World, event: str, text: str) -> None:
    """The platform hands ``event`` over again (its file no longer served)."""
    ref = Attachment("ref-again", name="x.png", mime="image/png")
    await world.adapter.context.handler(
        Incoming("console", SCOTT, "room1", text, event, kind="attachment", attachments=(ref,))
    )


async def test_three_photos_one_damaged_are_answered_about_the_two_and_name_the_third(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    photos = (
        ("heron.jpg", picture(fmt="JPEG"), {"mime": "image/jpeg"}),
        ("half.png", picture()[:500], {"mime": "image/png"}),
        ("pond.png", picture(300, 200), {"mime": "image/png"}),
    )
    question = "which one shows the heron?"
    try:
        event = await world.send(question, *photos)
        await _again(world, event, question)
    finally:
        await world.daemon.stop()
    reason = "“half.png” could not be opened as a picture."
    [call] = llm.calls
    said = call.messages[-1]
    assert len(said.pictures) == 2
    assert said.text.endswith(f"[2 pictures: {question}]\n\n[not read: {reason}]")
    [answer] = world.adapter.texts()  # answered once, the redelivery not again
    assert answer.startswith(f"echo: [2 pictures: {question}]")
    assert answer.endswith(f"]\n\n{reason}")
    assert f"[2 pictures: {question}]\n\n[not read: {reason}]" in world.log_text()


BIG_PNG = picture(2000, 2000, "PNG") + b"\x00" * 1_000_000


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (
            ("half.png", picture()[:500], {"mime": "image/png"}),
            "“half.png” could not be opened as a picture.",
        ),
        (
            ("letter.pdf", damaged_pdf(), {"mime": "application/pdf"}),
            "“letter.pdf” could not be read as a PDF.",
        ),
        (
            ("export.csv", b"", {"mime": "text/csv"}),
            "“export.csv” is empty, so there is nothing in it to read.",
        ),
        (
            ("big.png", BIG_PNG, {"mime": "image/png"}),
            "“big.png” is larger than the 1 MB I accept for that kind of file, so I did not"
            " open it.",
        ),
        (
            ("report.docx", b"PK\x03\x04" + b"\x01\x02" * 200, {"mime": "application/msword"}),
            f"{SUPPORTED}; “report.docx” is none of those.",
        ),
        # a sentence that does not name its file is given the file's name
        (
            ("talk.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True, "duration": 61.0}),
            "“talk.ogg”: That recording is 1:01 long; I listen to at most 1:00.",
        ),
    ],
    ids=["damaged picture", "unreadable pdf", "empty", "too large", "unsupported", "too long"],
)
async def test_a_file_that_cannot_be_used_leaves_the_text_and_the_other_files_answered(
    tmp_path: Path, audio: FakeAudio, bad: tuple[str, bytes, dict[str, Any]], said: str
) -> None:
    llm = ScriptedLLM()
    world = await _world(
        tmp_path,
        audio,
        llm,
        models=TRANSCRIBE,
        media={"max_image_bytes": 1_000_000, "max_audio_seconds": 60},
    )
    notes = ("plan.txt", b"The boiler service is booked for 14 March.\n", {"mime": "text/plain"})
    photo = ("yard.jpg", picture(fmt="JPEG"), {"mime": "image/jpeg"})
    try:
        event = await world.send("what do these say?", notes, bad, photo)
        await _again(world, event, "what do these say?")
        await world.send("still there?")
    finally:
        await world.daemon.stop()
    assert len(llm.calls) == 2
    heard = llm.calls[0].messages[-1]
    assert len(heard.pictures) == 1
    assert heard.text.endswith(
        "[picture: what do these say?]\n\n[document plan.txt]\n"
        f"The boiler service is booked for 14 March.\n\n[not read: {said}]"
    )
    assert audio.heard == []
    answer, later = world.adapter.texts()
    assert answer.startswith("echo: [picture: what do these say?]")
    assert answer.endswith(f"]\n\n{said}")
    assert later == "echo: still there?"
    log = world.log_text()
    assert "booked for 14 March" in log and f"[not read: {said}]" in log


async def test_a_message_of_only_files_that_cannot_be_used_names_each_without_the_model(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        event = await world.send(
            "",
            ("half.png", picture()[:500], {"mime": "image/png"}),
            ("export.csv", b"", {"mime": "text/csv"}),
        )
        await _again(world, event, "")
        await world.send("still there?")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [
        "“half.png” could not be opened as a picture.\n"
        "“export.csv” is empty, so there is nothing in it to read.",
        "echo: still there?",
    ]
    assert len(llm.calls) == 1


async def test_pictures_of_no_name_that_cannot_be_used_are_named_by_their_place(
    tmp_path: Path, audio: FakeAudio
) -> None:
    """An album's photos have no names (Telegram's): a sentence about one of them says which
    it is; a sentence true of every file of the message is said once."""
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        await world.send(
            "our holiday",
            ("", picture(fmt="JPEG"), {"mime": "image/jpeg"}),
            ("", picture()[:700], {"mime": "image/png"}),
        )
        await world.send(
            "",
            ("", picture()[:500], {"mime": "image/png"}),
            ("", picture()[:600], {"mime": "image/png"}),
        )
    finally:
        await world.daemon.stop()
    answer, refusal = world.adapter.texts()
    assert answer.endswith("]\n\nFile 2 of 2: That picture could not be opened as a picture.")
    assert refusal == "That picture could not be opened as a picture."
    assert len(llm.calls) == 1


async def test_off_the_record_a_file_not_read_leaves_no_trace_of_the_message(
    tmp_path: Path, audio: FakeAudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)
    data = tmp_path / "data"
    llm = ScriptedLLM()
    world = await _world(data, audio, llm)
    document = pdf(["marzipanocelot is the name of the boat"])
    broken = picture(900, 700)[:4000]
    try:
        await world.send("/otr on")
        await world.send(
            "zanzibarquokka",
            ("boat.pdf", document, {"mime": "application/pdf"}),
            ("quinceaardvark.png", broken, {"mime": "image/png"}),
        )
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    assert "marzipanocelot" in call.messages[-1].text
    answer = world.adapter.texts()[-1]
    assert answer.endswith("“quinceaardvark.png” could not be opened as a picture.")
    needles = [b"zanzibarquokka", b"marzipanocelot", b"quinceaardvark", middle(document)]
    assert not files_holding([data, scratch], needles)
    assert not any(scratch.iterdir())


async def test_a_retried_message_whose_answer_was_made_is_not_read_again(
    tmp_path: Path, audio: FakeAudio
) -> None:
    """A turn cut off after its answer was made delivers that answer when the platform
    hands the message over again, without fetching its file a second time (it may be gone)."""
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    stuck = asyncio.Event()
    send = world.adapter.send

    async def stuck_once(
        room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        if not stuck.is_set():
            stuck.set()
            await asyncio.Event().wait()
        return await send(room, text, reply_to=reply_to, key=key)

    world.adapter.send = stuck_once  # type: ignore[method-assign]
    photo = ("cat.jpg", picture(fmt="JPEG"), {"mime": "image/jpeg"})
    try:
        turn = asyncio.create_task(world.send("what is this?", photo, event_id="p-1"))
        await stuck.wait()
        turn.cancel()  # an adapter restart cuts the handler off
        with pytest.raises(asyncio.CancelledError):
            await turn
        served = world.adapter.bytes_served
        world.adapter.files.clear()  # the platform no longer serves the file
        gone = Attachment("ref-gone", name="cat.jpg", mime="image/jpeg")
        await world.adapter.context.handler(
            Incoming(
                "console",
                SCOTT,
                "room1",
                "what is this?",
                "p-1",
                kind="attachment",
                attachments=(gone,),
            )
        )
    finally:
        await world.daemon.stop()
    assert world.adapter.bytes_served == served
    [answer] = world.adapter.final_texts()
    assert answer.startswith("echo: ") and "what is this?" in answer
    assert len(llm.calls) == 1


def noisy_png(side: int) -> bytes:
    """A PNG of random pixels: it compresses to hardly less than its 3 × side² bytes."""
    out = io.BytesIO()
    Image.effect_noise((side, side), 120).convert("RGB").save(out, "PNG")
    return out.getvalue()


async def test_a_file_of_no_declared_type_is_fetched_up_to_the_largest_usable_cap(
    tmp_path: Path, audio: FakeAudio
) -> None:
    """Nothing declared: the file may be a picture (the model sees them) or a document, not
    sound (no transcription server), so the download stops at the larger of those caps."""
    llm = ScriptedLLM()
    caps = {"max_document_bytes": 100_000, "max_image_bytes": 1_000_000}
    world = await _world(tmp_path, audio, llm, media={**caps, "max_audio_bytes": 5_000_000})
    photo = noisy_png(300)
    assert 100_000 < len(photo) < 1_000_000
    try:
        await world.send("what is this?", ("IMG_0042", photo, {"mime": ""}))
        served = world.adapter.bytes_served
        await world.send("", ("rec", silence_wav(300), {"mime": "application/octet-stream"}))
    finally:
        await world.daemon.stop()
    first, second = world.adapter.texts()
    assert first == "echo: [picture: what is this?]"
    assert len(llm.calls[0].messages[-1].pictures) == 1
    assert second == (
        "“rec” is larger than the 1 MB I accept for that kind of file, so I did not open it."
    )
    assert world.adapter.bytes_served - served <= 1_000_000 + 65536


async def test_a_download_that_never_ends_is_given_up(tmp_path: Path, audio: FakeAudio) -> None:
    make_persona(tmp_path, SCOTT)
    config = _config(tmp_path, audio, media={"timeout": 0.3})
    daemon, adapter = await start_daemon(
        config, tmp_path, llm=ScriptedLLM(), adapter_class=SlowAdapter
    )
    world = World(daemon, adapter, tmp_path, audio)
    try:
        await world.send("", ("a.png", picture(), {"mime": "image/png"}))
        await world.send("hello")
    finally:
        await daemon.stop()
    assert adapter.texts() == [
        "I couldn't fetch your attachment from the chat server; please send it again.",
        "echo: hello",
    ]


async def test_a_pdf_that_takes_too_long_to_read_is_given_up(
    tmp_path: Path, audio: FakeAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, media={"timeout": 0.3})
    try:
        await world.send("", ("slow.pdf", crowded_pdf(60_000), {"mime": "application/pdf"}))
        await world.send("hello")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [
        "“slow.pdf” took too long to read, so I gave up on it; please send the part you mean"
        " as text.",
        "echo: hello",
    ]
    assert len(llm.calls) == 1


async def test_pdfs_that_never_finish_hold_only_the_pdf_threads(
    tmp_path: Path, audio: FakeAudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven PDFs that pypdf never finishes, each given up by its turn: they hold the two
    threads PDFs have, the ones still queued are never read, and the threads the rest of the
    daemon uses (embedding a question, resolving a host name) stay free."""
    release = threading.Event()
    started: list[str] = []

    def stuck(data: bytes, *, name: str, chars: int, max_pages: int) -> Any:
        started.append(name)
        release.wait(30)
        raise ValueError("not a PDF")

    monkeypatch.setattr(prepare, "read_pdf", stuck)
    # the threads are the process's: a file an earlier turn gave up on may still hold one
    async with asyncio.timeout(60):
        while PDF_POOL.busy:  # noqa: ASYNC110 (a count kept by threads, nothing to wait on)
            await asyncio.sleep(0.05)
    world = await _world(tmp_path, audio, ScriptedLLM(), media={"timeout": 0.2})
    try:
        for n in range(7):
            await world.send("", (f"stuck{n}.pdf", pdf("x"), {"mime": "application/pdf"}))
        assert len(started) == PDF_THREADS  # the rest waited, and their turns gave up
        # the loop's own threads are all free: more of them than the PDFs held
        free = [asyncio.to_thread(threading.get_ident) for _ in range(8)]
        assert len(await asyncio.wait_for(asyncio.gather(*free), 30)) == 8
        await world.send("hello")
        release.set()
        await asyncio.sleep(0.2)
        assert len(started) == PDF_THREADS  # what was queued for no one is never read
    finally:
        release.set()
        await world.daemon.stop()
    texts = world.adapter.texts()
    # the two read are slow; the five never reached are said to be so, not to be slow
    assert texts[:2] == [
        f"“stuck{n}.pdf” took too long to read, so I gave up on it; please send the part you"
        " mean as text."
        for n in range(2)
    ]
    assert texts[2:7] == [
        f"I was still reading other PDFs and never got to “stuck{n}.pdf”; please send it again"
        " in a minute."
        for n in range(2, 7)
    ]
    assert texts[7:] == ["echo: hello"]


async def test_an_unknown_senders_media_is_never_downloaded(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _world(tmp_path, audio, ScriptedLLM())
    try:
        await world.send("hi", ("a.png", picture(), {"mime": "image/png"}), sender="mallory")
    finally:
        await world.daemon.stop()
    assert world.adapter.bytes_served == 0 and world.adapter.texts() == []


def test_the_inbox_keeps_an_attachment_as_its_handle() -> None:
    attachment = Attachment(
        "file-id-1", name="v.ogg", mime="audio/ogg", size=10, voice=True, duration=2.5
    )
    incoming = Incoming(
        "telegram", "1", "1", "", "9", kind="attachment", attachments=(attachment,), album="g"
    )
    assert from_json(to_json(incoming)) == incoming


# -- spoken answers ---------------------------------------------------------------------------


async def test_voice_on_speaks_each_answer_after_the_text_once(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _world(tmp_path, audio, ScriptedLLM(), models=SPEAK)
    world.adapter.supports_voice = True
    try:
        await world.send("/voice")
        await world.send("/voice on")
        await world.send("**hello** there")
        await world.send("/voice off")
        await world.send("quiet now")
    finally:
        await world.daemon.stop()
    texts = world.adapter.texts()
    assert texts[0].startswith("Answers in this room are written only")
    assert texts[2] == "echo: **hello** there" and texts[4] == "echo: quiet now"
    [(room, speech)] = world.adapter.voices
    assert room == "room1" and speech.audio == audio.speech_audio and speech.mime == "audio/ogg"
    assert [body["input"] for body in audio.spoken] == ["echo: hello there"]


async def test_voice_is_kept_per_room_across_a_restart(tmp_path: Path, audio: FakeAudio) -> None:
    world = await _world(tmp_path, audio, ScriptedLLM(), models=SPEAK)
    world.adapter.supports_voice = True
    await world.send("/voice on")
    await world.daemon.stop()
    again, adapter = await start_daemon(
        _config(tmp_path, audio, models=SPEAK), tmp_path, llm=ScriptedLLM()
    )
    adapter.supports_voice = True
    try:
        await World(again, adapter, tmp_path, audio).send("hello")
    finally:
        await again.stop()
    assert len(adapter.voices) == 1


async def _speaking(tmp: Path, audio: FakeAudio) -> World:
    """A world whose answers are spoken by default, on a platform with voice messages, its
    outbox retrying at once."""
    world = await _world(tmp, audio, ScriptedLLM(), models=SPEAK, media={"voice_replies": True})
    world.adapter.supports_voice = True
    world.daemon.outbox.base_delay = world.daemon.outbox.max_delay = 0.05
    return world


async def test_a_spoken_answer_the_speech_server_missed_comes_later_once(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _speaking(tmp_path, audio)
    audio.fail = 503
    try:
        await world.send("hello")
        assert world.adapter.texts() == ["echo: hello"] and world.adapter.voices == []
        audio.fail = 0
        for _ in range(100):
            if world.adapter.voices:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == ["echo: hello"]
    assert len(world.adapter.voices) == 1


async def test_a_spoken_copy_is_not_said_once_its_direct_room_became_a_group(
    tmp_path: Path, audio: FakeAudio
) -> None:
    """The written answer arrived while the room was direct; its voice message waited, and
    a third person spoke there meanwhile: the private answer is not read out to the group."""
    world = await _speaking(tmp_path, audio)
    outbox = world.daemon.outbox
    outbox.base_delay = outbox.max_delay = 3600.0  # no retry by itself
    audio.fail = 503
    try:
        await world.send("hello")
        assert world.adapter.texts() == ["echo: hello"] and len(outbox.voices) == 1
        audio.fail = 0
        await world.adapter.context.handler(
            Incoming("console", "cousin", "room1", "hi all", "c1", is_direct=False, addressed=False)
        )
        await outbox.run_due(now=time.time() + 7200)
    finally:
        await world.daemon.stop()
    assert world.adapter.voices == [] and outbox.voices == []


async def test_a_speech_server_that_stays_down_never_holds_up_the_next_answers(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _speaking(tmp_path, audio)
    outbox = world.daemon.outbox
    audio.fail = 503
    try:
        for text in ("one", "two", "three"):
            await world.send(text)
        assert world.adapter.texts() == ["echo: one", "echo: two", "echo: three"]
        assert not outbox.parcels, "a missing voice message holds no answer back"
        for _ in range(100):
            if not outbox.voices:
                break
            await asyncio.sleep(0.05)
        assert outbox.voices == []
        asked = audio.speech_asked
        await world.send("four")
        await asyncio.sleep(0.3)
        assert world.daemon.health.line("console").startswith("- console: ok,")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts()[-1] == "echo: four" and world.adapter.voices == []
    assert asked == 3 * SPOKEN_TRIES, "each spoken copy is tried a bounded number of times"
    assert audio.speech_asked == asked + SPOKEN_TRIES


async def test_a_voice_message_the_platform_refuses_drops_only_the_spoken_copy(
    tmp_path: Path, audio: FakeAudio
) -> None:
    world = await _speaking(tmp_path, audio)

    async def refuse(room: str, speech: Any, *, key: str | None = None) -> str:
        raise PermanentSendError("voice messages are forbidden in this chat")

    world.adapter.post_audio = refuse  # type: ignore[method-assign]
    try:
        await world.send("one")
        await world.send("two")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == ["echo: one", "echo: two"]
    assert audio.speech_asked == 2, "a refusal for good is not retried"
    assert world.daemon.outbox.voices == [] and world.daemon.outbox.refusals() == []


def test_a_long_answer_is_spoken_up_to_a_sentence_end() -> None:
    sentence = "This is one **sentence** of a long answer. "
    spoken = spoken_text(sentence * 200)
    assert len(spoken) <= SPOKEN_CHARS and spoken.endswith("long answer.")
    assert "**" not in spoken
    assert spoken_text("short *and* sweet") == "short and sweet"
    assert len(spoken_text("word " * 2000)) <= SPOKEN_CHARS


async def test_voice_where_the_platform_has_none_says_so(tmp_path: Path, audio: FakeAudio) -> None:
    world = await _world(tmp_path, audio, ScriptedLLM(), models=SPEAK)
    try:
        await world.send("/voice on")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [
        "I can't send voice messages on console, so answers stay written."
    ]


# -- Off The Record ---------------------------------------------------------------------------


async def test_off_the_record_media_leaves_no_byte_anywhere(
    tmp_path: Path, audio: FakeAudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)
    data = tmp_path / "data"
    audio.transcript = "the persimmonwalrus code is in the drawer"
    llm = ScriptedLLM()
    world = await _world(data, audio, llm, models=TRANSCRIBE)
    photo = picture(900, 700, "PNG")
    document = pdf(["marzipanocelot is the name of the boat"])
    notes = b"quinceaardvark lives at number 9\n"
    try:
        await world.send("/otr on")
        await world.send("zanzibarquokka", ("p.png", photo, {"mime": "image/png"}))
        await world.send("", ("v.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True}))
        await world.send("", ("boat.pdf", document, {"mime": "application/pdf"}))
        await world.send("", ("notes.txt", notes, {"mime": "text/plain"}))
    finally:
        await world.daemon.stop()
    assert len(llm.calls) == 4 and llm.calls[0].messages[-1].pictures
    assert "persimmonwalrus" in llm.calls[1].messages[-1].text
    shown = llm.calls[0].messages[-1].pictures[0].data  # the picture as the model got it
    needles = [
        b"zanzibarquokka",
        b"persimmonwalrus",
        b"marzipanocelot",
        b"quinceaardvark",
        middle(photo),
        middle(shown),
        middle(VOICE_OGG),
        middle(document),
        base64_needle(photo),
        base64_needle(shown),
    ]
    assert all(len(set(needle)) >= 12 for needle in needles[4:])  # no run of zeros
    files = [p for root in (data, scratch) for p in root.rglob("*") if p.is_file()]
    assert files, "the daemon wrote its state"
    assert not files_holding([data, scratch], needles)
    assert not any(scratch.iterdir())


async def test_a_secret_said_in_a_voice_note_is_withheld_like_a_typed_one(
    tmp_path: Path, audio: FakeAudio
) -> None:
    audio.transcript = "the alarm code is 4 7 1 9 and the wifi password is Corvid-Lantern-88"
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    try:
        await world.send("", ("v.ogg", VOICE_OGG, {"mime": "audio/ogg", "voice": True}))
    finally:
        await world.daemon.stop()
    assert "Corvid-Lantern-88" in llm.calls[-1].messages[-1].text  # the model heard it once
    log = world.log_text()
    assert "[voice note 0:03, transcribed]" in log and "[secret withheld" in log
    assert "Corvid-Lantern-88" not in log and "4 7 1 9" not in log


def test_check_config_names_a_media_servers_missing_key() -> None:
    from bot.llm.factory import backend_problems
    from bot.setup.config_llm import LLMConfig

    config = LLMConfig.model_validate(
        {
            "backends": {
                "anthropic": {"kind": "anthropic", "model": "claude", "api_key_env": "AK"},
                "whisper": {
                    "kind": "openai_compat",
                    "model": "whisper-1",
                    "base_url": "https://audio.example.org/v1",
                    "api_key_env": "AUDIO_KEY",
                },
            },
            "roles": {"chat": {"backend": "anthropic"}, "transcribe": {"backend": "whisper"}},
        }
    )
    assert backend_problems(config, {"AK": "x"}) == [
        "AUDIO_KEY is not set: export the key for llm.backends.whisper, or remove"
        " llm.backends.whisper.api_key_env if the server needs none."
    ]
    assert backend_problems(config, {"AK": "x", "AUDIO_KEY": "y"}) == []


async def test_status_says_what_this_room_does_with_media(tmp_path: Path, audio: FakeAudio) -> None:
    world = await _world(
        tmp_path, audio, ScriptedLLM(), models={"roles": {**TRANSCRIBE["roles"], **SPEAK["roles"]}}
    )
    world.adapter.supports_voice = True
    try:
        await world.send("/status")
        await world.send("/voice on")
        await world.send("/status")
    finally:
        await world.daemon.stop()
    first, _, second = world.adapter.texts()
    assert "- Media: pictures seen; voice notes transcribed; spoken answers off" in first
    assert "- Media: pictures seen; voice notes transcribed; spoken answers on" in second
