"""What a file is, read from its first bytes.

A platform's declared MIME type and a file's name are what the sender's app guessed, or what
the sender wanted the daemon to believe: the kind is decided by the bytes. The name and the
declared type only tell apart what the bytes leave open (a WebM or MP4 container holds sound
or film; text has no signature).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SUPPORTED", "Kind", "Sniffed", "sniff"]

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
_TEXT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
}
_MP4_AUDIO_BRANDS = (b"M4A ", b"M4B ", b"F4A ")


def _declared_sound(declared: str, voice: bool) -> bool:
    return voice or declared.startswith("audio/")


def sniff(data: bytes, *, name: str = "", declared: str = "", voice: bool = False) -> Sniffed:
    """The kind of ``data``. ``declared`` (the platform's MIME type) and ``voice`` only decide
    between sound and film in a container that holds either."""
    head = data[:16]
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
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06:
        return Sniffed("audio", "audio/mpeg")  # an MPEG audio frame without an ID3 tag
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
    if _is_text(data):
        suffix = name[name.rfind(".") :].lower() if "." in name else ""
        return Sniffed("text", _TEXT_TYPES.get(suffix, "text/plain"))
    return Sniffed("unsupported", "application/octet-stream")


#: control characters text has no business holding (tab, newlines and form feed are fine)
_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13)) + b"\x7f"


def _is_text(data: bytes) -> bool:
    """UTF-8 with hardly a control character (a cut at the end of the sample is no fault)."""
    sample = data[:65536]
    if b"\x00" in sample:
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not (exc.start >= len(sample) - 3 and len(data) > len(sample)):
            return False
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    return controls <= len(sample) // 100
