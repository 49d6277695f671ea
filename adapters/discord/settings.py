"""The ``[adapters.discord]`` config section, and pointing discord.py at its endpoints.

``api_base`` and ``gateway_url`` point discord.py somewhere other than discord.com (a
loopback server in tests). discord.py keeps both in class attributes
(``discord.http.Route.BASE``, ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``), so
setting them changes every Discord client in the process; they are only touched when
configured.
"""

from __future__ import annotations

import os

import discord
import yarl
from pydantic import Field, SecretStr, field_validator

from adapters.base import AdapterSettings
from bot.daemon.errors import ConfigError

__all__ = ["Settings", "apply_endpoints"]


class Settings(AdapterSettings):
    """``[adapters.discord]``: the bot token (direct or from ``token_env``), whether to
    register slash commands, and the endpoints for a Discord other than discord.com."""

    token: SecretStr | None = None
    token_env: str | None = "DISCORD_BOT_TOKEN"
    application_id: int | None = None
    sync_commands: bool = True
    api_base: str | None = None
    gateway_url: str | None = None
    connect_timeout: float = Field(30.0, gt=0)

    @field_validator("api_base")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value.rstrip("/") if value else value

    @field_validator("gateway_url")
    @classmethod
    def _ws_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("ws://", "wss://")):
            raise ValueError(f"{value!r} is not a ws(s) URL")
        return value

    def token_value(self) -> str:
        """The bot token, direct or from the environment variable ``token_env``."""
        if self.token is not None:
            value, key = self.token.get_secret_value(), "adapters.discord.token"
        elif self.token_env:
            value = os.environ.get(self.token_env, "")
            key = f"adapters.discord.token_env ({self.token_env})"
            if not value:
                raise ConfigError(f"{key}: environment variable is not set")
        else:
            raise ConfigError("adapters.discord.token: set token or token_env")
        if not value.strip():
            raise ConfigError(f"{key}: the bot token is empty")
        return value.strip()


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at ``api_base``/``gateway_url``: process-wide, only when configured."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)
