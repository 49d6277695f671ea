"""Reading media: kinds from bytes, pictures scaled and bombs refused, documents within their
budget, recordings' lengths, and the audio servers at the wire."""

from __future__ import annotations

import io
import tomllib

import pytest
from PIL import ExifTags, Image
from pypdf import PdfReader, PdfWriter

from bot.daemon.errors import ConfigError, MediaError
from bot.media.audio import duration_of, spoken_length
from bot.media.documents import read_pdf, read_text
from bot.media.images import MAX_ENCODED, prepare_image
from bot.media.kinds import sniff
from bot.media.servers import Speaker, Transcriber, Transcript
from bot.setup.config_llm import BackendConfig
from tests.daemon_process import REPO
from tests.fakes.audio_api import FakeAudio
from tests.media_files import (
    HELLO_WAV,
    VOICE_OGG,
    WEBM_SOUND,
    bomb_png,
    damaged_pdf,
    pdf,
    picture,
)


@pytest.mark.parametrize(
    ("data", "name", "declared", "kind", "mime"),
    [
        (picture(fmt="PNG"), "x.pdf", "application/pdf", "image", "image/png"),
        (picture(fmt="JPEG"), "", "", "image", "image/jpeg"),
        (picture(fmt="GIF"), "", "", "image", "image/gif"),
        (picture(fmt="WEBP"), "", "", "image", "image/webp"),
        (VOICE_OGG, "photo.jpg", "image/jpeg", "audio", "audio/ogg"),
        (HELLO_WAV, "", "", "audio", "audio/wav"),
        (b"ID3\x04\x00" + b"\x00" * 40, "", "", "audio", "audio/mpeg"),
        (b"\x00\x00\x00\x20ftypM4A " + b"\x00" * 40, "", "", "audio", "audio/mp4"),
        (b"\x00\x00\x00\x20ftypisom" + b"\x00" * 40, "", "video/mp4", "unsupported", "video/mp4"),
        (b"\x00\x00\x00\x20ftypisom" + b"\x00" * 40, "", "audio/mp4", "audio", "audio/mp4"),
        (b"\x1a\x45\xdf\xa3" + b"\x00" * 40, "", "audio/webm", "audio", "audio/webm"),
        (b"\x1a\x45\xdf\xa3" + b"\x00" * 40, "", "", "unsupported", "video/webm"),
        (pdf(["hello"]), "notes.txt", "text/plain", "pdf", "application/pdf"),
        (b"milk, eggs\n", "list.csv", "", "text", "text/csv"),
        ("# Notas\nção".encode(), "notas.md", "", "text", "text/markdown"),
        (b"plain words", "", "application/octet-stream", "text", "text/plain"),
        (b"PK\x03\x04" + b"\x00\x01" * 50, "report.docx", "text/plain", "unsupported", ""),
        (b"MZ\x90\x00\x03", "setup.exe", "image/png", "unsupported", ""),
        # an MP3 without an ID3 tag: MPEG-1 layer III, 128 kbit/s, 44.1 kHz
        (b"\xff\xfb\x90\x64" + b"\x00" * 40, "", "", "audio", "audio/mpeg"),
        # UTF-16 and UTF-32 with their byte-order marks: text, though FF Fx looks like an
        # MPEG frame's sync
        ("\ufeffmilk, eggs\n".encode("utf-16-le"), "list.csv", "", "text", "text/csv"),
        ("\ufeffNotas: ção\n".encode("utf-16-be"), "notas.md", "", "text", "text/markdown"),
        ("\ufeffplain words".encode("utf-32-le"), "", "", "text", "text/plain"),
        ("\ufeffplain words".encode("utf-8"), "", "", "text", "text/plain"),
    ],
)
def test_the_kind_is_read_from_the_bytes_not_the_name_or_declared_type(
    data: bytes, name: str, declared: str, kind: str, mime: str
) -> None:
    found = sniff(data, name=name, declared=declared)
    assert found.kind == kind
    if mime:
        assert found.mime == mime


