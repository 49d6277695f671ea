"""The whole daemon with Telegram as its platform, against the loopback Bot API.

The daemon builds the adapter from its config section; the router answers through it with
the scripted model (streaming by edits), and the watchdog restarts it when polling stalls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.telegram.adapter import TelegramAdapter
from bot.commands.table import ADMIN_ONLY
from bot.daemon.daemon import Daemon
from bot.delivery.steps import Step
from bot.turn.formatting import strip_markdown
from bot.turn.reply import TYPING_DELAY
from tests.fakes.telegram_api import FakeTelegram
from tests.harness import ScriptedLLM, make_config, make_persona
from tests.test_telegram import until

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]

SCOTT, HOLLY, STRANGER = 4242, 5151, 6666
GROUP = -100777


class World:
    def __init__(self, daemon: Daemon, fake: FakeTelegram, llm: ScriptedLLM) -> None:
        self.daemon = daemon
        self.fake = fake
        self.llm = llm

    @property
    def adapter(self) -> TelegramAdapter:
        adapter = self.daemon.adapters["telegram"]
        assert isinstance(adapter, TelegramAdapter)
        return adapter

    def answers(self, chat: int) -> list[str]:
        """What the chat finally shows from the bot, after the streaming edits."""
        return [
            self.fake.messages[(s["chat_id"], s["message_id"])]["text"]
            for s in self.fake.sent
            if s["chat_id"] == str(chat)
        ]

    async def answered(self, chat: int, text: str) -> None:
        await until(lambda: text in self.answers(chat), f"the answer {text!r}")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with FakeTelegram() as fake:
        make_persona(tmp_path, "scott")
        make_persona(tmp_path, "holly")
        users = {
            "scott": {
                "identities": [f"telegram:{SCOTT}"],
                "admin": True,
                "timezone": "America/New_York",
            },
            "holly": {"identities": [f"telegram:{HOLLY}"], "timezone": "Europe/Lisbon"},
        }
        section = {
            "enabled": True,
            "token": fake.token,
            "base_url": fake.base_url,
            "poll_timeout": 1,
            "stall_seconds": 1.0,
            "send_attempts": 2,
            "retry_base_seconds": 0.01,
        }
        config = make_config(tmp_path, users=users, adapters={"telegram": section})
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, http=False, jobs=False) as daemon:
            assert daemon.watchdog is not None
            await daemon.watchdog.stop()  # the tests call check() themselves
            yield World(daemon, fake, llm)


async def test_conversation_in_a_private_chat(world: World) -> None:
    world.llm.delay = TYPING_DELAY * 2  # long enough for the typing indicator to show
    asked = world.fake.push_message(SCOTT, "I like green tea.")["message"]["message_id"]
    await world.answered(SCOTT, "echo: I like green tea.")
    assert world.fake.sent[0]["reply_to"] == asked
    assert (str(SCOTT), "typing") in world.fake.actions
    world.llm.delay = 0
    world.fake.push_message(SCOTT, "And oolong.")
    await world.answered(SCOTT, "echo: And oolong.")
    assert len(world.llm.calls) == 2
    assert "I like green tea." in [m.text for m in world.llm.calls[1].messages]


async def test_redelivered_update_is_answered_once(world: World) -> None:
    update = world.fake.push_message(SCOTT, "only once")
    await world.answered(SCOTT, "echo: only once")
    world.fake.push_update({"message": update["message"]})
    world.fake.push_message(SCOTT, "next")
    await world.answered(SCOTT, "echo: next")
    assert world.answers(SCOTT) == ["echo: only once", "echo: next"]
    assert len(world.llm.calls) == 2


async def test_otr_command_and_admin_refusal(world: World) -> None:
    world.fake.push_message(SCOTT, "/otr@persona_bot on")
    await until(lambda: world.answers(SCOTT), "the /otr answer")
    assert world.answers(SCOTT)[0].startswith("Off The Record is on")
    world.fake.push_message(HOLLY, "/reload")
    await until(lambda: world.answers(HOLLY), "the refusal")
    assert world.answers(HOLLY) == [strip_markdown(ADMIN_ONLY)]
    assert world.llm.calls == []
    names = [c["command"] for c in world.fake.commands]
    assert "otr" in names and "reload" not in names


async def test_group_chatter_ignored_mentions_answered_strangers_ignored(world: World) -> None:
    world.fake.push_message(GROUP, "talking among ourselves", from_id=SCOTT, chat_type="supergroup")
    world.fake.push_message(STRANGER, "hello bot", from_id=STRANGER)
    world.fake.push_message(
        GROUP, "@persona_bot are you there?", from_id=HOLLY, chat_type="supergroup"
    )
    await world.answered(GROUP, "echo: are you there?")
    assert len(world.llm.calls) == 1
    assert {s["chat_id"] for s in world.fake.sent} == {str(GROUP)}


async def test_a_stranger_named_like_a_user_gets_nothing_however_they_write(
    world: World,
) -> None:
    """Only the numeric id counts: the same first name and @username, a reply to the user's
    message, the user's words forwarded, a command, a photo: no answer and no model call."""
    fake = world.fake
    group = {"chat_type": "supergroup", "from_id": STRANGER}
    asked = fake.push_message(GROUP, "@persona_bot hello", from_id=SCOTT, chat_type="supergroup")
    await world.answered(GROUP, "echo: hello")
    lookalike = fake.user(STRANGER, first_name="Scott", username="scott")
    origin = {"type": "user", "date": 1, "sender_user": fake.user(SCOTT)}
    fake.push_message(
        GROUP,
        "@persona_bot again",
        reply_to=asked["message"]["message_id"],
        extra={"from": lookalike},
        **group,
    )
    fake.push_message(GROUP, "/users@persona_bot", extra={"from": lookalike}, **group)
    fake.push_message(STRANGER, "hi", extra={"from": lookalike, "forward_origin": origin})
    photo = [{"file_id": "p1", "file_unique_id": "u1", "width": 9, "height": 9}]
    fake.push_message(STRANGER, None, extra={"from": lookalike, "photo": photo})
    fake.push_message(GROUP, "@persona_bot still me", from_id=SCOTT, chat_type="supergroup")
    await world.answered(GROUP, "echo: still me")
    assert world.answers(GROUP) == ["echo: hello", "echo: still me"]
    assert world.answers(STRANGER) == [] and len(world.llm.calls) == 2
    assert "again" not in str(world.llm.calls[-1].messages)


