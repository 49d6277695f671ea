"""Hostile and broken media through the whole daemon: media servers that misbehave at the
wire, files that lie about what they are, a command in a caption, Off The Record with every
media path at once, and what is left behind after large attachments.

Each case keeps the daemon's promises: one clear sentence for what cannot be used, nothing
said lost, each event answered once, nothing of an Off The Record turn on disk or in a log
line, secrets out of the session log, and the daemon answering the next message."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import wave
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject

from adapters.base import Attachment, Incoming
from bot.daemon.logs import configure_logging
from bot.llm.base import Picture
from bot.media.kinds import SUPPORTED
from tests.fakes.audio_api import FakeAudio
from tests.harness import ScriptedLLM
from tests.media_files import VOICE_OGG, bomb_png, files_holding, middle, pdf, picture
from tests.test_media_turns import SCOTT, SPEAK, TRANSCRIBE, World, _world, noisy_png

#: a wire answer of a media server: what a handler returns for the request
Answer = Callable[[web.Request], Awaitable[web.StreamResponse]]

BOTH = {"roles": {**TRANSCRIBE["roles"], **SPEAK["roles"]}}


class WireAudio(FakeAudio):
    """The loopback audio server, whose next answers a test may script at the wire: a web
    page instead of JSON, a body sent in pieces, a connection cut mid-body."""

    def __init__(self) -> None:
        super().__init__()
        self.transcription_answers: list[Answer] = []
        self.speech_answers: list[Answer] = []

    async def _transcriptions(self, request: web.Request) -> web.StreamResponse:
        if not self.transcription_answers:
            return await super()._transcriptions(request)
        self.transcription_asked += 1
        await request.read()
        return await self.transcription_answers.pop(0)(request)

    async def _speech(self, request: web.Request) -> web.StreamResponse:
        if not self.speech_answers:
            return await super()._speech(request)
        self.speech_asked += 1
        await request.read()
        return await self.speech_answers.pop(0)(request)


@pytest.fixture
async def audio() -> AsyncIterator[WireAudio]:
    async with WireAudio() as fake:
        yield fake


def in_pieces(body: bytes, content_type: str, piece: int = 16_384) -> Answer:
    """The whole ``body``, written a piece at a time (as a server behind a proxy sends a
    large answer: the client reads it in several reads)."""

    async def answer(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": content_type})
        response.content_length = len(body)
        await response.prepare(request)
        for start in range(0, len(body), piece):
            await response.write(body[start : start + piece])
            await asyncio.sleep(0)
        await response.write_eof()
        return response

    return answer


def cut_off(body: bytes, content_type: str) -> Answer:
    """Half of ``body``, then the connection closed: a server that died mid-answer."""

    async def answer(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": content_type})
        response.content_length = len(body)
        await response.prepare(request)
        await response.write(body[: len(body) // 2])
        assert request.transport is not None
        request.transport.close()
        return response

    return answer


def page(html: str) -> Answer:
    """A web page with status 200: a proxy's or a web front end's, not the API's answer."""

    async def answer(request: web.Request) -> web.StreamResponse:
        return web.Response(text=html, content_type="text/html")

    return answer


def voice_note() -> tuple[str, bytes, dict[str, Any]]:
    return ("Voice message", VOICE_OGG, {"mime": "audio/ogg", "voice": True, "duration": 3.0})


async def _speaking(tmp: Path, audio: FakeAudio, **extra: Any) -> World:
    """A world whose answers are spoken too, on a platform with voice messages, its outbox
    retrying at once."""
    world = await _world(
        tmp, audio, ScriptedLLM(), models=BOTH, media={"voice_replies": True, **extra}
    )
    world.adapter.supports_voice = True
    world.daemon.outbox.base_delay = world.daemon.outbox.max_delay = 0.05
    return world


async def _until(done: Callable[[], bool]) -> None:
    for _ in range(200):
        if done():
            return
        await asyncio.sleep(0.02)


