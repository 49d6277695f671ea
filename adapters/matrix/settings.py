"""``[adapters.matrix]``: the bot's Matrix account and how the adapter behaves.

A disabled section needs nothing; an enabled one needs the homeserver URL, the full user id
and a password or an access token, each given directly or, better, through the name of an
environment variable (``password_env``, ``access_token_env``) read at start.
"""

from __future__ import annotations

import os

from pydantic import Field, SecretStr, model_validator

from adapters.base import AdapterSettings
from bot.daemon.errors import ConfigError

__all__ = ["Settings"]


class Settings(AdapterSettings):
    """``[adapters.matrix]``: the bot's account on a homeserver."""

    homeserver: str = ""
    user_id: str = ""
    password: SecretStr | None = None
    password_env: str | None = None
    access_token: SecretStr | None = None
    access_token_env: str | None = None
    device_name: str = "personad"
    e2e: bool = False
    stream_edits: bool = True
    sync_timeout_ms: int = Field(30_000, ge=0, le=300_000)
    #: a sync unanswered this long past its long poll counts as stalled and is retried
    sync_grace_seconds: float = Field(15.0, gt=0, le=300)
    allowed_inviters: list[str] = Field(default_factory=list)
    max_message_chars: int = Field(16_000, ge=500, le=30_000)
    backoff_max_seconds: float = Field(60.0, gt=0)
    first_sync_wait_seconds: float = Field(30.0, ge=0)
    drain_seconds: float = Field(10.0, ge=0)

    @model_validator(mode="after")
    def _complete(self) -> Settings:
        if not self.enabled:
            return self
        if not self.homeserver.startswith(("http://", "https://")):
            raise ValueError("homeserver must be a URL such as https://matrix.example.org")
        if not (self.user_id.startswith("@") and ":" in self.user_id):
            raise ValueError("user_id must be a full Matrix id such as @inara:example.org")
        if not (self.password or self.password_env or self.access_token or self.access_token_env):
            raise ValueError("password_env is needed (or password, access_token_env, access_token)")
        return self

    def secret(self, name: str) -> str | None:
        """The direct value of ``name`` or the environment variable named by ``name_env``."""
        direct = getattr(self, name)
        if isinstance(direct, SecretStr) and direct.get_secret_value():
            return direct.get_secret_value()
        variable = getattr(self, f"{name}_env")
        if not variable:
            return None
        value = os.environ.get(variable)
        if not value:
            raise ConfigError(
                f"adapters.matrix.{name}_env: environment variable {variable} is not set"
            )
        return value