async def test_stalled_polling_is_restarted_by_the_watchdog(world: World) -> None:
    fake = world.fake
    fake.fail_next(10_000, status=502)
    await until(lambda: world.adapter.health.age() > 1.0, "polling to stall")
    fake.recover()
    watchdog = world.daemon.watchdog
    assert watchdog is not None
    assert await watchdog.check() == ["telegram"]
    assert world.adapter.health.restarts == 1 and world.adapter.health.running
    fake.push_message(SCOTT, "after the restart")
    await world.answered(SCOTT, "echo: after the restart")


async def test_an_answer_telegram_refuses_for_a_while_arrives_once(world: World) -> None:
    world.daemon.outbox.base_delay = 0.02
    world.fake.refusing_sends = True
    world.fake.push_message(SCOTT, "Anyone home?")
    await until(lambda: world.daemon.outbox.parcels, "the answer waiting in the outbox")
    world.fake.refusing_sends = False
    await until(lambda: not world.daemon.outbox.parcels, "the outbox to deliver")
    assert world.answers(SCOTT) == ["echo: Anyone home?"]


def _long_answer() -> str:
    line = "The figs want water at dusk and the gate wants oil before the rain. "
    return "\n\n".join(f"Part {part}. " + line * 25 for part in range(7))


@pytest.mark.parametrize("restart", [False, True])
async def test_a_long_answer_cut_short_sends_only_its_missing_messages(
    world: World, restart: bool
) -> None:
    """The second of the answer's messages refused (502) past the client's own retries: the outbox
    tries the send again (in the same process, or in the next one) and the first message does
    not show twice."""
    answer = _long_answer()
    world.llm.queue(answer)
    world.llm.chunk = len(answer)  # in one piece: too long to stream, one send of several messages
    world.daemon.outbox.base_delay = 0.02
    world.fake.fail_sends(after=1, count=10_000)
    world.fake.push_message(SCOTT, "Tell me everything about the garden")
    await until(lambda: world.daemon.outbox.parcels, "the rest of the answer in the outbox")
    daemon = world.daemon
    if restart:
        await daemon.stop()
    world.fake.fail_sends(after=0, count=0)
    if restart:
        daemon = Daemon(daemon.config, backends={"scripted": world.llm}, http=False, jobs=False)
        await daemon.start()
        daemon.outbox.base_delay = 0.02
    try:
        await until(lambda: not daemon.outbox.parcels, "the outbox to deliver")
    finally:
        if restart:
            await daemon.stop()
    shown = world.answers(SCOTT)
    assert len(shown) > 2, [text[:20] for text in shown]
    said = " ".join(shown)
    for part in range(7):
        assert said.count(f"Part {part}.") == 1, part
    assert strip_markdown(answer).split() == said.split()


