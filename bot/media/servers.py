"""The OpenAI-compatible audio endpoints: speech to text and text to speech.

``POST {base_url}/audio/transcriptions`` takes a recording (multipart ``file`` and ``model``)
and answers ``{"text": ...}``, or with ``response_format`` ``verbose_json`` also the
recording's ``duration``: whisper.cpp's server, faster-whisper's, speaches, or a hosted one.
The file goes as ``voice.ogg``, ``voice.webm``, ``voice.m4a`` ... after the type its bytes
were found to be, since servers choose their decoder by the name's extension.
``POST {base_url}/audio/speech`` takes ``{"model", "input", "voice", "response_format"}``
and answers the sound: a local Piper or Kokoro server, or a hosted one.
Each is the backend of a model role (``llm.roles.transcribe`` and ``llm.roles.speech``) of
kind ``openai_compat``. A server that fails, refuses, takes longer than its ``timeout`` or
cuts its answer off is a :class:`~bot.daemon.errors.MediaError` naming what could not be
done. A speech server's refusal is named by its status alone: its body may quote the words it
was asked to speak (validation errors carry the request's input), and an answer said Off The
Record may be retried where no turn's log context withholds them.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp
import structlog

from adapters.base import Speech
from bot.daemon.errors import ConfigError, MediaError
from bot.daemon.logs import mask_secrets, register_secret
from bot.media.audio import duration_of
from bot.media.kinds import audio_suffix, sniff
from bot.setup.config_llm import BackendConfig

__all__ = ["AudioServer", "Speaker", "Transcriber", "Transcript"]

log = structlog.get_logger(__name__)

#: the most bytes of sound a speech server may answer with (a long answer, spoken)
MAX_SPEECH_BYTES = 30_000_000
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Transcript:
    """What a transcription server heard: the words and, when it said (``verbose_json``),
    the recording's length in seconds."""

    text: str
    seconds: float | None = None


class AudioServer:
    """One OpenAI-compatible audio server, reached with its own HTTP session."""

    #: whether an error's body is worth naming: not when it may quote what was said
    body_in_errors = True

    what = "audio"

    def __init__(self, role: str, spec: BackendConfig, env: Mapping[str, str]) -> None:
        if not spec.base_url:
            raise ConfigError(
                f"the {role} server has no base_url: set it in its llm.backends entry,"
                " e.g. http://127.0.0.1:8080/v1"
            )
        self.role = role
        self.model = spec.model
        self.url = spec.base_url.rstrip("/")
        self.timeout = spec.timeout
        key = env.get(spec.api_key_env, "").strip() if spec.api_key_env else ""
        register_secret(key)
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(headers=self._headers)
        return self._session

    def _failed(self, why: str) -> MediaError:
        log.warning("media.server_failed", role=self.role, url=self.url, error=why)
        return MediaError(f"{self.role} server {self.url}: {why}", user_message=self.sorry)

    @property
    def sorry(self) -> str:
        return f"The {self.what} server is not working right now, so I couldn't do that."

    async def _post(
        self, path: str, *, handled: tuple[int, ...] = (), **kwargs: object
    ) -> tuple[bytes, str]:
        """The body and content type of the answer to a POST of ``path``; an HTTP status in
        ``handled`` is raised as :class:`_Refused` for the caller to deal with (no warning)."""
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client().post(f"{self.url}{path}", **kwargs) as response:  # type: ignore[arg-type]
                    if response.status != 200:
                        why = f"HTTP {response.status}"
                        if self.body_in_errors:
                            detail = mask_secrets(await response.text(errors="replace"))
                            why = f"{why} {detail[:200]}"
                        if response.status in handled:
                            raise _Refused(
                                f"{self.role} server {self.url}: {why}",
                                user_message=self.sorry,
                                status=response.status,
                            )
                        raise self._failed(why)
                    return await self._body(response), response.content_type
        except TimeoutError as exc:
            raise self._failed(f"no answer in {self.timeout:.0f} s") from exc
        except aiohttp.ClientError as exc:
            raise self._failed(type(exc).__name__) from exc

    async def _body(self, response: aiohttp.ClientResponse) -> bytes:
        """The whole body of ``response``, read to its end: a long answer (minutes of
        speech) comes in many reads, and one cut off mid-way is a failure, never used as
        if it were whole."""
        body = bytearray()
        async for chunk in response.content.iter_chunked(_CHUNK):
            body += chunk
            if len(body) > MAX_SPEECH_BYTES:
                raise self._failed("answer too long")
        return bytes(body)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class _Refused(MediaError):
    """A media server refused a request with an HTTP status its caller handles itself."""

    def __init__(self, message: str, *, user_message: str, status: int) -> None:
        super().__init__(message, user_message=user_message)
        self.status = status


