"""A loopback OpenAI-compatible audio server: ``POST /v1/audio/transcriptions`` and
``POST /v1/audio/speech``, as whisper.cpp's server, faster-whisper's and Piper/Kokoro
front-ends answer them.

Transcription takes multipart ``file`` and ``model`` and answers ``{"text": ...}`` (the
``transcript`` a test sets, or ``fail`` as an HTTP status, or ``delay`` seconds first); asked
for ``response_format`` ``verbose_json`` it adds the ``duration`` a test sets (None: it
leaves it out);
speech takes JSON ``{"model", "input", "voice", "response_format"}`` and answers the bytes of
``speech_audio`` (a real Ogg Opus file by default). Everything received is kept::

    async with FakeAudio() as fake:
        fake.transcript = "remind me to buy flour"
        ... fake.heard[0].audio, fake.spoken[0]["input"]
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.fakes.lifecycle import ServerContext

__all__ = ["VOICE_OGG", "FakeAudio", "Heard"]

#: a real voice note: espeak-ng's "Remind me to buy flour and eggs tomorrow morning.",
#: 2.9 s of Ogg Opus (opusenc)
VOICE_OGG = Path(__file__).parent.parent / "data" / "media" / "voice.ogg"


@dataclass
class Heard:
    audio: bytes
    filename: str
    content_type: str
    model: str
    response_format: str = ""


class FakeAudio(ServerContext):
    def __init__(self, *, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.transcript = "remind me to buy flour and eggs tomorrow morning"
        #: seconds a ``verbose_json`` answer says the recording lasts (VOICE_OGG's)
        self.duration: float | None = 2.9
        self.speech_audio = VOICE_OGG.read_bytes()
        #: an HTTP status each endpoint answers instead (0: answer)
        self.fail = 0
        self.delay = 0.0
        self.heard: list[Heard] = []
        self.spoken: list[dict[str, Any]] = []
        #: the response formats the transcription endpoint takes
        self.formats = {"json", "text", "verbose_json"}
        #: transcription requests received, answered or refused
        self.transcription_asked = 0
        #: speech requests received, answered or failed
        self.speech_asked = 0
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _refused(self, request: web.Request) -> web.Response | None:
        if self.api_key is not None and request.headers.get("Authorization") != (
            f"Bearer {self.api_key}"
        ):
            return web.json_response({"error": {"message": "bad key"}}, status=401)
        if self.fail:
            return web.json_response({"error": {"message": "server error"}}, status=self.fail)
        return None

    async def _transcriptions(self, request: web.Request) -> web.Response:
        await asyncio.sleep(self.delay)
        self.transcription_asked += 1
        refused = self._refused(request)
        if refused is not None:
            return refused
        form = await request.post()
        upload = form.get("file")
        if not isinstance(upload, web.FileField) or "model" not in form:
            return web.json_response(
                {"error": {"message": "file and model are required"}}, status=400
            )
        answer_format = str(form.get("response_format", "json"))
        if answer_format not in self.formats:  # as OpenAI's gpt-4o transcribe models answer
            return web.json_response(
                {"error": {"message": f"response_format '{answer_format}' is not compatible"}},
                status=400,
            )
        self.heard.append(
            Heard(
                upload.file.read(),
                upload.filename,
                upload.content_type,
                str(form["model"]),
                answer_format,
            )
        )
        if answer_format != "verbose_json":
            return web.json_response({"text": self.transcript})
        verbose: dict[str, Any] = {"task": "transcribe", "language": "en", "segments": []}
        if self.duration is not None:
            verbose["duration"] = self.duration
        return web.json_response({**verbose, "text": self.transcript})

    async def _speech(self, request: web.Request) -> web.Response:
        await asyncio.sleep(self.delay)
        self.speech_asked += 1
        refused = self._refused(request)
        if refused is not None:
            return refused
        body = await request.json()
        if not isinstance(body, dict) or not body.get("input") or not body.get("model"):
            return web.json_response(
                {"error": {"message": "model and input are required"}}, status=400
            )
        self.spoken.append(body)
        return web.Response(body=self.speech_audio, content_type="audio/ogg")

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.add_routes(
            [
                web.post("/v1/audio/transcriptions", self._transcriptions),
                web.post("/v1/audio/speech", self._speech),
            ]
        )
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