async def test_a_queued_answer_is_delivered_by_the_next_process(world: World) -> None:
    config = world.daemon.config
    world.fake.refusing_sends = True
    world.fake.push_message(SCOTT, "Before the restart")
    await until(lambda: world.daemon.outbox.parcels, "the answer waiting in the outbox")
    await world.daemon.stop()
    world.fake.refusing_sends = False
    async with Daemon(config, backends={"scripted": world.llm}, http=False, jobs=False) as again:
        again.outbox.base_delay = 0.02
        await until(lambda: world.answers(SCOTT), "the answer after the restart")
        await until(lambda: not again.outbox.parcels, "the outbox to empty")
    assert world.answers(SCOTT) == ["echo: Before the restart"]
    assert len(world.llm.calls) == 1


async def test_a_turn_cut_by_a_watchdog_restart_is_completed_in_its_message(
    world: World,
) -> None:
    assert world.daemon.watchdog is not None
    world.adapter.settings.drain_seconds = 0.05
    world.llm.hold = hold = asyncio.Event()
    world.fake.push_message(SCOTT, "Tell me a long story")
    await until(lambda: world.answers(SCOTT), "the first streamed words")
    assert await world.daemon.watchdog.restart("telegram", world.adapter)
    hold.set()  # the turn was cut off; the redelivered update is answered now
    await world.answered(SCOTT, "echo: Tell me a long story")
    assert world.answers(SCOTT) == ["echo: Tell me a long story"]


async def test_an_answer_whose_message_is_gone_is_sent_anew(world: World) -> None:
    # the streamed message was deleted while its final edit waited in the outbox
    step = Step("edit", str(SCOTT), "The whole answer.", "0123456789abcdef01234567", "999")
    await step.perform(world.adapter)
    assert world.answers(SCOTT) == ["The whole answer."]


async def test_an_answer_to_a_user_who_blocked_the_bot_is_given_up_not_retried(
    world: World,
) -> None:
    world.daemon.outbox.base_delay = 0.02
    world.fake.blocked.add(str(SCOTT))
    world.fake.vanished.add(str(GROUP))
    world.fake.push_message(SCOTT, "Blocking you after this")
    world.fake.push_message(GROUP, "@persona_bot last words", from_id=HOLLY, chat_type="supergroup")
    outbox = world.daemon.outbox
    await until(lambda: len(outbox.refusals()) == 2, "both answers refused")
    sends = [p for m, p in world.fake.requests if m == "sendmessage"]
    assert {p["chat_id"] for p in sends} == {str(SCOTT), str(GROUP)}
    await asyncio.sleep(0.3)  # many backoff periods: nothing is tried again
    assert len([m for m, _ in world.fake.requests if m == "sendmessage"]) == len(sends)
    assert outbox.parcels == [] and world.daemon.health.problems() == {}
    reasons = {r.room: r.reason for r in outbox.refusals()}
    assert reasons[str(SCOTT)].endswith("Forbidden: bot was blocked by the user")
    assert reasons[str(GROUP)].endswith("Telegram refused a message: Chat not found")
    # a passing failure (502) still waits in the outbox and arrives
    world.fake.refusing_sends = True
    world.fake.push_message(HOLLY, "Still there?")
    await until(lambda: outbox.parcels, "the answer waiting in the outbox")
    world.fake.refusing_sends = False
    await world.answered(HOLLY, "echo: Still there?")
    assert len(outbox.refusals()) == 2