@pytest.mark.parametrize(
    "header",
    [
        b"\xff\xeb\x90\x64",  # version 01: reserved
        b"\xff\xf9\x90\x64",  # layer 00: reserved
        b"\xff\xfb\xf0\x64",  # bitrate index 1111: bad
        b"\xff\xfb\x00\x64",  # bitrate index 0000: free format, which nothing records
        b"\xff\xfb\x9c\x64",  # sample-rate index 11: reserved
        b"\xff\xfb\x90\x66",  # emphasis 10: reserved
    ],
    ids=["version", "layer", "bitrate", "free format", "sample rate", "emphasis"],
)
def test_a_frame_sync_with_a_reserved_field_is_not_an_mp3(header: bytes) -> None:
    assert sniff(header + b"\x00" * 40, declared="audio/mpeg").kind == "unsupported"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-8"])
def test_a_text_file_with_a_byte_order_mark_is_read_in_its_encoding(codec: str) -> None:
    data = "\ufeffFlour, 500 g\r\nEggs, 6 — ção\r\n".encode(codec)
    document = read_text(data, name="list.csv", chars=1000)
    assert document.text == "Flour, 500 g\nEggs, 6 — ção"


def test_a_large_photo_is_scaled_to_the_long_edge_and_keeps_its_format() -> None:
    shown = prepare_image(picture(4032, 3024, "JPEG"), long_edge=1568, max_pixels=40_000_000)
    assert (shown.media_type, shown.width, shown.height) == ("image/jpeg", 1568, 1176)
    with Image.open(io.BytesIO(shown.data)) as image:
        assert image.size == (1568, 1176)
    tall = prepare_image(picture(1000, 3000, "PNG"), long_edge=1568, max_pixels=40_000_000)
    assert (tall.media_type, tall.width, tall.height) == ("image/png", 523, 1568)


def test_a_small_picture_keeps_its_size_and_format() -> None:
    data = picture(320, 200, "WEBP")
    shown = prepare_image(data, long_edge=1568, max_pixels=40_000_000)
    assert (shown.media_type, shown.width, shown.height) == ("image/webp", 320, 200)


def _sideways_photo() -> tuple[Image.Image, Image.Exif]:
    """A 40 × 20 photo (left half red, right half blue) and an EXIF that says which phone
    took it, where (a latitude), and that it must be turned 90° clockwise to be upright
    (orientation 6)."""
    image = Image.new("RGB", (40, 20), "red")
    image.paste("blue", (20, 0, 40, 20))
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 6
    exif[ExifTags.Base.Make] = "Lookout Phone"
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (51.0, 30.0, 26.5)
    return image, exif


def _photo_with_gps(fmt: str) -> bytes:
    """:func:`_sideways_photo` with its EXIF saying where it was taken in full."""
    image, exif = _sideways_photo()
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLongitudeRef] = "W"
    gps[ExifTags.GPS.GPSLongitude] = (0.0, 7.0, 39.9)
    out = io.BytesIO()
    image.save(out, fmt, exif=exif, quality=95)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_small_photo_loses_its_exif_and_stands_upright(fmt: str) -> None:
    data = _photo_with_gps(fmt)
    with Image.open(io.BytesIO(data)) as sent:
        assert sent.getexif().get_ifd(ExifTags.IFD.GPSInfo)  # the phone said where
    shown = prepare_image(data, long_edge=1568, max_pixels=40_000_000)
    assert shown.media_type == f"image/{fmt.lower()}"
    assert (shown.width, shown.height) == (20, 40)
    assert b"Lookout Phone" not in shown.data and b"Exif" not in shown.data
    with Image.open(io.BytesIO(shown.data)) as seen:
        assert not seen.getexif() and "exif" not in seen.info
        upright = seen.convert("RGB")
        assert upright.size == (20, 40)
        # turned clockwise: the left (red) half is on top, the right (blue) below
        red, blue = upright.getpixel((10, 5)), upright.getpixel((10, 35))
        assert isinstance(red, tuple) and isinstance(blue, tuple)
        assert red[0] > 200 > red[2] and blue[2] > 200 > blue[0]


