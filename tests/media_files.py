"""Real media for tests, made on the spot: pictures by Pillow, PDFs by pypdf, silence by
:mod:`wave`, and the recorded voice note in ``tests/data/media`` (espeak-ng's voice, encoded
by opusenc)."""

from __future__ import annotations

import base64
import io
import wave
import zlib
from collections.abc import Iterable
from pathlib import Path

from PIL import Image, ImageDraw
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

__all__ = [
    "HELLO_WAV",
    "VOICE_OGG",
    "WEBM_SOUND",
    "base64_needle",
    "bomb_png",
    "crowded_pdf",
    "damaged_pdf",
    "files_holding",
    "middle",
    "pdf",
    "picture",
    "silence_wav",
]

MEDIA = Path(__file__).parent / "data" / "media"
VOICE_OGG = (MEDIA / "voice.ogg").read_bytes()
HELLO_WAV = (MEDIA / "hello.wav").read_bytes()
#: the start of a WebM file (a browser's recording): nothing in it says how long it is
WEBM_SOUND = b"\x1a\x45\xdf\xa3" + bytes(range(1, 200)) * 20


def silence_wav(seconds: float, rate: int = 8000) -> bytes:
    """``seconds`` of silence as 8-bit mono WAV (``rate`` bytes a second)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(rate)
        sound.writeframes(b"\x80" * round(seconds * rate))
    return out.getvalue()


def picture(width: int = 640, height: int = 480, fmt: str = "PNG", mode: str = "RGB") -> bytes:
    """A picture with something drawn on it (a flat one compresses to nothing)."""
    image = Image.new(mode, (width, height), "white")
    draw = ImageDraw.Draw(image)
    for x in range(0, width, 37):
        draw.line((x, 0, width - x, height), fill="red", width=3)
    draw.ellipse((width // 4, height // 4, width * 3 // 4, height * 3 // 4), outline="blue")
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def bomb_png(width: int = 30_000, height: int = 30_000) -> bytes:
    """A PNG whose header says ``width`` x ``height`` (900 megapixels) in a few kilobytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([1, 0, 0, 0, 0])
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    pixels = zlib.compress(row * 64, 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def pdf(pages: list[str], *, password: str = "") -> bytes:
    """A PDF with one line of text on each page (Helvetica, so any reader extracts it)."""
    writer = PdfWriter()
    for text in pages:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        _page(writer, f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1"))
    if password:
        writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def damaged_pdf(text: str = "hello") -> bytes:
    """A PDF whose trailer dictionary is a number instead, as a file cut and patched
    together by a broken mail client can be (pypdf fails on it with an AttributeError)."""
    data = pdf([text])
    start = data.index(b"trailer\n<<")
    end = data.index(b">>", start) + 2
    return data[:start] + b"trailer\n42" + data[end:]


def crowded_pdf(runs: int) -> bytes:
    """A one-page PDF that draws an x ``runs`` times, each placed anew: pypdf takes about
    30 µs a run to extract its text, so 60,000 runs are seconds of work."""
    writer = PdfWriter()
    _page(writer, b"BT /F1 12 Tf " + b"1 0 0 1 72 720 Tm (x) Tj " * runs + b"ET")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _page(writer: PdfWriter, content: bytes) -> None:
    """A letter-size page drawing ``content`` with Helvetica as /F1."""
    page = writer.add_blank_page(width=612, height=792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(content)
    page[NameObject("/Contents")] = writer._add_object(stream)


def middle(data: bytes, length: int = 64) -> bytes:
    """``length`` bytes from the middle of ``data``: a needle for its raw bytes."""
    start = len(data) // 2
    return data[start : start + length]


def base64_needle(data: bytes, length: int = 48) -> bytes:
    """A piece of ``data``'s base64 text, as it appears wherever the whole of ``data`` is
    written base64-encoded (a data URI, a JSON body). Base64 turns each 3 bytes into 4
    characters, so the piece starts at a multiple of 3 bytes and is a multiple of 3 long:
    cut anywhere else, its characters differ from the whole file's."""
    assert length % 3 == 0
    start = len(data) // 3 // 3 * 3
    needle = base64.b64encode(data[start : start + length])
    assert needle in base64.b64encode(data), "a needle that could never be found"
    return needle


def files_holding(roots: Iterable[Path], needles: Iterable[bytes]) -> set[tuple[str, bytes]]:
    """(file name, needle's first 12 bytes) for each file under ``roots`` holding a needle."""
    wanted = list(needles)
    found = set()
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                held = path.read_bytes()
                found |= {(path.name, needle[:12]) for needle in wanted if needle in held}
    return found
