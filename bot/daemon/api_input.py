"""Strict reading of the HTTP API's inputs: query strings and JSON bodies.

Every field is checked for presence, type and shape before a handler sees it, and a wrong
one is answered ``400`` with ``{"error": "<field>: <what is wrong>", "field": "<field>"}``.
Nothing is converted on the way: ``{"user": null}`` is refused, not turned into ``"None"``;
a number or a list where text belongs is refused; a key the endpoint does not know is
refused rather than ignored, so a typo is seen at once.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from aiohttp import web

from bot.daemon.errors import NameRejected
from bot.persona.names import validate_name
from bot.persona.sessionlog.search import MAX_QUERY
from bot.setup.config_users import PLATFORMS

__all__ = ["ROOM_PLATFORMS", "Field", "bad_request", "json_fields", "query_fields"]

#: the platforms a turn can be logged under: those of the users' identities, and the web
#: console's (it signs a user in rather than naming an identity)
ROOM_PLATFORMS = frozenset((*PLATFORMS, "web"))


@dataclass(frozen=True, slots=True)
class Field:
    """One expected input: its ``key``, its ``kind`` (``"name"``: a user, persona or template
    name, checked like a folder name; ``"text"``: free text; ``"room"``: ``PLATFORM:ID``, the
    platform one of :data:`ROOM_PLATFORMS`), and whether it may be left out (or, in JSON, be
    ``null``)."""

    key: str
    kind: Literal["name", "text", "room"] = "name"
    optional: bool = False


def bad_request(field: str, problem: str) -> web.HTTPBadRequest:
    """The 400 answer for ``field``; raise it."""
    body = {"error": f"{field}: {problem}", "field": field}
    return web.HTTPBadRequest(text=json.dumps(body), content_type="application/json")


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _checked(field: Field, value: object) -> str:
    if not isinstance(value, str):
        raise bad_request(field.key, f"must be a string, not {_type_name(value)}")
    if field.kind == "name":
        try:
            return validate_name(value, field.key)
        except NameRejected as exc:
            raise bad_request(field.key, exc.user_message) from exc
    if not value.strip():
        raise bad_request(field.key, "must not be empty")
    # the longest free-text field is a search query's: /search in chat has the same limit
    if len(value) > MAX_QUERY:
        raise bad_request(field.key, f"is {len(value)} characters long; the limit is {MAX_QUERY}")
    if field.kind == "room":
        # a room that is no room matches no turn: the answer would be an empty list, as if
        # nothing had been said there
        platform, _, room = value.partition(":")
        if not platform or not room.strip():
            raise bad_request(field.key, "must be PLATFORM:ID, e.g. matrix:!abc:example.org")
        if platform not in ROOM_PLATFORMS:
            known = ", ".join(sorted(ROOM_PLATFORMS))
            raise bad_request(
                field.key,
                f"unknown platform {platform!r}; PLATFORM:ID with PLATFORM one of {known}",
            )
    return value


def _unknown(given: Collection[str], fields: tuple[Field, ...]) -> None:
    known = {field.key for field in fields}
    for key in given:
        if key not in known:
            expected = ", ".join(sorted(known))
            raise bad_request(key, f"unknown field (expected: {expected})")


def _collect(values: Mapping[str, object], fields: tuple[Field, ...]) -> dict[str, str]:
    """The checked fields; an optional one left out (or null) is absent from the result."""
    out: dict[str, str] = {}
    for field in fields:
        value = values.get(field.key)
        if field.key not in values or (value is None and field.optional):
            if not field.optional:
                raise bad_request(field.key, "is required")
            continue
        out[field.key] = _checked(field, value)
    return out


def query_fields(request: web.Request, *fields: Field) -> dict[str, str]:
    """The query string's fields, each given at most once and nothing else."""
    query = request.query
    _unknown(query.keys(), fields)
    for key in set(query.keys()):
        if len(query.getall(key)) > 1:
            raise bad_request(key, "is given more than once")
    return _collect(query, fields)


async def json_fields(request: web.Request, *fields: Field) -> dict[str, str]:
    """The fields of a JSON object body, and nothing else."""
    try:
        body: Any = await request.json()
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: nested deeper than the parser goes, which no real request is
        raise bad_request("body", "must be JSON (an object of plain fields)") from exc
    if not isinstance(body, dict):
        raise bad_request("body", f"must be a JSON object, not {_type_name(body)}")
    _unknown(body.keys(), fields)
    return _collect(body, fields)
