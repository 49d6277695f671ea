"""How long a recording is, read from its container where that is cheap.

Ogg (Opus or Vorbis: what Telegram, WhatsApp-style apps and Element record) carries the
position of its last sample in its last page; WAV says its byte rate. Other containers
(MP3, M4A, WebM, FLAC, AMR) return None. :mod:`bot.media.prepare` caps the longer of this
and the platform's declared duration, and when neither is known asks the transcription
server for the length it heard.
"""

from __future__ import annotations

import struct

__all__ = ["duration_of", "spoken_length"]

_OPUS_RATE = 48_000


def duration_of(data: bytes, mime: str) -> float | None:
    """Seconds of sound in ``data``, or None when the container does not say cheaply."""
    if mime == "audio/ogg":
        return _ogg_seconds(data)
    if mime == "audio/wav":
        return _wav_seconds(data)
    return None


def spoken_length(seconds: float) -> str:
    """``0:14``, ``12:05``, ``1:02:03``."""
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _ogg_seconds(data: bytes) -> float | None:
    rate = _ogg_rate(data)
    last = data.rfind(b"OggS")
    if rate is None or last < 0 or last + 14 > len(data):
        return None
    (granule,) = struct.unpack_from("<q", data, last + 6)
    if granule < 0:
        return None
    skip = 0
    if data.find(b"OpusHead", 0, 200) >= 0:
        head = data.find(b"OpusHead")
        if head + 12 <= len(data):
            (skip,) = struct.unpack_from("<H", data, head + 10)
    return max(0.0, float(granule - skip) / rate)


def _ogg_rate(data: bytes) -> int | None:
    if data.find(b"OpusHead", 0, 200) >= 0:
        return _OPUS_RATE
    vorbis = data.find(b"\x01vorbis", 0, 200)
    if vorbis >= 0 and vorbis + 16 <= len(data):
        (rate,) = struct.unpack_from("<I", data, vorbis + 12)
        return rate or None
    return None


def _wav_seconds(data: bytes) -> float | None:
    fmt = data.find(b"fmt ", 12, 200)
    chunk = data.find(b"data", 12)
    if fmt < 0 or chunk < 0 or fmt + 20 > len(data) or chunk + 8 > len(data):
        return None
    (byte_rate,) = struct.unpack_from("<I", data, fmt + 16)
    (size,) = struct.unpack_from("<I", data, chunk + 4)
    size = min(size, len(data) - chunk - 8)
    return size / byte_rate if byte_rate else None
