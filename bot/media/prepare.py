"""One message's attachments made into what its turn reads.

Each attachment is fetched through its adapter under the cap of the kind it says it is and
within ``media.timeout``, then its kind is decided from its bytes and the cap of that kind
applied again. Pictures go to the model as pictures (scaled down), voice notes and audio
files as their transcript, documents as their name and text; a PDF is read within
``media.timeout`` too.

A recording's length is the longer of the platform's declared duration and the one its
container gives (:mod:`bot.media.audio`); past ``media.max_audio_seconds`` it is refused
before it is sent anywhere. When neither is known the transcription server is asked for
the length with the words (``verbose_json``), and a transcript of a recording past the cap is
refused too; a server that does not say leaves the length unchecked (logged).

The turn's text is what the session log records: a note of what came (``[voice note 0:14,
transcribed]``, ``[picture: caption]``, ``[document name.pdf, 12 pages]``) with the
transcript or the document's text.

A file that cannot be used (damaged, empty, too large, of a kind not read, a server that
failed on it) raises a :class:`~bot.daemon.errors.MediaError` with one sentence for the user.
It costs only that file: the text and the other files are read as usual, and the sentence,
naming the file where it does not already, is one of the reading's :attr:`Reading.unread`
lines, which the model sees as a ``[not read: …]`` note and the user gets below the answer. A
message with nothing else (no text, no file that could be read) is one
:class:`~bot.daemon.errors.MediaError` whose sentences are those lines; so is one with more
than ``media.max_attachments`` files. The bytes stay in memory and are dropped with the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from adapters.base import Adapter, Attachment, Incoming
from bot.daemon.disk import DiskPool
from bot.daemon.errors import MediaError
from bot.llm.base import Picture
from bot.media.audio import duration_of, spoken_length
from bot.media.documents import Document, budget, read_pdf, read_text
from bot.media.fetch import too_large, unreachable
from bot.media.images import prepare_image
from bot.media.kinds import SUPPORTED, Kind, sniff
from bot.media.servers import Transcriber
from bot.setup.config import MediaConfig

__all__ = ["NO_TRANSCRIBER", "NO_VISION", "PDF_POOL", "PDF_THREADS", "MediaReader", "Reading"]

log = structlog.get_logger(__name__)

#: threads that read PDFs, and no other work: a PDF its turn gave up on still holds its
#: thread until pypdf is done, and many such files at once hold these two, not the threads
#: the rest of the daemon waits on (a PDF still queued when its turn gives up is not read)
PDF_THREADS = 2
PDF_POOL = DiskPool(PDF_THREADS, name="personad-pdf", skip_abandoned=True)

NO_VISION = (
    "The model I'm using can't see pictures, so I can't look at that one; tell me what it"
    " shows, or ask whoever runs me to set `vision = true` on a model that can."
)
NO_TRANSCRIBER = (
    "I can't listen to voice notes until whoever runs me points `llm.roles.transcribe` at a"
    " speech-to-text server (see docs/MEDIA.md), so please type it for now."
)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a message's turn reads: ``text`` (also what is logged), the pictures the model
    sees with it, the transcript of a voice note (for echoing it back), and a line for each
    file that could not be used (said below the answer)."""

    text: str
    pictures: tuple[Picture, ...] = ()
    transcript: str = ""
    unread: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Heard:
    """A recording's note (``[voice note 0:14, transcribed]``) and its words."""

    note: str
    words: str


@dataclass(frozen=True, slots=True)
class _Unread:
    """A file that could not be used: its name, its place in the message (from 1), and the
    sentence that says why."""

    name: str
    place: int
    reason: str