class Transcriber(AudioServer):
    what = "transcription"

    def __init__(self, role: str, spec: BackendConfig, env: Mapping[str, str]) -> None:
        super().__init__(role, spec, env)
        #: whether the server may give ``verbose_json``: False once it refused it, so a
        #: recording is not uploaded twice each time
        self._verbose = True

    @property
    def sorry(self) -> str:
        return (
            "The transcription server is not working right now, so I couldn't hear your voice"
            " note; please try again later or type it."
        )

    async def transcribe(self, audio: bytes, *, mime: str, timed: bool = False) -> Transcript:
        """The words of ``audio`` (of the sniffed type ``mime``); a server answering plain
        text (``text/plain``) is read as the words, any other answer must be JSON (a web
        page from a wrong ``base_url`` is a failure, not words). The sender's file name is
        not sent. ``timed`` asks for ``verbose_json``, whose ``duration`` is the recording's
        length as the server heard it; a server that refuses that format (HTTP 400 or 422:
        some hosted models answer only ``json``) is asked once more for ``json``, and from
        then on only for ``json``: the length stays unknown."""
        try:
            body, content_type = await self._ask(
                audio, mime, "verbose_json" if timed and self._verbose else "json"
            )
        except _Refused as exc:
            if self._verbose:
                log.info(
                    "media.verbose_json_refused", role=self.role, url=self.url, status=exc.status
                )
                self._verbose = False
            body, content_type = await self._ask(audio, mime, "json")
        if content_type == "text/plain":
            return Transcript(body.decode("utf-8", errors="replace").strip())
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise self._failed("an answer that is not JSON") from exc
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(text, str):
            raise self._failed("an answer without text")
        return Transcript(text.strip(), _seconds(data.get("duration")))

    async def _ask(self, audio: bytes, mime: str, answer_format: str) -> tuple[bytes, str]:
        form = aiohttp.FormData()
        form.add_field("file", audio, filename=f"voice.{audio_suffix(mime)}", content_type=mime)
        form.add_field("model", self.model)
        form.add_field("response_format", answer_format)
        handled = (400, 422) if answer_format == "verbose_json" else ()
        return await self._post("/audio/transcriptions", handled=handled, data=form)


def _seconds(value: object) -> float | None:
    """A length in seconds as a server wrote it; None for anything that is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


class Speaker(AudioServer):
    what = "speech"
    body_in_errors = False  # it may quote the answer it was asked to speak

    def __init__(
        self, role: str, spec: BackendConfig, env: Mapping[str, str], *, voice: str
    ) -> None:
        super().__init__(role, spec, env)
        self.voice = voice

    async def speak(self, text: str) -> Speech:
        """``text`` spoken, as Ogg Opus where the server can (``response_format`` opus)."""
        body, _ = await self._post(
            "/audio/speech",
            json={
                "model": self.model,
                "input": text,
                "voice": self.voice,
                "response_format": "opus",
            },
        )
        found = sniff(body, declared="audio/ogg", voice=True)
        if found.kind != "audio":
            raise self._failed(f"an answer that is not sound ({found.mime})")
        suffix = audio_suffix(found.mime)
        return Speech(body, found.mime, duration_of(body, found.mime), f"answer.{suffix}")
