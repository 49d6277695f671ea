"""The file an ``m.image``, ``m.file`` or ``m.audio`` event carries, and an ``m.audio`` to send.

:func:`attachment_of` reads a message's content into an :class:`~adapters.base.Attachment`.
In a plain room the file is at ``url`` (an ``mxc://`` URL); in an encrypted room the content
holds a ``file`` object instead: its ``url`` points at ciphertext, and its ``key``, ``iv`` and
``hashes`` decrypt and check it. The attachment's ``ref`` is the bare ``mxc://`` URL in the
first case and, in the second, the ``file`` object as JSON (:class:`MediaRef` reads either
back), so the keys travel with the handle and never with the bytes.

A voice note is an ``m.audio`` with the ``org.matrix.msc3245.voice`` flag; its length is
``info.duration`` (or ``org.matrix.msc1767.audio.duration``), in milliseconds. ``m.video``
has no attachment here: the core cannot read it.

Caption: an event whose ``body`` is only the file's name has none. Since Matrix 1.10 a
``filename`` field names the file, and a ``body`` different from it is the caption.

:func:`voice_content` is the other way: the content of a spoken answer already uploaded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adapters.base import Attachment, Speech

__all__ = ["MediaRef", "attachment_of", "caption_of", "voice_content"]

#: the message types whose file the core can read
READABLE = frozenset({"m.image", "m.file", "m.audio"})
VOICE_FLAG = "org.matrix.msc3245.voice"
EXTENSIBLE_AUDIO = "org.matrix.msc1767.audio"


@dataclass(frozen=True, slots=True)
class MediaRef:
    """Where an attachment's bytes are, and for an encrypted file how to open them."""

    url: str
    #: the JWK's ``k``, the ``iv`` and the ciphertext's SHA-256, all unpadded base64; empty
    #: for a plain file
    key: str = ""
    iv: str = ""
    sha256: str = ""

    @property
    def encrypted(self) -> bool:
        return bool(self.key)

    @classmethod
    def parse(cls, ref: str) -> MediaRef | None:
        """The handle :func:`attachment_of` wrote, or ``None`` if ``ref`` is not one."""
        if ref.startswith("mxc://"):
            return cls(ref)
        try:
            file = json.loads(ref)
        except ValueError:
            return None
        return cls.from_file(file) if isinstance(file, dict) else None

    @classmethod
    def from_file(cls, file: dict[str, Any]) -> MediaRef | None:
        """An encrypted file's object (``url``, ``key``, ``iv``, ``hashes``), if complete."""
        key, hashes = file.get("key"), file.get("hashes")
        ref = cls(
            _text(file.get("url")),
            _text(key.get("k")) if isinstance(key, dict) else "",
            _text(file.get("iv")),
            _text(hashes.get("sha256")) if isinstance(hashes, dict) else "",
        )
        complete = ref.url.startswith("mxc://") and ref.key and ref.iv and ref.sha256
        return ref if complete else None

    def to_ref(self) -> str:
        if not self.encrypted:
            return self.url
        file = {
            "url": self.url,
            "key": {"k": self.key},
            "iv": self.iv,
            "hashes": {"sha256": self.sha256},
        }
        return json.dumps(file, separators=(",", ":"), sort_keys=True)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _milliseconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return value / 1000


def caption_of(content: dict[str, Any]) -> str:
    """The caption of a file's message: its ``body`` when a different ``filename`` is set."""
    body, filename = _text(content.get("body")), _text(content.get("filename"))
    return body if filename and body and body != filename else ""


def attachment_of(msgtype: str, content: dict[str, Any]) -> Attachment | None:
    """The readable file of a message's ``content``; ``None`` for other message types and
    for a file without a usable ``url`` or ``file``."""
    if msgtype not in READABLE:
        return None
    file = content.get("file")
    if isinstance(file, dict):
        ref = MediaRef.from_file(file)
    else:
        url = _text(content.get("url"))
        ref = MediaRef(url) if url.startswith("mxc://") else None
    if ref is None:
        return None
    info = content.get("info")
    info = info if isinstance(info, dict) else {}
    size = info.get("size")
    duration = _milliseconds(info.get("duration"))
    extensible = content.get(EXTENSIBLE_AUDIO)
    if duration is None and isinstance(extensible, dict):
        duration = _milliseconds(extensible.get("duration"))
    return Attachment(
        ref=ref.to_ref(),
        name=_text(content.get("filename")) or _text(content.get("body")),
        mime=_text(info.get("mimetype")),
        size=size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None,
        voice=msgtype == "m.audio" and VOICE_FLAG in content,
        duration=duration if msgtype == "m.audio" else None,
    )


def voice_content(speech: Speech, url: str, file: dict[str, Any] | None) -> dict[str, Any]:
    """The ``m.audio`` content of ``speech`` uploaded to ``url``: marked as a voice message;
    with ``file`` (the decryption info of an encrypted upload) in place of a plain ``url``."""
    info: dict[str, Any] = {"mimetype": speech.mime, "size": len(speech.audio)}
    audio: dict[str, Any] = {}
    if speech.duration is not None:
        info["duration"] = audio["duration"] = round(speech.duration * 1000)
    content: dict[str, Any] = {
        "msgtype": "m.audio",
        "body": speech.name,
        "filename": speech.name,
        "info": info,
        EXTENSIBLE_AUDIO: audio,
        VOICE_FLAG: {},
        "m.mentions": {},
    }
    if file is None:
        content["url"] = url
    else:
        content["file"] = {**file, "url": url}
    return content