class MediaReader:
    def __init__(
        self,
        config: MediaConfig,
        *,
        vision: bool,
        transcriber: Transcriber | None = None,
    ) -> None:
        self.config = config
        self.vision = vision
        self.transcriber = transcriber

    def _cap(self, kind: Kind) -> int:
        if kind == "image":
            return self.config.max_image_bytes
        if kind == "audio":
            return self.config.max_audio_bytes
        return self.config.max_document_bytes

    def _declared_cap(self, attachment: Attachment) -> int:
        """The most bytes fetched of ``attachment`` before its bytes say what it is: the cap
        of the kind its declared type names. A type that names none (none declared,
        ``application/octet-stream``, a video that may hold only sound) gets the largest cap
        of the kinds this reader can use: documents always, pictures with vision, sound with
        a transcriber. The kind's own cap is applied again once the bytes are read."""
        mime = attachment.mime
        if mime.startswith("image/"):
            return self._cap("image")
        if attachment.voice or mime.startswith("audio/"):
            return self._cap("audio")
        if mime == "application/pdf" or mime.startswith("text/"):
            return self._cap("pdf")
        usable: list[Kind] = ["pdf"]
        if self.vision:
            usable.append("image")
        if self.transcriber is not None:
            usable.append("audio")
        return max(self._cap(kind) for kind in usable)

    async def read(self, incoming: Incoming, adapter: Adapter) -> Reading:
        attachments = incoming.attachments
        if len(attachments) > self.config.max_attachments:
            raise MediaError(
                f"{len(attachments)} attachments",
                user_message=f"You sent {len(attachments)} files at once; I read at most"
                f" {self.config.max_attachments} in one message.",
            )
        caption = incoming.text.strip()
        pictures: list[Picture] = []
        heard: list[_Heard] = []
        documents: list[Document] = []
        failed: list[_Unread] = []
        for place, attachment in enumerate(attachments, start=1):
            try:
                used = await self._use(adapter, attachment)
            except MediaError as exc:
                # this file only: the text and the other files are still answered
                log.warning("media.unread", error=str(exc), place=place)
                failed.append(_Unread(attachment.name, place, exc.user_message))
                continue
            if isinstance(used, Picture):
                pictures.append(used)
            elif isinstance(used, _Heard):
                heard.append(used)
            else:
                documents.append(used)
        unread = _unread_lines(failed, len(attachments))
        if unread and not (caption or pictures or heard or documents):
            raise MediaError(
                f"{len(failed)} of {len(attachments)} attachments not read",
                user_message="\n".join(unread),
            )
        return Reading(
            _text(caption, pictures, heard, documents, unread),
            tuple(pictures),
            "\n".join(recording.words for recording in heard),
            unread,
        )

    async def _use(self, adapter: Adapter, attachment: Attachment) -> Picture | _Heard | Document:
        """One attachment fetched and made readable; :class:`MediaError` says why it cannot
        be."""
        data = await self._fetch(adapter, attachment)
        if not data:
            raise _empty(attachment.name)
        found = sniff(data, name=attachment.name, declared=attachment.mime, voice=attachment.voice)
        if found.kind == "unsupported":
            label = f"“{attachment.name}”" if attachment.name else "that file"
            raise MediaError(
                f"unsupported attachment {found.mime}",
                user_message=f"{SUPPORTED}; {label} is none of those.",
            )
        if len(data) > self._cap(found.kind):
            raise too_large(self._cap(found.kind), attachment.name)
        if found.kind == "image":
            return await self._picture(data, attachment)
        if found.kind == "audio":
            note, words = await self._listen(data, found.mime, attachment)
            return _Heard(note, words)
        return await self._document(data, found.kind, attachment)

    async def _fetch(self, adapter: Adapter, attachment: Attachment) -> bytes:
        if not self.vision and attachment.mime.startswith("image/"):
            raise _blind()  # said to be a picture: not worth fetching to find out
        limit = self._declared_cap(attachment)
        if attachment.size is not None and attachment.size > limit:
            raise too_large(limit, attachment.name)
        try:
            async with asyncio.timeout(self.config.timeout):
                return await adapter.download(attachment, limit=limit)
        except TimeoutError as exc:
            raise unreachable(f"no answer in {self.config.timeout:.0f} s") from exc

    async def _picture(self, data: bytes, attachment: Attachment) -> Picture:
        if not self.vision:
            raise _blind()
        return await asyncio.to_thread(
            prepare_image,
            data,
            long_edge=self.config.image_long_edge,
            max_pixels=self.config.max_image_pixels,
            name=attachment.name,
        )

    async def _listen(self, data: bytes, mime: str, attachment: Attachment) -> tuple[str, str]:
        if self.transcriber is None:
            raise MediaError("no transcription server", user_message=NO_TRANSCRIBER)
        seconds = _longest(attachment.duration, duration_of(data, mime))
        self._check_length(seconds)
        heard = await self.transcriber.transcribe(data, mime=mime, timed=seconds is None)
        if seconds is None:
            # only the server could tell: a transcript of a recording past the cap is not used
            seconds = _longest(heard.seconds)
            self._check_length(seconds)
            if seconds is None:
                log.warning("media.length_unknown", mime=mime, size=len(data))
        if not heard.text:
            raise MediaError(
                "empty transcript",
                user_message="I couldn't make out any words in that recording.",
            )
        what = "voice note" if attachment.voice else f"audio {attachment.name or 'file'}"
        length = f" {spoken_length(seconds)}" if seconds is not None else ""
        return f"[{what}{length}, transcribed]", self._within_budget(heard.text)

    def _within_budget(self, words: str) -> str:
        """A transcript cut like a document past ``media.document_chars``, with a visible
        marker: ten minutes of speech are far less, but a server caught in a loop (whisper
        repeating a phrase) may answer megabytes."""
        kept, cut = budget(words, self.config.document_chars)
        if not cut:
            return kept
        return f"{kept}\n[… transcript cut here: {cut:,} more characters not shown]"

    def _check_length(self, seconds: float | None) -> None:
        limit = self.config.max_audio_seconds
        if seconds is not None and seconds > limit:
            raise MediaError(
                f"recording of {seconds:.0f} s",
                user_message=f"That recording is {spoken_length(seconds)} long; I listen to at"
                f" most {spoken_length(limit)}.",
            )

    async def _document(self, data: bytes, kind: Kind, attachment: Attachment) -> Document:
        name = attachment.name or ("document.pdf" if kind == "pdf" else "document.txt")
        chars = self.config.document_chars
        if kind == "pdf":
            return await self._pdf(data, name, chars)
        return read_text(data, name=name, chars=chars)

    async def _pdf(self, data: bytes, name: str, chars: int) -> Document:
        """The PDF read in a thread within ``media.timeout``. A thread cannot be stopped:
        after the time is up the turn goes on with one sentence, and pypdf goes on in its
        thread until it is done with the file (at most ``media.max_pdf_pages`` pages,
        holding its bytes until then). That thread is one of :data:`PDF_THREADS`, never
        one that embedding a question, resolving a host name or the disk needs."""
        limit = self.config.timeout
        started: list[bool] = []  # set by the thread that takes it up

        def read(data: bytes) -> Document:
            started.append(True)
            return read_pdf(data, name=name, chars=chars, max_pages=self.config.max_pdf_pages)

        try:
            async with asyncio.timeout(limit):
                return await PDF_POOL.run(read, data)
        except TimeoutError as exc:
            if not started:  # both threads were on other files the whole time
                raise MediaError(
                    f"PDF not started in {limit:g} s",
                    user_message=f"I was still reading other PDFs and never got to “{name}”;"
                    " please send it again in a minute.",
                ) from exc
            raise MediaError(
                f"PDF not read in {limit:g} s",
                user_message=f"“{name}” took too long to read, so I gave up on it; please send"
                " the part you mean as text.",
            ) from exc


