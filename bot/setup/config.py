"""The configuration's typed settings, validated once at start.

Each section of the TOML file is one model: the ``[llm]`` section's are in
:mod:`bot.setup.config_llm`, the ``[users.NAME]`` tables' in :mod:`bot.setup.config_users`, the
rest here, beside :class:`Config`, the whole file. :mod:`bot.setup.config_loader` reads the
file and the environment into them. Every model forbids unknown keys
(:mod:`bot.setup.config_section`), so a typo is an error that names its key rather than a
setting silently ignored.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from bot.setup.config_llm import LLMConfig
from bot.setup.config_section import Section
from bot.setup.config_users import UserConfig

__all__ = [
    "DEFAULT_LIMITS",
    "Config",
    "DaemonConfig",
    "DistillConfig",
    "HonchoConfig",
    "HttpConfig",
    "IdentityConfig",
    "MediaConfig",
    "MemoryConfig",
    "PromptConfig",
    "default_data_dir",
]

#: characters each prompt file may bring before it is cut (seed 001's defaults; 4000 elsewhere)
DEFAULT_LIMITS: dict[str, int] = {
    "IDENTITY.md": 4000,
    "SOUL.md": 6000,
    "VOICE.md": 6000,
    "PERSONA.md": 6000,
    "PROTOCOLS.md": 4000,
    "USER.md": 4000,
    "AGENTS.md": 4000,
    "MEMORY.md": 4000,
    "MEMORY_SHORT.md": 12000,
    "MEMORY_MID.md": 8000,
    "MEMORY_LONG.md": 8000,
    "REMINDERS.md": 4000,
    "CONTEXT_TIERS.md": 4000,
    "SCRATCH.md": 4000,
    "TASKS.json": 4000,
}


class DaemonConfig(Section):
    data_dir: Path | None = None
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    max_message_chars: int = Field(8000, ge=1, le=1_000_000)
    idle_minutes: float = Field(60.0, gt=0)
    history_messages: int = Field(40, ge=2, le=10_000)
    stream_edit_seconds: float = Field(1.0, ge=0.1)
    #: each user's messages waiting at once in one room (a flood cap far beyond typing): more,
    #: and the oldest are skipped, with one reply saying how many
    user_queue: int = Field(50, ge=1, le=1000)
    #: each user's sustained turn rate, and how many turns may come at once (a token bucket);
    #: messages sent while a turn waits or runs are answered together by the next one
    user_rate_per_minute: float = Field(20.0, gt=0, le=100_000)
    user_burst: int = Field(10, ge=1, le=100_000)
    #: no longer used (the kernel places the daemon's threads); accepted so that a config
    #: written for an older version still starts, with a warning from check-config
    one_core: bool | None = None


class HttpConfig(Section):
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    token_env: str = "PERSONAD_API_TOKEN"
    #: Host headers the web console answers (empty: 127.0.0.1, localhost, [::1] on its port)
    allowed_hosts: list[str] = Field(default_factory=list)
    #: the console's address as people open it, for `personad web login` links
    public_url: str | None = None
    #: mark the session cookie Secure (set it when a TLS proxy is in front)
    secure_cookies: bool = False
    #: proxies whose X-Forwarded-Proto is believed
    trusted_proxies: list[str] = Field(default_factory=lambda: ["127.0.0.1", "::1"])


class PromptConfig(Section):
    default_tier: int = Field(2, ge=1, le=4)
    limits: dict[str, int] = Field(default_factory=dict)

    def limit(self, filename: str) -> int:
        return self.limits.get(filename, DEFAULT_LIMITS.get(filename, 4000))


class MediaConfig(Section):
    """Pictures, voice notes and documents: caps, and what is done with them."""

    #: the most bytes fetched of one attachment, by kind (decided from the bytes)
    max_image_bytes: int = Field(20_000_000, ge=1)
    max_audio_bytes: int = Field(25_000_000, ge=1)
    max_document_bytes: int = Field(10_000_000, ge=1)
    #: a picture with more pixels than this is refused unread (a decompression bomb)
    max_image_pixels: int = Field(40_000_000, ge=1)
    #: pictures are scaled down to this long edge before the model sees them
    image_long_edge: int = Field(1568, ge=64)
    max_audio_seconds: float = Field(600.0, gt=0)
    max_pdf_pages: int = Field(50, ge=1)
    #: the characters of one document (or transcript) the model reads; beyond them a
    #: visible cut marker
    document_chars: int = Field(40_000, ge=100)
    max_attachments: int = Field(10, ge=1, le=100)
    #: seconds for each download and for reading each PDF; the transcription and speech
    #: servers wait their own backend's ``timeout`` instead
    timeout: float = Field(60.0, gt=0)
    #: quote a voice note's transcript above the answer
    echo_transcript: bool = False
    #: speak answers as well as writing them, in rooms that did not say (``/voice on|off``)
    voice_replies: bool = False
    #: the speech server's voice name
    speech_voice: str = "alloy"


class HonchoConfig(Section):
    base_url: str = "http://127.0.0.1:8000"
    workspace: str = "personad"
    api_key_env: str = "HONCHO_API_KEY"
    timeout: float = Field(10.0, gt=0)
    max_retries: int = Field(1, ge=0, le=10)


class MemoryConfig(Section):
    backend: Literal["sqlite-fts5", "holographic", "honcho", "none"] = "sqlite-fts5"
    recall_limit: int = Field(6, ge=0, le=50)
    compact_threshold: float = Field(0.72, gt=0.1, lt=1.0)
    #: auto: multilingual-e5-small if its package is installed, else MiniLM if its is
    embeddings: Literal["auto", "e5", "minilm", "off"] = "auto"
    honcho: HonchoConfig = Field(default_factory=HonchoConfig)


class DistillConfig(Section):
    auto: bool = True
    short: bool = True
    mid: bool = True
    long: bool = False
    budget_short: int = Field(3000, ge=100)
    budget_mid: int = Field(2000, ge=100)
    budget_long: int = Field(2000, ge=100)


class IdentityConfig(Section):
    """The identity observer: VOICE.md and PERSONA.md learn from how the user talks."""

    enabled: bool = True
    #: sightings an inferred trait needs before it is applied, by kind (explicit requests: 1)
    thresholds: dict[str, int] = Field(default_factory=dict)

    @field_validator("thresholds")
    @classmethod
    def _known_kinds(cls, value: dict[str, int]) -> dict[str, int]:
        from bot.persona.identity.kinds import resolve_thresholds

        resolve_thresholds(value)
        return value


class Config(Section):
    daemon: DaemonConfig = Field(default_factory=DaemonConfig)
    http: HttpConfig = Field(default_factory=HttpConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    distill: DistillConfig = Field(default_factory=DistillConfig)
    identity: IdentityConfig = Field(default_factory=IdentityConfig)
    media: MediaConfig = Field(default_factory=MediaConfig)
    users: dict[str, UserConfig] = Field(default_factory=dict)
    adapters: dict[str, dict[str, Any]] = Field(default_factory=dict)
    source: Path | None = Field(None, exclude=True)

    @property
    def data_dir(self) -> Path:
        return self.daemon.data_dir or default_data_dir()

    def user_for_identity(self, identity: str) -> str | None:
        """The configured user owning ``identity``, read from the users as they are now
        (``/reload`` replaces them, ``personad chat`` adds its terminal's identity): a
        household's handful of identities is quicker to look through than to index."""
        for name, user in self.users.items():
            if identity in user.identities:
                return name
        return None


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "personad"
