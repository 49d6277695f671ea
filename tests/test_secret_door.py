"""Secrets withheld once, at the door: the shapes people say them in, the value that comes in
the next message, and what a real turn writes (session log, memory, inbox, changelog)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.daemon.daemon import Daemon
from bot.memory.secrets.detector import MARKERS, find_secrets, redact_secrets
from bot.memory.secrets.door import THREAD_CHARS, secret_values, withhold, withhold_async
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.persona.identity.changelog import Change, render
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

__all__: list[str] = []

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

#: (message, its value, the kind its marker names): phrasings of no labelled set
SHAPES = [
    ('"paper lantern at dusk" is the passphrase of my laptop', "paper lantern", "password"),
    ("my vault passphrase is 'sixteen tired ferrets'", "tired ferrets", "password"),
    ("a senha do cofre de senhas é “jabuti dorme cedo”", "jabuti dorme", "password"),
    ("the pin for my card is three one four one", "three one four one", "pin"),
    ("o pin do celular é sete sete dois zero", "sete sete dois zero", "pin"),
    ("the entry code: nine one one four", "nine one one four", "code"),
    (
        "the seed for my hardware wallet is mango tiger violin shadow rocket pencil lunar "
        "garden wisdom candle forest marble",
        "violin shadow rocket",
        "seed",
    ),
    (
        "frase de recuperação: lemon glass orbit tunnel piano fossil cattle brave oyster "
        "ridge amber pulse",
        "tunnel piano",
        "seed",
    ),
    ("I changed my bank password to Corvina2031", "Corvina2031", "password"),
    ("troquei a senha do wifi pra goiabada", "goiabada", "password"),
    ("the storage locker opens with 31-07-15", "31-07-15", "code"),
    ("o cadeado do portão abre com 5820", "5820", "code"),
    ("current acct no. 0081234577", "0081234577", "account"),
    ("c/c 0098765-3 ag. 4410", "0098765-3", "account"),
    ("the three digits on the back of my credit card are 903", "903", "card"),
    ("my AWS key is AKIAZ7QXMP4LN2RT8VW3", "AKIAZ7QXMP4LN2RT8VW3", "key"),
    ("gitlab: glpat-Xq7Lm2Nv9Kp4Rs8Tw1Yz", "glpat-Xq7Lm2Nv9Kp4Rs8Tw1Yz", "key"),
]

ORDINARY = [
    "My PIN is easy to remember, and the bank never asks for it.",
    'My favourite book is "The Left Hand of Darkness", I read it in 2015.',
    "We live at 48 Rua do Carmo, 3rd floor, since 12/04/2021.",
    "The alarm clock rings at six fifteen every day.",
    "Counting with the kids: one two three four five, then hide and seek.",
    "The safe in the hotel room was too small for the laptop.",
    "Order no. 55120934 was shipped yesterday.",
    "A conta de água veio 120 reais este mês.",
    "The back of the card has a signature strip.",
    "Our recovery phrase is kept in a fireproof box, never typed anywhere.",
    "I changed my password to a longer one last week.",
    "The gate opens at 7:30 and closes at 22:00.",
]


@pytest.mark.parametrize(("text", "value", "kind"), SHAPES)
def test_a_new_shape_is_withheld_with_its_kind(text: str, value: str, kind: str) -> None:
    redacted = redact_secrets(text)
    assert value not in redacted
    assert f"[secret withheld: {kind}]" in redacted
    assert redact_secrets(redacted) == redacted  # a marker is never found again


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_fact_is_kept(text: str) -> None:
    assert find_secrets(text) == ()
    assert withhold(text, previous="What's the wifi password?") == text


async def test_the_write_policy_refuses_each_new_shape(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        for text, _value, _kind in SHAPES:
            result = await memory.add(text, source="test")
            assert not result.stored and "secret" in result.reason, text
        for text in ORDINARY[:3]:
            assert (await memory.add(text, source="test", force=True)).stored, text
    raw = (tmp_path / "memory.db").read_bytes()
    assert [value for _t, value, _k in SHAPES if value.encode() in raw] == []


@pytest.mark.parametrize(
    ("previous", "text", "kind"),
    [
        ("What's the new wifi password?", "lemonade2019", "password"),
        ("qual o pin do cartão?", "dois dois oito um", "pin"),
        ("my new pin:", "4471", "pin"),
        ("the passphrase for the backup disk", '"violet tram at noon"', "password"),
    ],
)
def test_a_bare_value_after_the_question_is_withheld(previous: str, text: str, kind: str) -> None:
    assert withhold(text, previous=previous) == f"[secret withheld: {kind}]"
    assert withhold(text) == text  # alone it is nothing


@pytest.mark.parametrize(
    ("previous", "text"),
    [
        ("What's the new wifi password?", "I don't know, ask Tom."),
        ("what's the gate code?", "no idea"),
        ("My PIN got blocked at the ATM.", "ugh"),
        ("How many cats do you have?", "three"),
    ],
)
def test_a_reply_that_gives_no_value_is_kept(previous: str, text: str) -> None:
    assert withhold(text, previous=previous) == text


def test_a_value_on_the_next_line_is_withheld() -> None:
    assert redact_secrets("the code for the shed\nfive five one two") == (
        "the code for the shed\n[secret withheld: code]"
    )


def test_a_reply_that_repeats_a_value_is_withheld() -> None:
    said = "the router password is Kestrel!88"
    reply = "Got it: Kestrel!88. I will not forget."
    written = withhold(reply, previous=said, values=secret_values(said))
    assert "Kestrel!88" not in written and "[secret withheld: password]" in written


def test_the_changelog_withholds_evidence_line_by_line_and_the_value() -> None:
    change = Change(
        id=1,
        op="apply",
        at="2026-11-29 12:00",
        file="USER.md",
        slot="s",
        kind="fact",
        value="pin is 4821",
        explicit=True,
        evidence="my password is below.\nhunter2!",
        bullet_before=None,
        bullet_after="- likes tea",
        section_before="",
        section_after="",
        heading="## Remembered from scott",
    )
    text = render(change)
    assert "hunter2" not in text and "4821" not in text
    assert MARKERS.search(text)


# -- through real turns ----------------------------------------------------------------------


class Chat:
    def __init__(self, daemon: Daemon, adapter: RecordingAdapter, llm: ScriptedLLM) -> None:
        self.daemon, self.adapter, self.llm = daemon, adapter, llm
        self.n = 0

    async def say(self, text: str) -> None:
        self.n += 1
        await self.adapter.deliver(text, sender="scott", event_id=f"m{self.n}")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Chat]:
    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    daemon, adapter = await start_daemon(
        make_config(tmp_path, memory_backend="sqlite-fts5"), tmp_path, llm=llm
    )
    yield Chat(daemon, adapter, llm)
    await daemon.stop()


def _written(data: Path) -> bytes:
    """Every file the persona's turns wrote (session logs, memory.db and its journal)."""
    persona = data / "scott" / "persona" / "inara"
    return b"".join(path.read_bytes() for path in persona.rglob("*") if path.is_file())