def _longest(*lengths: float | None) -> float | None:
    """The longest of the lengths known (a length of 0 or less says nothing), else None."""
    known = [seconds for seconds in lengths if seconds is not None and seconds > 0]
    return max(known) if known else None


def _empty(name: str) -> MediaError:
    """A file of no bytes: not a blank document for the model to answer from nothing."""
    label = f"“{name}”" if name else "That file"
    return MediaError(
        "empty attachment", user_message=f"{label} is empty, so there is nothing in it to read."
    )


def _blind() -> MediaError:
    return MediaError("the chat model does not see pictures", user_message=NO_VISION)


def _unread_lines(failed: Sequence[_Unread], count: int) -> tuple[str, ...]:
    """One line for each reason some of a message's ``count`` files could not be used, in
    their order. A reason that names its file, or that is the message's only file's, is
    said as it is; so is one true of every file (a model that sees no pictures, for an
    album of them), once. Otherwise the line starts with the files it is about: their names,
    or their places for files of no name (an album's photos)."""
    reasons: dict[str, list[_Unread]] = {}
    for item in failed:
        reasons.setdefault(item.reason, []).append(item)
    lines: list[str] = []
    for reason, items in reasons.items():
        named = all(item.name and f"“{item.name}”" in reason for item in items)
        if count == 1 or len(items) == count or named:
            lines.append(reason)
            continue
        labels = ", ".join(
            f"“{item.name}”" if item.name else f"file {item.place} of {count}" for item in items
        )
        lines.append(f"{labels[0].upper()}{labels[1:]}: {reason}")
    return tuple(lines)


def _text(
    caption: str,
    pictures: Sequence[Picture],
    heard: Sequence[_Heard],
    documents: Sequence[Document],
    unread: Sequence[str] = (),
) -> str:
    """The turn's text: the pictures' note carries the caption; otherwise it comes first.
    What could not be used comes last, so the model knows a file is missing and why."""
    parts: list[str] = []
    if pictures:
        count = len(pictures)
        what = "picture" if count == 1 else f"{count} pictures"
        parts.append(f"[{what}: {caption}]" if caption else f"[{what}]")
    elif caption:
        parts.append(caption)
    parts.extend(f"{recording.note} {recording.words}" for recording in heard)
    parts.extend(document.for_model() for document in documents)
    parts.extend(f"[not read: {line}]" for line in unread)
    return "\n\n".join(parts)
