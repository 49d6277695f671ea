"""The ``[users.NAME]`` tables: each user's identities on the platforms, time zone, default
persona, whether they are an admin, the room notices go to, and the web console's password.

An identity is ``PLATFORM:ID`` (``telegram:123456``) and a notification room
``PLATFORM:ROOM``, the platform one of :data:`PLATFORMS`; a time zone is an IANA name.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from bot.persona.names import validate_name
from bot.setup.config_section import Section
from bot.web.passwords import is_password_hash

__all__ = ["PLATFORMS", "UserConfig"]

PLATFORMS = ("console", "matrix", "telegram", "discord", "nctalk")


class UserConfig(Section):
    identities: list[str] = Field(default_factory=list)
    timezone: str = "UTC"
    default_persona: str = "inara"
    admin: bool = False
    notification_room: str | None = None
    #: scrypt hash for signing in to the web console (`personad web password`)
    web_password: str | None = None

    @field_validator("web_password")
    @classmethod
    def _a_password_hash(cls, value: str | None) -> str | None:
        if value is not None and not is_password_hash(value):
            raise ValueError(
                "is not a hash `personad web password` prints (scrypt$16384$8$1$...):"
                " no password would match it"
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value

    @field_validator("identities")
    @classmethod
    def _identities(cls, values: list[str]) -> list[str]:
        for value in values:
            platform, sep, ident = value.partition(":")
            if not sep or not ident.strip():
                raise ValueError(f"{value!r} is not PLATFORM:ID (e.g. 'telegram:123456')")
            if platform not in PLATFORMS:
                raise ValueError(f"{value!r}: unknown platform {platform!r}")
        return values

    @field_validator("default_persona")
    @classmethod
    def _persona_name(cls, value: str) -> str:
        validate_name(value, "persona")
        return value

    @field_validator("notification_room")
    @classmethod
    def _room(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        platform, sep, room = value.partition(":")
        if not sep or platform not in PLATFORMS or not room:
            raise ValueError(f"{value!r} is not PLATFORM:ROOM (e.g. 'nctalk:abc123')")
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)