def _photo_with_damaged_exif(fmt: str) -> bytes:
    """The photo of :func:`_sideways_photo` (orientation 6), whose GPS block claims
    195 entries where it holds 2 (an editing app's slip): Pillow's own turning upright
    fails on it (it writes the EXIF out again, and that raises TypeError)."""
    image, exif = _sideways_photo()
    raw = exif.tobytes()
    entries = b"\x00\x02\x00\x01\x00\x02"  # the GPS block: 2 entries, the first ASCII
    assert raw.count(entries) == 1
    out = io.BytesIO()
    image.save(out, fmt, exif=raw.replace(entries, b"\x00\xc3\x00\x01\x00\x02"))
    return out.getvalue()


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")
@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_photo_whose_exif_is_damaged_is_still_seen_upright(fmt: str) -> None:
    """The picture is shown all the same (not "something went wrong"), turned as the
    orientation it gives says, and none of its EXIF goes on."""
    shown = prepare_image(_photo_with_damaged_exif(fmt), long_edge=1568, max_pixels=40_000_000)
    assert (shown.width, shown.height) == (20, 40)
    assert b"Lookout Phone" not in shown.data and b"Exif" not in shown.data


def test_a_picture_that_stays_too_large_is_sent_as_jpeg() -> None:
    noisy = Image.effect_noise((1568, 1568), 120).convert("RGB")
    out = io.BytesIO()
    noisy.save(out, "PNG")
    assert len(out.getvalue()) > MAX_ENCODED
    shown = prepare_image(out.getvalue(), long_edge=1568, max_pixels=40_000_000)
    assert shown.media_type == "image/jpeg" and len(shown.data) <= MAX_ENCODED


