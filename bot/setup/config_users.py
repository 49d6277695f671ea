"""The ``[users.NAME]`` tables: each user's identities on the platforms, time zone, default
persona, whether they are an admin, the room notices go to, and the web console's password.

An identity is ``PLATFORM:ID`` (``telegram:123456``) and a notification room
``PLATFORM:ROOM``, the platform one of :data:`PLATFORMS`; a time zone is an IANA name. An ID
has the form its platform gives a sender (a Telegram or Discord numeric user id, a full Matrix
id): one in another form (``telegram:@scott``) would never match, and everything that person
says would be dropped as a stranger's.
"""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from bot.persona.names import validate_name
from bot.setup.config_section import Section
from bot.web.passwords import is_password_hash

__all__ = ["PLATFORMS", "UserConfig", "identity_problem"]

PLATFORMS = ("console", "matrix", "telegram", "discord", "nctalk")


def identity_problem(value: str) -> str | None:
    """What is wrong with the identity ``value`` (with what to write), or None."""
    platform, sep, ident = value.partition(":")
    if not sep or not ident.strip():
        return f"{value!r} is not PLATFORM:ID (e.g. 'telegram:123456')"
    if platform not in PLATFORMS:
        return f"{value!r}: unknown platform {platform!r}"
    wrong = _wrong_form(platform, ident)
    return f"{value!r}: {wrong}" if wrong else None


def _wrong_form(platform: str, ident: str) -> str | None:
    """What is wrong with ``ident`` as a sender's id on ``platform``, or None when it has the
    form the platform's messages carry."""
    if platform == "telegram" and not re.fullmatch(r"-?\d+", ident):
        return (
            "a Telegram identity is the numeric user id (e.g. 'telegram:123456'), not the"
            " @username; @userinfobot tells yours"
        )
    if platform == "discord" and not ident.isdecimal():
        return (
            "a Discord identity is the numeric user id (Developer Mode, then Copy User ID),"
            " e.g. 'discord:123456789012345678'"
        )
    if platform == "matrix" and not re.fullmatch(r"@[^:\s]+:\S+", ident):
        name = ident.lstrip("@")
        meant = f"@{name}" if ":" in name else f"@{name}:example.org"
        return f"a Matrix identity is the full user id, e.g. 'matrix:{meant}'"
    return None


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
            problem = identity_problem(value)
            if problem:
                raise ValueError(problem)
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