# -- the audio servers at the wire ------------------------------------------------------------


async def test_a_long_spoken_answer_arrives_whole(tmp_path: Path, audio: WireAudio) -> None:
    """A spoken answer of minutes is megabytes of Ogg Opus, which reach the daemon in many
    reads: the voice message holds all of them, not the first read's."""
    long_answer = VOICE_OGG * 300  # a chained Ogg Opus stream of 2.3 MB
    audio.speech_answers.append(in_pieces(long_answer, "audio/ogg"))
    world = await _speaking(tmp_path, audio)
    try:
        await world.send("tell me the whole story")
    finally:
        await world.daemon.stop()
    [(_room, speech)] = world.adapter.voices
    assert len(speech.audio) == len(long_answer) and speech.audio == long_answer


async def test_a_speech_answer_cut_off_mid_body_is_made_again_never_sent_cut(
    tmp_path: Path, audio: WireAudio
) -> None:
    audio.speech_answers.append(cut_off(VOICE_OGG * 20, "audio/ogg"))
    world = await _speaking(tmp_path, audio)
    try:
        await world.send("hello")
        await _until(lambda: bool(world.adapter.voices))
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == ["echo: hello"]
    [(_room, speech)] = world.adapter.voices
    assert speech.audio == audio.speech_audio  # the second answer, whole
    assert audio.speech_asked == 2


def _whisper_verbose(words: str, minutes: int) -> bytes:
    """A verbose answer as whisper.cpp's server gives it for ``minutes`` of speech: the
    words, the duration, and a segment every three seconds with its tokens."""
    tokens = [
        {
            "text": " word",
            "timestamps": {"from": "00:00:00,000", "to": "00:00:00,320"},
            "offsets": {"from": n * 300, "to": n * 300 + 320},
            "id": 400 + n,
            "p": 0.98,
            "t_dtw": -1,
        }
        for n in range(10)
    ]
    segments = [
        {"id": n, "start": n * 3.0, "end": n * 3.0 + 3.0, "text": " some words", "tokens": tokens}
        for n in range(minutes * 20)
    ]
    answer = {"task": "transcribe", "duration": minutes * 60.0, "text": words}
    return json.dumps({**answer, "segments": segments}).encode()


async def test_a_long_recordings_verbose_transcript_is_read_whole(
    tmp_path: Path, audio: WireAudio
) -> None:
    """Nothing says how long a WebM recording is: the server is asked for its length with the
    words, and its answer (segments, tokens) for nine minutes is far more than one read."""
    words = "let me tell you about the garden and the roses we planted"
    body = _whisper_verbose(words, minutes=9)
    assert len(body) > 200_000
    audio.transcription_answers.append(in_pieces(body, "application/json"))
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    webm = b"\x1a\x45\xdf\xa3" + bytes(range(1, 200)) * 20
    try:
        await world.send("", ("rec.webm", webm, {"mime": "audio/webm", "voice": True}))
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    assert call.messages[-1].text.endswith(f"[voice note 9:00, transcribed] {words}")


async def test_a_transcript_of_megabytes_is_cut_with_a_visible_marker(
    tmp_path: Path, audio: WireAudio
) -> None:
    """A server caught in a loop (whisper repeating a phrase) answers megabytes for a short
    note: the turn keeps what was said first, up to ``media.document_chars``, and says where
    it was cut, as for a long document; the session log and the model get no more."""
    said = "the plumber comes on Tuesday at nine."
    looping = said + " thank you." * 300_000
    body = json.dumps({"text": looping}).encode()
    audio.transcription_answers.append(in_pieces(body, "application/json"))
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE, media={"document_chars": 2000})
    try:
        await world.send("", voice_note())
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    text = call.messages[-1].text
    assert f"[voice note 0:03, transcribed] {said}" in text
    assert len(text) < 3000
    assert "more characters not shown" in text and "transcript cut here" in text
    assert len(world.log_text()) < 10_000
    [answer] = world.adapter.texts()
    assert answer.startswith("echo: ")


