"""What a file is, read from its first bytes.

A platform's declared MIME type and a file's name are what the sender's app guessed, or what
the sender wanted the daemon to believe: the kind is decided by the bytes. The name and the
declared type only tell apart what the bytes leave open (a WebM or MP4 container holds sound
or film; text has no signature).

A byte-order mark is looked at first: UTF-16 text begins ``FF FE`` or ``FE FF`` (UTF-32
``FF FE 00 00`` or ``00 00 FE FF``), as an MPEG audio frame may. Text without one is UTF-8,
or, when its bytes are not UTF-8, Windows-1252 (a superset of Latin-1's letters). An MP3
without an ID3 tag is only called one when its first four bytes are a valid frame header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SUPPORTED", "Kind", "Sniffed", "audio_suffix", "sniff", "text_encoding"]

Kind = Literal["image", "audio", "pdf", "text", "unsupported"]

#: the one sentence naming what can be read
SUPPORTED = (
    "I can read pictures (JPEG, PNG, GIF, WebP), voice notes and audio files, and documents"
    " in plain text, Markdown, CSV or PDF"
)


@dataclass(frozen=True, slots=True)
class Sniffed:
    kind: Kind
    #: the real type: ``image/png``, ``audio/ogg``, ``application/pdf``, ``text/csv`` ...
    mime: str


_IMAGES = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_AUDIO = (
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
    (b"ID3", "audio/mpeg"),
    (b"#!AMR", "audio/amr"),
)
#: the file extension of each sound type :func:`sniff` names
_AUDIO_SUFFIXES = {
    "audio/ogg": "ogg",
    "audio/webm": "webm",
    "audio/mpeg": "mp3",
    "audio/mp4": "m4a",
    "audio/wav": "wav",
    "audio/flac": "flac",
    "audio/amr": "amr",
}
_TEXT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
}
_MP4_AUDIO_BRANDS = (b"M4A ", b"M4B ", b"F4A ")
#: the bytes of a file read to tell whether it is text, and in which encoding
_SAMPLE = 65536
#: byte-order marks, longest first (UTF-32's little-endian mark begins with UTF-16's), and
#: the codec that reads the text after them
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _declared_sound(declared: str, voice: bool) -> bool:
    return voice or declared.startswith("audio/")


def sniff(data: bytes, *, name: str = "", declared: str = "", voice: bool = False) -> Sniffed:
    """The kind of ``data``. ``declared`` (the platform's MIME type) and ``voice`` only decide
    between sound and film in a container that holds either."""
    head = data[:16]
    codec = text_encoding(data)
    marked = _marked_codec(data) is not None
    if marked and _is_text(data, codec):
        return _text_kind(name)
    for magic, mime in _IMAGES:
        if head.startswith(magic):
            return Sniffed("image", mime)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return Sniffed("image", "image/webp")
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return Sniffed("audio", "audio/wav")
    for magic, mime in _AUDIO:
        if head.startswith(magic):
            return Sniffed("audio", mime)
    if _mpeg_frame(head):
        return Sniffed("audio", "audio/mpeg")  # an MP3 without an ID3 tag
    if head[4:8] == b"ftyp":
        if head[8:12] in _MP4_AUDIO_BRANDS or _declared_sound(declared, voice):
            return Sniffed("audio", "audio/mp4")
        return Sniffed("unsupported", "video/mp4")
    if head.startswith(b"\x1a\x45\xdf\xa3"):  # Matroska / WebM
        if _declared_sound(declared, voice):
            return Sniffed("audio", "audio/webm")
        return Sniffed("unsupported", "video/webm")
    if data.startswith(b"%PDF-"):
        return Sniffed("pdf", "application/pdf")
    if head.startswith(b"PK\x03\x04"):  # a ZIP: Word, Excel, OpenDocument, an archive
        return Sniffed("unsupported", "application/zip")
    if not marked and _is_text(data, codec):  # marked text was tested first, and failed
        return _text_kind(name)
    return Sniffed("unsupported", "application/octet-stream")


def audio_suffix(mime: str) -> str:
    """The file extension of a sound type :func:`sniff` names (``audio/mp4``: ``m4a``);
    ``bin`` for any other type."""
    return _AUDIO_SUFFIXES.get(mime, "bin")


def text_encoding(data: bytes) -> str:
    """The codec that reads ``data`` as text: the one its byte-order mark names (``utf-16``
    and ``utf-32`` read the byte order from the mark); else ``utf-8`` when its first bytes
    are UTF-8, and ``cp1252`` when they are not (what Excel on Windows saves a CSV in, and
    Latin-1 text reads the same)."""
    marked = _marked_codec(data)
    if marked is not None:
        return marked
    return "utf-8" if _reads_as_utf8(data[:_SAMPLE]) else "cp1252"


def _marked_codec(data: bytes) -> str | None:
    """The codec the byte-order mark ``data`` begins with names, if it begins with one."""
    for mark, codec in _BOMS:
        if data.startswith(mark):
            return codec
    return None


def _reads_as_utf8(sample: bytes) -> bool:
    """Whether ``sample`` is UTF-8; a character cut at its end is no fault."""
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data"
    return True


def _text_kind(name: str) -> Sniffed:
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    return Sniffed("text", _TEXT_TYPES.get(suffix, "text/plain"))


def _mpeg_frame(head: bytes) -> bool:
    """Whether ``head`` begins with an MPEG audio frame header: the 11-bit sync, then no
    reserved version (``01``) or layer (``00``), a bitrate index that names a bitrate (not
    ``1111``, and not ``0000``: free format, which recorders do not write), a sample-rate
    index other than ``11`` and no reserved emphasis (``10``)."""
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version, layer = (head[1] >> 3) & 0b11, (head[1] >> 1) & 0b11
    bitrate, rate = head[2] >> 4, (head[2] >> 2) & 0b11
    emphasis = head[3] & 0b11
    reserved = version == 0b01 or layer == 0 or rate == 0b11 or emphasis == 0b10
    return not reserved and bitrate not in (0, 0xF)


#: control characters text has no business holding (tab, newlines and form feed are fine),
#: as a table that deletes them
_CONTROL = dict.fromkeys([*(c for c in range(32) if c not in (9, 10, 12, 13)), 0x7F])


def _is_text(data: bytes, codec: str) -> bool:
    """Text in ``codec`` (:func:`text_encoding`'s), with hardly a control character; a
    character cut at the end of the sample is no fault."""
    sample = data[:_SAMPLE]
    try:
        text = sample.decode(codec)
    except UnicodeDecodeError as exc:
        if not (exc.start >= len(sample) - 3 and len(data) > len(sample)):
            return False
        text = sample[: exc.start].decode(codec)
    if "\x00" in text:
        return False
    controls = len(text) - len(text.translate(_CONTROL))
    return controls <= len(text) // 100