async def test_turns_write_no_secret_of_any_shape(chat: Chat, tmp_path: Path) -> None:
    for text, _value, _kind in SHAPES:
        await chat.say(text)  # the scripted model echoes it: a reply that repeats a secret
    # the model heard this turn's message whole, and the earlier ones withheld
    last = chat.llm.calls[-1].messages
    assert SHAPES[-1][1] in last[-1].text
    assert all(SHAPES[0][1] not in message.text for message in last[:-1])
    # the user got the reply as the model wrote it
    assert any(SHAPES[0][1] in sent for sent in chat.adapter.texts())
    await chat.say("/new")
    written = _written(tmp_path)
    assert [value for _t, value, _k in SHAPES if value.encode() in written] == []
    assert b"[secret withheld: seed]" in written


async def test_a_value_in_the_next_message_is_never_written(chat: Chat, tmp_path: Path) -> None:
    chat.llm.queue("Sure. What's the new wifi password?")
    await chat.say("I moved the router to the hall, can you remember the wifi for me?")
    await chat.say("lemonade2019")
    await chat.say("qual o pin do cartão novo?")
    await chat.say("dois dois oito um")
    await chat.say("/new")
    written = _written(tmp_path)
    assert b"lemonade2019" not in written and b"dois dois oito" not in written
    assert b"router to the hall" in written  # the rest of what was said is kept
    # the model did hear the value in its own turn
    assert any("lemonade2019" in m.text for call in chat.llm.calls for m in call.messages)


async def test_the_inbox_keeps_the_message_withheld(chat: Chat, tmp_path: Path) -> None:
    chat.llm.hold = asyncio.Event()
    turn = asyncio.create_task(chat.say("my new PIN is seven seven one two"))
    for _ in range(200):
        if chat.llm.calls:
            break
        await asyncio.sleep(0.01)
    with sqlite3.connect(tmp_path / "personad.db") as db:
        (kept,) = db.execute("SELECT incoming FROM events WHERE event_id = 'm1'").fetchone()
    chat.llm.hold.set()
    await turn
    assert "seven seven" not in kept and "[secret withheld: pin]" in kept


async def test_a_tool_never_writes_a_value_the_model_copied_from_the_message(
    chat: Chat, tmp_path: Path
) -> None:
    # the model saves the value in a shape the detector would not know on its own
    chat.llm.queue_tool("scratch_write", {"text": "router notes: Zq7-lemonade-Q"})
    chat.llm.queue_tool("task_add", {"title": "tell Holly Zq7-lemonade-Q"})
    chat.llm.queue("Noted.")
    await chat.say("the new wifi password is Zq7-lemonade-Q, note it down")
    folder = tmp_path / "scott" / "persona" / "inara"
    assert "router notes" in (folder / "SCRATCH.md").read_text()
    assert b"Zq7-lemonade-Q" not in _written(tmp_path)
    assert "[secret withheld: password]" in (folder / "TASKS.json").read_text()


async def test_a_long_message_is_read_beside_the_event_loop() -> None:
    """A message of many pages goes through the door in a worker thread: other turns run
    while it is read, and it comes out as the door withholds it."""
    text = "We talked about the garden for ages. " * 2_000 + "The alarm code is 4471."
    assert len(text) > THREAD_CHARS
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticking = asyncio.create_task(tick())
    try:
        kept = await withhold_async(text)
    finally:
        ticking.cancel()
    assert ticks > 0
    assert kept == withhold(text) and "4471" not in kept
    # a short one is read at once, as it is
    assert await withhold_async("the alarm code is 4471") == withhold("the alarm code is 4471")