def _json(body: object, status: int = 200) -> Answer:
    async def answer(request: web.Request) -> web.StreamResponse:
        return web.json_response(body, status=status)

    return answer


def _slow(seconds: float) -> Answer:
    async def answer(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(seconds)
        return web.json_response({"text": "too late"})

    return answer


#: a server that dies mid-answer: what came is not the words
_CUT_OFF = cut_off(
    json.dumps({"text": "remind me to buy flour " * 2000}).encode(), "application/json"
)


@pytest.mark.parametrize(
    ("answer", "said", "heard"),
    [
        (_json({"text": "   "}), "I couldn't make out any words in that recording.", None),
        (
            _json({"error": {"message": "model not loaded"}}),
            "couldn't hear your voice note",
            "model not loaded",
        ),
        # a wrong ``base_url`` reaches a web front end that answers every path with its
        # page: that page is not what the user said
        (
            page("<html><h1>500 Internal Server Error</h1></html>"),
            "couldn't hear your voice",
            "Internal Server Error",
        ),
        (_json({"error": "overloaded"}, status=500), "couldn't hear your voice note", "overloaded"),
        (_slow(5.0), "couldn't hear your voice note", "too late"),
        (_CUT_OFF, "couldn't hear your voice note", "flour"),
    ],
    ids=["no words", "no text field", "html", "500", "slow", "cut off"],
)
async def test_what_a_transcription_server_gets_wrong_is_one_sentence(
    tmp_path: Path, audio: WireAudio, answer: Answer, said: str, heard: str | None
) -> None:
    audio.transcription_answers.append(answer)
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    try:
        event = await world.send("", voice_note())
        await world.send("still there?")
        ref = Attachment("again", name="Voice message", mime="audio/ogg", voice=True)
        again = Incoming(
            "console", SCOTT, "room1", "", event, kind="attachment", attachments=(ref,)
        )
        await world.adapter.context.handler(again)  # handed over again: answered once
    finally:
        await world.daemon.stop()
    first, second = world.adapter.texts()
    assert said in first and second == "echo: still there?"
    assert len(llm.calls) == 1 and audio.transcription_asked == 1
    if heard is not None:
        assert heard not in world.log_text()


# -- files that lie or hold nothing -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "mime", "said"),
    [
        (
            "photo.jpg",
            b"",
            "image/jpeg",
            "“photo.jpg” is empty, so there is nothing in it to read.",
        ),
        ("notes.txt", b" \r\n\t", "text/plain", "“notes.txt” has no text in it to read."),
    ],
    ids=["zero bytes", "only blanks"],
)
async def test_an_empty_file_is_one_clear_sentence(
    tmp_path: Path, audio: WireAudio, name: str, data: bytes, mime: str, said: str
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        await world.send("", (name, data, {"mime": mime}))
        await world.send("still there?")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [said, "echo: still there?"]
    assert len(llm.calls) == 1


async def test_a_csv_saved_in_windows_latin_is_read(tmp_path: Path, audio: WireAudio) -> None:
    """Excel on Windows saves CSV in Windows-1252: accents and the euro sign are single
    bytes that are not UTF-8. The file is text all the same and is read as it was written."""
    table = "Data;Descrição;Valor\n03/05;Café São João;€ 12,50\n04/05;Padaria “Pão”;€ 3,20\n"
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        await world.send("quanto gastei?", ("contas.csv", table.encode("cp1252"), {"mime": ""}))
    finally:
        await world.daemon.stop()
    [call] = llm.calls
    assert call.messages[-1].text.endswith(f"[document contas.csv]\n{table.strip()}")


@pytest.mark.parametrize(
    ("name", "data", "mime", "said"),
    [
        # a binary file sent as text: no text, no picture
        ("data.txt", bytes(range(256)) * 40, "text/plain", f"{SUPPORTED}; “data.txt”"),
        # a ZIP named and declared as a PDF
        ("report.pdf", b"PK\x03\x04" + b"\x14\x00" * 300, "application/pdf", "“report.pdf” is"),
        # pictures cut short, and one whose header claims 900 megapixels
        ("half.jpg", picture(800, 600, "JPEG")[:3000], "image/jpeg", "could not be opened"),
        ("half.webp", picture(800, 600, "WEBP")[:400], "image/webp", "could not be opened"),
        ("bomb.png", bomb_png(), "image/png", "more than I open"),
        ("wide.gif", b"GIF89a\xff\xff\xff\xff" + picture(64, 64, "GIF")[10:], "", "more than I"),
        ("a.pdf", b"%PDF-1.7\n1 0 obj << /Length 99999 >> stream\nBT", "", "could not be read"),
    ],
    ids=["binary", "zip as pdf", "cut jpeg", "cut webp", "png bomb", "gif bomb", "broken pdf"],
)
async def test_a_file_that_lies_is_one_sentence_and_the_daemon_goes_on(
    tmp_path: Path, audio: WireAudio, name: str, data: bytes, mime: str, said: str
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        event = await world.send("", (name, data, {"mime": mime}))
        await world.send("still there?")
        ref = Attachment("again", name=name, mime=mime)  # the platform hands it over again
        again = Incoming(
            "console", SCOTT, "room1", "", event, kind="attachment", attachments=(ref,)
        )
        await world.adapter.context.handler(again)
    finally:
        await world.daemon.stop()
    first, second = world.adapter.texts()
    assert said in first and second == "echo: still there?"
    assert len(llm.calls) == 1


def _certificate_locked_pdf() -> bytes:
    """A PDF encrypted for the holders of a certificate (``/Adobe.PubSec``), as some
    employers and banks send them: no password opens it."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(["payslip for March"]))))
    writer.encrypt("", "owner", algorithm="AES-256")
    writer._encrypt_entry[NameObject("/Filter")] = NameObject("/Adobe.PubSec")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


async def test_a_pdf_locked_in_a_way_pypdf_cannot_open_is_one_clear_sentence(
    tmp_path: Path, audio: WireAudio
) -> None:
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        document = _certificate_locked_pdf()
        await world.send("", ("payslip.pdf", document, {"mime": "application/pdf"}))
        await world.send("still there?")
    finally:
        await world.daemon.stop()
    assert world.adapter.texts() == [
        "“payslip.pdf” is locked in a way I can't open, so I can't read it.",
        "echo: still there?",
    ]


async def test_a_long_pdf_and_a_lying_wav_stay_within_their_caps(
    tmp_path: Path, audio: WireAudio
) -> None:
    """A PDF of 400 pages is read to ``max_pdf_pages`` with a visible marker; a WAV whose
    header says its data runs to 4 GB is as long as the bytes that came, and is heard."""
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(8000)
        sound.writeframes(b"\x80" * 16000)
    lying = bytearray(out.getvalue())
    data_at = lying.find(b"data")
    lying[data_at + 4 : data_at + 8] = b"\xff\xff\xff\xff"  # as a streaming recorder writes
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE, media={"max_pdf_pages": 3})
    try:
        book = pdf([f"Page {n} of the manual." for n in range(1, 401)])
        await world.send("", ("manual.pdf", book, {"mime": "application/pdf"}))
        await world.send("", ("memo.wav", bytes(lying), {"mime": "audio/wav"}))
    finally:
        await world.daemon.stop()
    first, second = (call.messages[-1].text for call in llm.calls)
    assert "[document manual.pdf, 400 pages]" in first and "Page 3 of the manual" in first
    assert first.endswith("[… manual.pdf cut here: pages 4-400 not read]")
    assert f"[audio memo.wav 0:02, transcribed] {audio.transcript}" in second


async def test_secrets_in_documents_and_an_echoed_transcript_stay_off_the_disk(
    tmp_path: Path, audio: WireAudio
) -> None:
    """A password in a text file, in a PDF, and read out in a voice note whose transcript is
    echoed in an answer the platform first refuses: the model hears them, no file of the
    data folder (session log, memory, the outbox's database) holds them."""
    audio.transcript = "the wifi password is Corvid-Lantern-88"
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE, media={"echo_transcript": True})
    world.daemon.outbox.base_delay = world.daemon.outbox.max_delay = 0.05
    note = b"the alarm password is Heron-Mitten-42\n"
    safe = pdf(["the safe password is Otter-Pylon-77"])
    try:
        await world.send("", ("n.txt", note, {"mime": "text/plain"}))
        await world.send("", ("safe.pdf", safe, {"mime": "application/pdf"}))
        world.adapter.down = True
        await world.send("", voice_note())
        held_while_queued = files_holding([tmp_path], [b"Corvid-Lantern-88"])
        world.adapter.down = False
        await _until(lambda: len(world.adapter.texts()) == 3)
    finally:
        await world.daemon.stop()
    heard = "\n".join(call.messages[-1].text for call in llm.calls)
    secrets = [b"Heron-Mitten-42", b"Otter-Pylon-77", b"Corvid-Lantern-88"]
    assert all(secret.decode() in heard for secret in secrets)
    assert held_while_queued == set()
    assert not files_holding([tmp_path], secrets)
    assert world.log_text().count("[secret withheld") >= 3


# -- a command in a caption -------------------------------------------------------------------


async def test_a_command_as_a_caption_says_its_files_were_not_read(
    tmp_path: Path, audio: WireAudio
) -> None:
    """A picture sent with ``/otr on`` as its caption: the command runs (nothing of the
    picture is logged or sent anywhere), and the answer says the picture was not looked at,
    so it is not silently lost."""
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    try:
        await world.send("/otr on", ("zanzibar.png", picture(), {"mime": "image/png"}))
    finally:
        await world.daemon.stop()
    [answer] = world.adapter.texts()
    assert answer.startswith("Off The Record is on in this room")
    assert answer.endswith(
        "I did not open the file you sent with the command; send it again on its own if you"
        " meant me to read it."
    )
    assert world.adapter.bytes_served == 0 and llm.calls == []
    assert "zanzibar" not in world.log_text()


# -- Off The Record with every media path -----------------------------------------------------


async def test_off_the_record_media_failures_and_spoken_answers_leave_nothing(
    tmp_path: Path, audio: WireAudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In an Off The Record room with spoken answers and the transcript echoed: a picture,
    a voice note the server fails and then hears, files that cannot be read, an answer the
    platform first refuses and a spoken copy the speech server first misses. No file of the
    data folder or the temporary folder, and no log line, holds a caption, a transcript, a
    file's name or words, or the answer."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)
    logs = io.StringIO()
    configure_logging(fmt="json", level="debug", stream=logs)
    data = tmp_path / "data"
    audio.transcript = "the persimmonwalrus code is in the drawer"
    world = await _speaking(data, audio, echo_transcript=True)
    try:
        await world.send("/otr on")
        await world.send("zanzibarquokka", ("kumquatfile.png", picture(), {"mime": "image/png"}))
        audio.fail = 500
        await world.send("", voice_note())
        audio.fail = 0
        await world.send("", voice_note())
        junk = b"PK\x03\x04" + b"\x01" * 100
        await world.send("", ("tamarindbadger.docx", junk, {"mime": "text/plain"}))
        await world.send("", ("lycheeheron.pdf", b"%PDF-1.4 broken", {"mime": "application/pdf"}))
        world.adapter.down = True
        audio.speech_answers.append(page("<html>busy</html>"))
        await world.send(
            "", ("n.txt", b"quinceaardvark lives at number 9\n", {"mime": "text/plain"})
        )
        world.adapter.down = False
        await _until(lambda: any("quinceaardvark" in text for text in world.adapter.texts()))
        await _until(lambda: not world.daemon.outbox.voices)
    finally:
        await world.daemon.stop()
    texts = world.adapter.texts()
    assert any("persimmonwalrus" in text for text in texts)
    assert any("quinceaardvark" in text for text in texts)
    needles = [
        b"zanzibarquokka",
        b"kumquatfile",
        b"persimmonwalrus",
        b"tamarindbadger",
        b"lycheeheron",
        b"quinceaardvark",
        middle(VOICE_OGG),
    ]
    assert not files_holding([data, scratch], needles)
    assert not any(scratch.iterdir())
    logged = logs.getvalue()
    assert "media.server_failed" in logged  # the failures were logged, without their words
    assert not [needle for needle in needles[:6] if needle.decode() in logged]


# -- redelivery and memory --------------------------------------------------------------------


async def test_a_voice_note_delivered_twice_at_once_is_heard_and_answered_once(
    tmp_path: Path, audio: WireAudio
) -> None:
    audio.delay = 0.2
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm, models=TRANSCRIBE)
    world.adapter.files["note"] = VOICE_OGG
    note = Attachment("note", name="Voice message", mime="audio/ogg", voice=True)
    incoming = Incoming(
        "console", SCOTT, "room1", "", "dup-1", kind="attachment", attachments=(note,)
    )
    try:
        handle = world.adapter.context.handler
        await asyncio.gather(handle(incoming), handle(incoming))
        await handle(incoming)
    finally:
        await world.daemon.stop()
    assert audio.transcription_asked == 1 and len(llm.calls) == 1
    assert len(world.adapter.texts()) == 1
    log = world.log_text()
    assert log.count("· user · scott") == 1 and log.count("[voice note 0:03, transcribed]") == 2


def _a_picture(thing: object) -> bool:
    """Whether ``thing`` is a picture of a message: one made for the model, or a decoded
    image larger than Pillow's own small palettes."""
    if isinstance(thing, Image.Image):
        return thing.width * thing.height > 4096
    return isinstance(thing, Picture)


async def test_large_albums_in_several_rooms_leave_no_picture_behind(
    tmp_path: Path, audio: WireAudio
) -> None:
    """Ten large photos in one album, and the same in another room: once answered, no
    picture of them is held anywhere in the process (the pictures other tests keep alive,
    held before it began, are not its own)."""
    gc.collect()
    # held for the whole test, so no id of theirs is freed and given to a picture of its own
    kept_earlier = [thing for thing in gc.get_objects() if _a_picture(thing)]
    earlier = {id(thing) for thing in kept_earlier}
    llm = ScriptedLLM()
    world = await _world(tmp_path, audio, llm)
    photos = [noisy_png(700)] * 10  # each fetched and scaled on its own

    async def album(room: str) -> None:
        sends = []
        for n, photo in enumerate(photos):
            ref = f"{room}-{n}"
            world.adapter.files[ref] = photo
            attachment = Attachment(ref, name=f"{n}.png", mime="image/png", size=len(photo))
            incoming = Incoming(
                "console",
                SCOTT,
                room,
                "our trip" if n == 0 else "",
                f"{room}-e{n}",
                kind="attachment",
                attachments=(attachment,),
                album=f"album-{room}",
            )
            sends.append(world.adapter.context.handler(incoming))
        await asyncio.gather(*sends)

    try:
        await asyncio.gather(album("room1"), album("room2"))
        assert [len(call.messages[-1].pictures) for call in llm.calls] == [10, 10]
        llm.calls.clear()
        world.adapter.files.clear()
        gc.collect()
        held = [
            thing for thing in gc.get_objects() if _a_picture(thing) and id(thing) not in earlier
        ]
    finally:
        await world.daemon.stop()
    assert held == []
    assert world.adapter.texts() == ["echo: [10 pictures: our trip]"] * 2