def test_an_animated_gif_gives_its_first_frame() -> None:
    frames = [Image.new("RGB", (64, 64), color) for color in ("red", "green", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    shown = prepare_image(out.getvalue(), long_edge=1568, max_pixels=40_000_000)
    assert shown.media_type == "image/png"
    with Image.open(io.BytesIO(shown.data)) as image:
        assert getattr(image, "n_frames", 1) == 1
        assert image.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


@pytest.mark.parametrize("size", [(30_000, 30_000), (8_000, 8_000)])
def test_a_decompression_bomb_is_refused_before_its_pixels_are_read(
    size: tuple[int, int],
) -> None:
    data = bomb_png(*size)
    assert len(data) < 100_000
    with pytest.raises(MediaError) as caught:
        prepare_image(data, long_edge=1568, max_pixels=40_000_000)
    assert "pixels" in caught.value.user_message and "smaller" in caught.value.user_message


def test_a_broken_picture_is_one_clear_sentence() -> None:
    data = picture(fmt="PNG")
    with pytest.raises(MediaError) as caught:
        prepare_image(data[: len(data) // 3], long_edge=1568, max_pixels=40_000_000, name="a.png")
    assert caught.value.user_message == "“a.png” could not be opened as a picture."


def test_a_pdf_is_read_with_its_name_and_page_count() -> None:
    document = read_pdf(
        pdf(["The boiler service is booked for 14 March.", "Call Ana on Friday."]),
        name="house.pdf",
        chars=10_000,
        max_pages=50,
    )
    text = document.for_model()
    assert text.startswith("[document house.pdf, 2 pages]\n")
    assert "boiler service is booked for 14 March" in text and "Call Ana on Friday" in text
    assert "cut here" not in text


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256", "RC4-128"])
def test_a_pdf_locked_only_against_changes_is_read(algorithm: str) -> None:
    """Banks and offices send statements encrypted with only an owner's password (anyone may
    open them, no one may edit them), most with AES, whose cipher comes with the default
    install (``pypdf[crypto]``)."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(["Balance on 30 June: 412.50"]))))
    writer.encrypt("", "the bank's own", algorithm=algorithm)
    locked = io.BytesIO()
    writer.write(locked)
    document = read_pdf(locked.getvalue(), name="statement.pdf", chars=1000, max_pages=5)
    assert "Balance on 30 June: 412.50" in document.for_model()


def test_the_default_install_brings_the_cipher_of_locked_pdfs() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert [r for r in project["dependencies"] if r.startswith("pypdf")] == ["pypdf[crypto]>=4"]


def test_a_long_pdf_stops_at_its_page_cap_with_a_visible_marker() -> None:
    document = read_pdf(
        pdf([f"Page {n} says hello." for n in range(1, 9)]),
        name="long.pdf",
        chars=10_000,
        max_pages=3,
    )
    text = document.for_model()
    assert "Page 3 says hello" in text and "Page 4" not in text
    assert text.endswith("[… long.pdf cut here: pages 4-8 not read]")
    assert document.note() == "[document long.pdf, 8 pages]"


def test_a_document_beyond_its_budget_is_cut_with_a_marker() -> None:
    lines = "\n".join(f"line {n}: milk, eggs, flour" for n in range(2000))
    document = read_text(lines.encode(), name="list.csv", chars=1000)
    text = document.for_model()
    assert len(document.text) <= 1000
    assert text.startswith("[document list.csv]\nline 0: milk")
    assert "[… list.csv cut here:" in text and "more characters not shown]" in text


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (pdf(["secret"], password="hunter2"), "is locked with a password"),
        (pdf([""]), "has no text I can read"),
        (b"%PDF-1.7\n garbage garbage", "could not be read as a PDF"),
        (damaged_pdf(), "could not be read as a PDF"),
    ],
)
def test_pdfs_that_cannot_be_read_say_why(data: bytes, said: str) -> None:
    with pytest.raises(MediaError) as caught:
        read_pdf(data, name="x.pdf", chars=1000, max_pages=10)
    assert said in caught.value.user_message


def test_recordings_know_their_length() -> None:
    ogg = duration_of(VOICE_OGG, "audio/ogg")
    wav = duration_of(HELLO_WAV, "audio/wav")
    assert ogg is not None and 2.8 < ogg < 3.1  # opusinfo: 0m:02.933s
    assert wav is not None and 0.6 < wav < 0.8
    assert duration_of(b"OggS", "audio/ogg") is None
    assert duration_of(b"ID3", "audio/mpeg") is None
    assert [spoken_length(s) for s in (2.9, 14, 725, 3723)] == ["0:03", "0:14", "12:05", "1:02:03"]


def _server(fake: FakeAudio, **extra: object) -> BackendConfig:
    return BackendConfig.model_validate(
        {"kind": "openai_compat", "model": "whisper-1", "base_url": fake.base_url, **extra}
    )


async def test_a_transcription_server_hears_the_recording_at_the_wire() -> None:
    async with FakeAudio(api_key="k-123") as fake:
        fake.transcript = "  remind me to buy flour  "
        server = Transcriber(
            "transcribe", _server(fake, api_key_env="AUDIO_KEY"), {"AUDIO_KEY": "k-123"}
        )
        try:
            heard = await server.transcribe(VOICE_OGG, mime="audio/ogg")
        finally:
            await server.close()
    assert (heard.text, heard.seconds) == ("remind me to buy flour", None)
    [heard] = fake.heard
    assert heard.audio == VOICE_OGG
    assert (heard.filename, heard.content_type, heard.model) == (
        "voice.ogg",
        "audio/ogg",
        "whisper-1",
    )


@pytest.mark.parametrize(
    ("data", "filename"),
    [
        (VOICE_OGG, "voice.ogg"),
        (b"\x1a\x45\xdf\xa3" + b"\x00" * 40, "voice.webm"),
        (b"ID3\x04\x00" + b"\x00" * 40, "voice.mp3"),
        (b"\xff\xfb\x90\x64" + b"\x00" * 40, "voice.mp3"),
        (b"\x00\x00\x00\x20ftypM4A " + b"\x00" * 40, "voice.m4a"),
        (HELLO_WAV, "voice.wav"),
        (b"fLaC" + b"\x00" * 40, "voice.flac"),
    ],
    ids=["ogg", "webm", "mp3 with a tag", "mp3 without", "m4a", "wav", "flac"],
)
async def test_the_uploaded_file_is_named_after_the_type_its_bytes_are(
    data: bytes, filename: str
) -> None:
    found = sniff(data, declared="audio/webm", voice=True)
    assert found.kind == "audio"
    async with FakeAudio() as fake:
        server = Transcriber("transcribe", _server(fake), {})
        try:
            await server.transcribe(data, mime=found.mime)
        finally:
            await server.close()
    [heard] = fake.heard
    assert (heard.filename, heard.content_type) == (filename, found.mime)


@pytest.mark.parametrize(
    ("timed", "duration", "heard_for"),
    [(False, 31.5, None), (True, 31.5, 31.5), (True, None, None)],
)
async def test_a_transcription_server_is_asked_for_the_length_only_when_needed(
    timed: bool, duration: float | None, heard_for: float | None
) -> None:
    async with FakeAudio() as fake:
        fake.duration = duration
        server = Transcriber("transcribe", _server(fake), {})
        try:
            heard = await server.transcribe(WEBM_SOUND, mime="audio/webm", timed=timed)
        finally:
            await server.close()
    assert (heard.text, heard.seconds) == (fake.transcript, heard_for)
    assert fake.heard[0].response_format == ("verbose_json" if timed else "json")


async def test_a_server_that_refused_the_length_is_asked_only_for_json_afterwards() -> None:
    async with FakeAudio() as fake:
        fake.formats = {"json", "text"}
        server = Transcriber("transcribe", _server(fake), {})
        try:
            first = await server.transcribe(WEBM_SOUND, mime="audio/webm", timed=True)
            second = await server.transcribe(WEBM_SOUND, mime="audio/webm", timed=True)
        finally:
            await server.close()
    assert first == second == Transcript(fake.transcript)
    assert fake.transcription_asked == 3, "the refusal of verbose_json is remembered"
    assert [heard.response_format for heard in fake.heard] == ["json", "json"]


async def test_a_speech_server_gives_ogg_opus_with_its_length() -> None:
    async with FakeAudio() as fake:
        server = Speaker("speech", _server(fake), {}, voice="nova")
        try:
            speech = await server.speak("Flour and eggs, noted.")
        finally:
            await server.close()
    assert speech.audio == VOICE_OGG and speech.mime == "audio/ogg"
    assert speech.duration is not None and 2.8 < speech.duration < 3.1
    assert fake.spoken == [
        {
            "model": "whisper-1",
            "input": "Flour and eggs, noted.",
            "voice": "nova",
            "response_format": "opus",
        }
    ]


@pytest.mark.parametrize("failure", ["status", "slow", "down", "not sound"])
async def test_a_media_server_that_fails_is_one_sentence(failure: str) -> None:
    async with FakeAudio() as fake:
        spec = _server(fake, timeout=0.5)
        if failure == "status":
            fake.fail = 500
        elif failure == "slow":
            fake.delay = 2.0
        elif failure == "not sound":
            fake.speech_audio = b"<html>oops</html>"
        if failure == "down":
            await fake.stop()
        transcriber, speaker = (
            Transcriber("transcribe", spec, {}),
            Speaker("speech", spec, {}, voice="a"),
        )
        try:
            if failure != "not sound":
                with pytest.raises(MediaError) as heard:
                    await transcriber.transcribe(VOICE_OGG, mime="audio/ogg")
                assert "couldn't hear your voice note" in heard.value.user_message
            with pytest.raises(MediaError) as spoken:
                await speaker.speak("hello")
            assert spoken.value.user_message.startswith("The speech server is not working")
        finally:
            await transcriber.close()
            await speaker.close()


def test_a_media_server_needs_an_address() -> None:
    spec = BackendConfig(kind="openai_compat", model="whisper-1")
    with pytest.raises(ConfigError, match="base_url"):
        Transcriber("transcribe", spec, {})
