"""Reading Matrix events and building message contents, without a homeserver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from adapters.base import AdapterContext, Incoming
from adapters.matrix.adapter import Settings, create
from adapters.matrix.events import BotIdentity, find_mention, parse_event, strip_reply_fallback
from adapters.matrix.render import (
    MAX_CONTENT_BYTES,
    ReplyTarget,
    chunks_that_fit,
    content_bytes,
    edit_content,
    message_content,
)
from bot.daemon.errors import AdapterError, ConfigError
from tests.fakes.state import MemoryState

BOT = BotIdentity("@inara:example.org", {"Inara"})


def event(
    content: dict[str, Any], event_type: str = "m.room.message", **extra: Any
) -> dict[str, Any]:
    return {
        "type": event_type,
        "event_id": "$e1",
        "sender": "@scott:example.org",
        "content": content,
        "origin_server_ts": 1,
        **extra,
    }


def text(body: str, **content: Any) -> dict[str, Any]:
    return event({"msgtype": "m.text", "body": body, **content})


def test_plain_text() -> None:
    message = parse_event(text("hello"))
    assert message is not None
    assert (message.event_id, message.sender, message.kind, message.text) == (
        "$e1",
        "@scott:example.org",
        "text",
        "hello",
    )


def test_a_message_keeps_when_it_was_sent() -> None:
    stamped = event({"msgtype": "m.text", "body": "hi"}, origin_server_ts=1_700_000_000_500)
    message = parse_event(stamped)
    assert message is not None and message.sent_at == 1_700_000_000.5
    unstamped = parse_event(event({"msgtype": "m.text", "body": "hi"}, origin_server_ts="x"))
    assert unstamped is not None and unstamped.sent_at is None


@pytest.mark.parametrize("msgtype", ["m.image", "m.file", "m.audio", "m.video"])
def test_media_are_attachments(msgtype: str) -> None:
    message = parse_event(event({"msgtype": msgtype, "body": "x.bin", "url": "mxc://a/b"}))
    assert message is not None and message.kind == "attachment"


def test_sticker_is_an_attachment_and_encrypted_is_other() -> None:
    sticker = parse_event(event({"body": "wave", "url": "mxc://a/b"}, "m.sticker"))
    assert sticker is not None and sticker.kind == "attachment"
    secret = parse_event(
        event({"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "x"}, "m.room.encrypted")
    )
    assert secret is not None and secret.kind == "other"


@pytest.mark.parametrize(
    "source",
    [
        event({"msgtype": "m.notice", "body": "another bot"}),
        event({"membership": "join"}, "m.room.member", state_key="@scott:example.org"),
        event(
            {"m.relates_to": {"rel_type": "m.annotation", "event_id": "$x", "key": "👍"}},
            "m.reaction",
        ),
        text(
            "* fixed",
            **{
                "m.new_content": {"msgtype": "m.text", "body": "fixed"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": "$old"},
            },
        ),
        {"type": "m.room.message", "content": {"body": "no id"}},
        event("not a dict"),  # type: ignore[arg-type]
    ],
)
def test_events_nobody_answers(source: dict[str, Any]) -> None:
    assert parse_event(source) is None


def test_reply_fallback_is_removed() -> None:
    body = "> <@inara:example.org> Earlier answer\n> second line\n\nMy actual question"
    html = "<mx-reply><blockquote>quoted</blockquote></mx-reply>My actual question"
    message = parse_event(
        text(
            body,
            format="org.matrix.custom.html",
            formatted_body=html,
            **{"m.relates_to": {"m.in_reply_to": {"event_id": "$bot"}}},
        )
    )
    assert message is not None
    assert message.text == "My actual question" and message.reply_to == "$bot"
    assert message.formatted_body == "My actual question"
    # quoting is not a reply: the text stays whole
    assert strip_reply_fallback("plain\n> not a fallback") == "plain\n> not a fallback"
    # the reply fallback names the bot, but is not a mention once stripped
    assert find_mention(message, BOT) == (False, "My actual question")


def test_thread_messages_keep_their_root() -> None:
    relation = {
        "rel_type": "m.thread",
        "event_id": "$root",
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": "$latest"},
    }
    message = parse_event(text("in thread", **{"m.relates_to": relation}))
    assert message is not None and message.thread_root == "$root" and message.reply_to is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Inara: !otr on", "!otr on"),
        ("inara, what time is it?", "what time is it?"),
        ("@inara:example.org /status", "/status"),
        ("@inara tell me", "tell me"),
        ("What do you think, Inara?", "What do you think, Inara?"),
        ("ask @inara:example.org about it", "ask Inara about it"),
    ],
)
def test_mentions_are_found_and_stripped(body: str, expected: str) -> None:
    message = parse_event(text(body))
    assert message is not None
    assert find_mention(message, BOT) == (True, expected)


@pytest.mark.parametrize(
    "body",
    [
        "nothing for the bot",
        "Inarah is someone else",
        "mail inara@example.org",
        "Minara",
    ],
)
def test_not_mentioned(body: str) -> None:
    message = parse_event(text(body))
    assert message is not None
    assert find_mention(message, BOT) == (False, body)


def test_pill_and_intentional_mentions() -> None:
    pill = '<a href="https://matrix.to/#/%40inara%3Aexample.org">Ina</a>: hi'
    message = parse_event(text("Ina: hi", format="org.matrix.custom.html", formatted_body=pill))
    assert message is not None
    assert find_mention(message, BOT) == (True, "hi")
    flagged = parse_event(text("hi there", **{"m.mentions": {"user_ids": [BOT.user_id]}}))
    assert flagged is not None and find_mention(flagged, BOT)[0]
    other = parse_event(text("hi", **{"m.mentions": {"user_ids": ["@holly:example.org"]}}))
    assert other is not None and not find_mention(other, BOT)[0]


def test_message_content_renders_markdown_and_replies() -> None:
    content = message_content(
        "# Title\n\n- one\n- two\n\n```python\nprint(1)\n```",
        ReplyTarget("$q", "@scott:example.org"),
    )
    assert content["body"].startswith("# Title")
    assert content["format"] == "org.matrix.custom.html"
    assert "<h1>Title</h1>" in content["formatted_body"]
    assert "<li>one</li>" in content["formatted_body"]
    assert 'class="language-python"' in content["formatted_body"]
    assert content["m.relates_to"] == {"m.in_reply_to": {"event_id": "$q"}}
    assert content["m.mentions"] == {"user_ids": ["@scott:example.org"]}
    assert message_content("no reply")["m.mentions"] == {}
    assert "m.relates_to" not in message_content("no reply")


def test_replies_stay_in_their_thread() -> None:
    first = message_content("a", ReplyTarget("$q", "@s:x", "$root"))
    assert first["m.relates_to"] == {
        "rel_type": "m.thread",
        "event_id": "$root",
        "is_falling_back": False,
        "m.in_reply_to": {"event_id": "$q"},
    }
    more = message_content("b", ReplyTarget("$a", None, "$root", quote=False))
    assert more["m.relates_to"]["is_falling_back"] is True
    assert (
        message_content("c", ReplyTarget("$a", None, None, quote=False)).get("m.relates_to") is None
    )


def test_edit_content_is_an_m_replace() -> None:
    content = edit_content("$orig", "new **text**")
    assert content["m.relates_to"] == {"rel_type": "m.replace", "event_id": "$orig"}
    assert content["body"] == "* new **text**"
    assert content["m.new_content"]["body"] == "new **text**"
    assert "<strong>text</strong>" in content["m.new_content"]["formatted_body"]
    assert content["formatted_body"].startswith("* ")


def test_large_edits_shrink_their_fallback_or_fail_clearly() -> None:
    big = "😀" * 6000  # 24 kB of UTF-8, in four copies (two bodies, two HTML renderings)
    content = edit_content("$orig", big)
    assert content_bytes(content) <= MAX_CONTENT_BYTES
    assert content["m.new_content"]["body"] == big
    assert content["m.new_content"]["formatted_body"]
    bigger = edit_content("$orig", "😀" * 9000)  # only the plain text still fits
    assert content_bytes(bigger) <= MAX_CONTENT_BYTES
    assert "formatted_body" not in bigger["m.new_content"]
    with pytest.raises(AdapterError):
        edit_content("$orig", "😀" * 20000)


def test_chunks_fit_the_event_size_limit() -> None:
    wide = "\n\n".join("😀" * 3000 for _ in range(5))
    pieces = chunks_that_fit(wide, 16000)
    assert len(pieces) >= 2
    assert all(content_bytes(message_content(p)) <= MAX_CONTENT_BYTES for p in pieces)
    assert "".join(pieces).replace("\n", "") == wide.replace("\n", "")
    assert chunks_that_fit("short", 16000) == ["short"]
    assert chunks_that_fit("   ", 16000) == []


def test_settings_are_checked() -> None:
    assert not Settings().enabled  # a disabled section needs nothing
    with pytest.raises(ValidationError, match="homeserver"):
        Settings(enabled=True, user_id="@a:b", password="x")
    with pytest.raises(ValidationError, match="user_id"):
        Settings(enabled=True, homeserver="http://h", user_id="inara", password="x")
    with pytest.raises(ValidationError, match="password_env"):
        Settings(enabled=True, homeserver="http://h", user_id="@a:b")
    with pytest.raises(ValidationError):
        Settings.model_validate(
            {
                "enabled": True,
                "homeserver": "http://h",
                "user_id": "@a:b",
                "password": "x",
                "typo": 1,
            }
        )
    settings = Settings(
        enabled=True, homeserver="http://h", user_id="@a:b", password_env="PERSONAD_TEST_MATRIX_PW"
    )
    with pytest.raises(ConfigError, match="PERSONAD_TEST_MATRIX_PW"):
        settings.secret("password")
    assert "x" not in repr(
        Settings(enabled=True, homeserver="http://h", user_id="@a:b", password="x").password
    )


async def test_send_before_start_is_a_clear_error(tmp_path: Path) -> None:
    async def handler(_: Incoming) -> None:
        return None

    adapter = create(
        Settings(
            enabled=True,
            homeserver="http://127.0.0.1:9",
            user_id="@a:b",
            password="x",
            stream_edits=False,
        ),
        AdapterContext(handler, MemoryState(), tmp_path),
    )  # type: ignore[arg-type]
    assert adapter.supports_edit is False and adapter.max_message_chars == 16000
    with pytest.raises(AdapterError, match="not running"):
        await adapter.send("!room:b", "hello")
    await adapter.stop()  # safe before any start
    json.dumps(message_content("serialisable"))
