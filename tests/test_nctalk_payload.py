"""Reading Talk's Activity Streams payloads: placeholders, mentions, shapes, actors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.base import Incoming
from adapters.nctalk.payload import (
    Ignored,
    PayloadError,
    mentions_bot,
    parse_event,
    render_message,
)

# The sample chat message from Talk's docs/bots.md (only the whitespace differs).
DOCS_SAMPLE = (
    r'{"type": "Create", "actor": {"type": "Person", "id": "users/ada-lovelace",'
    r' "name": "Ada Lovelace"}, "object": {"type": "Note", "id": "1567", "name": "message",'
    r' "content": "{\"message\":\"hi {mention-call1} !\",\"parameters\":'
    r"{\"mention-call1\":{\"type\":\"call\",\"id\":\"n3xtc10ud\",\"name\":"
    r"\"world\",\"call-type\":\"group\",\"icon-url\":\"https:\\/\\/nextcloud.local"
    r'\\/ocs\\/v2.php\\/apps\\/spreed\\/api\\/v1\\/room\\/n3xtc10ud\\/avatar\"}}}",'
    r' "mediaType": "text/markdown"}, "target": {"type": "Collection", "id": "n3xtc10ud",'
    r' "name": "world"}}'
)


def _message(text: str, parameters: Any = None, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "type": "Create",
        "actor": {"type": "Person", "id": "users/scott", "name": "Scott"},
        "object": {
            "type": "Note",
            "id": 12,
            "name": "message",
            "content": json.dumps({"message": text, "parameters": parameters or []}),
        },
        "target": {"type": "Collection", "id": "room", "name": "Room"},
    }
    payload.update(changes)
    return payload


def _incoming(payload: Any, **kwargs: Any) -> Incoming:
    event = parse_event(payload, **kwargs)
    assert isinstance(event, Incoming), event
    return event


def test_the_documented_sample() -> None:
    event = _incoming(json.loads(DOCS_SAMPLE))
    assert event.sender == "ada-lovelace"
    assert event.sender_name == "Ada Lovelace"
    assert event.room == "n3xtc10ud"
    assert event.event_id == "1567"
    assert event.text == "hi @world !"
    assert not event.is_direct and not event.addressed


def test_numeric_message_id_becomes_a_string() -> None:
    assert _incoming(_message("x")).event_id == "12"


def test_unknown_placeholders_stay_as_written() -> None:
    rendered = render_message("{a} and {b} and {}", {"a": {"type": "highlight", "name": "A"}})
    assert rendered.text == "A and {b} and {}"


def test_file_caption_is_the_text_and_the_file_an_attachment() -> None:
    rendered = render_message("look at this", {"file": {"type": "file", "name": "x.pdf"}})
    assert rendered.text == "look at this"
    assert [(a.name, a.size) for a in rendered.files] == [("x.pdf", None)]


@pytest.mark.parametrize(
    ("text", "addressed", "rest"),
    [
        ("@inara hello", True, "hello"),
        ("Inara: hello", True, "hello"),
        ("inara, hello", True, "hello"),
        ("so what, @INARA?", True, "so what, @INARA?"),
        ("inarable hello", False, "inarable hello"),
        ("@inarax hello", False, "@inarax hello"),
        ("email me at x@inara.org", False, "email me at x@inara.org"),
        ("hello", False, "hello"),
    ],
)
def test_mention_detection(text: str, addressed: bool, rest: str) -> None:
    assert mentions_bot(render_message(text, {}), "inara") == (addressed, rest)


def test_mention_chip_by_id_anywhere_in_the_text() -> None:
    params = {"mention-user1": {"type": "user", "id": "inara", "name": "Persona Bot"}}
    rendered = render_message("thanks {mention-user1}", params)
    assert mentions_bot(rendered, "inara") == (True, "thanks @Persona Bot")


def test_no_mention_name_means_never_addressed_in_groups() -> None:
    assert mentions_bot(render_message("@inara hi", {}), "") == (False, "@inara hi")


def test_direct_rooms_are_always_addressed() -> None:
    event = _incoming(_message("hi"), direct_rooms=frozenset({"room"}))
    assert event.is_direct and event.addressed


@pytest.mark.parametrize("kind", ["Join", "Leave", "Like", "Undo", "Activity", "Update"])
def test_other_activity_types_are_ignored(kind: str) -> None:
    assert isinstance(parse_event(_message("x", type=kind)), Ignored)


def test_system_message_names_are_ignored() -> None:
    payload = _message("x")
    payload["object"]["name"] = "call_started"
    assert isinstance(parse_event(payload), Ignored)


def test_empty_name_without_a_file_is_ignored() -> None:
    payload = _message("x")
    payload["object"]["name"] = ""
    assert isinstance(parse_event(payload), Ignored)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: p.pop("actor"),
        lambda p: p["actor"].update(id="scott"),
        lambda p: p["actor"].update(id="users/"),
        lambda p: p["object"].update(content="not json"),
        lambda p: p["object"].update(content=json.dumps({"parameters": {}})),
        lambda p: p["object"].update(content=json.dumps({"message": "x", "parameters": 3})),
        lambda p: p["object"].pop("id"),
        lambda p: p["target"].update(id=""),
        lambda p: p.update(type=None),
        lambda p: p["object"].update(id=True),
    ],
)
def test_malformed_shapes_raise(mutate: Any) -> None:
    payload = _message("x")
    mutate(payload)
    with pytest.raises(PayloadError):
        parse_event(payload)


def test_non_object_payload_raises() -> None:
    with pytest.raises(PayloadError):
        parse_event(["Create"])


def test_bots_are_ignored_and_guests_keep_their_prefix() -> None:
    assert isinstance(parse_event(_message("x", actor={"id": "bots/bot-1"})), Ignored)
    guest = _incoming(_message("x", actor={"id": "emails/abc", "name": "scott"}))
    assert guest.sender == "emails/abc"
    assert guest.identity != "nctalk:scott"
