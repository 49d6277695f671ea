"""What the Telegram adapter puts on the wire: messages, splits, fallbacks, typing, edits."""

from __future__ import annotations

import asyncio
import re

import pytest

from adapters.telegram.adapter import TelegramAdapter
from adapters.telegram.format import utf16_len
from bot.daemon.errors import AdapterError
from tests.fakes.telegram_api import FakeTelegram, parse_markup
from tests.test_telegram import MakeAdapter, adapter, fake, inbox, make_adapter, store, until

__all__ = ["adapter", "fake", "inbox", "make_adapter", "store"]

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    # raised inside the library when it builds its own RetryAfter message
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]

ROOM = "4242"


async def test_long_answer_splits_on_paragraphs_with_code_blocks_intact(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    paragraphs = [f"Paragraph {i}: " + "the garden grows " * 40 for i in range(12)]
    code = "\n".join(f"    print('line {i}')  # <tag> & more" for i in range(150))
    text = (
        "\n\n".join(paragraphs[:6])
        + f"\n\n```python\n{code}\n```\n\n"
        + "\n\n".join(paragraphs[6:])
    )
    last = await adapter.send(ROOM, text)
    assert len(fake.sent) > 2
    assert last == str(fake.sent[-1]["message_id"])
    for sent in fake.sent:
        assert sent["parse_mode"] == "HTML"
        assert utf16_len(sent["text"]) <= 4096
        assert sent["text"].count("<pre>") == sent["text"].count("</pre>")
        for block in sent["visible"].split("\n\n"):
            if block.startswith("Paragraph"):
                assert block.rstrip().endswith("grows"), "a paragraph was cut"
    shown_code = [
        line
        for sent in fake.sent
        for line in sent["visible"].split("\n")
        if line.startswith("    print(")
    ]
    assert shown_code == code.split("\n")
    assert all('class="language-python"' in s["text"] for s in fake.sent if "print(" in s["text"])
    assert "".join(fake.texts()).count("Paragraph") == 12


async def test_escaping_grows_text_past_the_limit_and_is_split_again(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    text = "<&>&lt; " * 1500  # 10500 characters, 33000 once escaped
    await adapter.send(ROOM, text)
    assert len(fake.sent) >= 8
    assert all(utf16_len(s["text"]) <= 4096 for s in fake.sent)
    assert " ".join(fake.texts()) == text.strip()


async def test_html_is_escaped_not_interpreted(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    text = 'Try <script>alert("x")</script> & <b>not bold</b>, a < b > c &amp; `x<y>`'
    await adapter.send(ROOM, text)
    sent = fake.sent[-1]
    assert sent["parse_mode"] == "HTML"
    assert "<script>" not in sent["text"]
    assert (
        sent["visible"] == 'Try <script>alert("x")</script> & <b>not bold</b>, a < b > c &amp; x<y>'
    )


async def test_markup_rejected_by_telegram_is_resent_as_plain_text(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    fake.reject_entities(1)
    message_id = await adapter.send(
        ROOM, "# Heading\n\n**Important** answer with [a link](https://example.org)"
    )
    assert len(fake.sent) == 1
    sent = fake.sent[0]
    assert sent["parse_mode"] is None
    assert sent["text"] == "Heading\n\nImportant answer with a link (https://example.org)"
    assert message_id == str(sent["message_id"])


async def test_reply_to_accepts_event_ids_and_survives_a_deleted_original(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    asked = fake.message(4242, "question")["message_id"]
    await adapter.send(ROOM, "first answer", reply_to=f"4242:{asked}")
    await adapter.send(ROOM, "second answer", reply_to=str(asked))
    await adapter.send(ROOM, "third answer", reply_to="4242:999999")
    assert [s["reply_to"] for s in fake.sent] == [asked, asked, 999999]
    assert fake.texts() == ["first answer", "second answer", "third answer"]


async def test_only_the_first_chunk_is_a_reply(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    asked = fake.message(4242, "question")["message_id"]
    await adapter.send(ROOM, "\n\n".join(["word " * 700] * 3), reply_to=str(asked))
    assert len(fake.sent) >= 2
    assert fake.sent[0]["reply_to"] == asked
    assert all(s["reply_to"] is None for s in fake.sent[1:])


async def test_blank_answer_sends_nothing(fake: FakeTelegram, adapter: TelegramAdapter) -> None:
    assert await adapter.send(ROOM, "  \n\n ") == ""
    assert fake.sent == []


async def test_typing_repeats_until_switched_off(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    await adapter.typing(ROOM, True)
    await until(lambda: len(fake.actions) >= 3, "repeated chat actions")
    await adapter.typing(ROOM, False)
    count = len(fake.actions)
    await asyncio.sleep(0.2)
    assert len(fake.actions) == count
    assert set(fake.actions) == {(ROOM, "typing")}


async def test_edit_replaces_text_and_ignores_unchanged(
    fake: FakeTelegram, adapter: TelegramAdapter
) -> None:
    assert adapter.supports_edit
    message_id = await adapter.send(ROOM, "Thinking")
    await adapter.edit(ROOM, message_id, "Thinking about **gardens**")
    await adapter.edit(ROOM, message_id, "Thinking about **gardens**")  # not modified: fine
    assert [e["visible"] for e in fake.edits] == ["Thinking about gardens"]
    assert fake.messages[(ROOM, int(message_id))]["text"] == "Thinking about gardens"
    fake.reject_entities(1)
    await adapter.edit(ROOM, message_id, "Final *answer*")
    assert fake.edits[-1] == {
        "chat_id": ROOM,
        "message_id": int(message_id),
        "visible": "Final answer",
        "text": "Final answer",
        "parse_mode": None,
    }
    with pytest.raises(AdapterError, match="edit"):
        await adapter.edit(ROOM, "123456789", "no such message")


async def test_sends_survive_a_bad_gateway(fake: FakeTelegram, adapter: TelegramAdapter) -> None:
    fake.fail_next(2, status=502)
    await adapter.send(ROOM, "delivered anyway")
    assert fake.texts() == ["delivered anyway"]


async def test_flood_control_is_waited_out(fake: FakeTelegram, adapter: TelegramAdapter) -> None:
    fake.flood_next(1, retry_after=1)
    await adapter.send(ROOM, "after the flood wait")
    assert fake.texts() == ["after the flood wait"]


async def test_markdown_v2_mode(fake: FakeTelegram, make_adapter: MakeAdapter) -> None:
    text = "**Bold** and _it_ (with) specials: 1+1=2. Done! `a_b` [x](https://e.org/a_(b))"
    async with make_adapter(parse_mode="markdownv2") as v2:
        await v2.send(ROOM, text)
    sent = fake.sent[-1]
    assert sent["parse_mode"] == "MarkdownV2"
    assert sent["visible"] == "Bold and it (with) specials: 1+1=2. Done! a_b x"
    assert re.search(r"\\\.", sent["text"])
    assert parse_markup(sent["text"], "markdownv2") == sent["visible"]


@pytest.mark.parametrize("off_the_record", [False, True])
async def test_a_long_answer_cut_short_goes_on_where_it_stopped_written_down_only_on_record(
    fake: FakeTelegram, adapter: TelegramAdapter, off_the_record: bool
) -> None:
    adapter.context.off_the_record = lambda room: off_the_record and room == ROOM
    text = "\n\n".join(f"Paragraph {i}: " + "the garden grows " * 100 for i in range(6))
    fake.fail_sends(after=1, count=1000)  # the second message fails, every time it is tried
    with pytest.raises(AdapterError):
        await adapter.send(ROOM, text, key="k-answer")
    first = fake.texts()
    assert len(first) == 1
    written = await adapter.context.state.get("sent_parts")
    assert (written is not None and "k-answer" in written) is not off_the_record
    fake.fail_sends(after=0, count=0)
    await adapter.send(ROOM, text, key="k-answer")
    sent = fake.texts()
    assert sent[0] == first[0] and len(sent) > 2
    assert "".join(sent).count("Paragraph") == 6  # none twice, none lost
