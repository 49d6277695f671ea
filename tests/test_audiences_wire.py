"""What a shared room's prompt may carry, seen at the wire.

The whole daemon over Nextcloud Talk's webhooks (the loopback Talk) with the Anthropic
Messages API faked on loopback: a model that quotes everything it was given (its answers echo
the last message, and its distillations echo the digest they were handed). Scott talks to the
persona in his direct room and in two shared rooms, a family room (with Holly) and a work room.
Every request body of a shared room's turn is read whole: no word of the direct room (a fact, a
promoted line, a digest line, a reminder, a task, a scratch note, a scheduled job) and no word
of the other shared room may be in it, at every tier, after ``/new``, after each distillation
and after a restart. What was made shared on purpose reaches every room.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.daemon.daemon import Daemon
from bot.setup.config import Config
from tests.fakes.anthropic_api import FakeAnthropic, Text, ToolUse
from tests.fakes.nctalk_server import FakeTalkServer
from tests.harness import make_config, make_persona

SECRET = "0123456789abcdef" * 4

#: said in Scott's direct room, through every kind of thing the persona keeps
DIRECT_WORDS = {
    "fact": "Quillfeather",  # "my therapist is Dr. Quillfeather"
    "promoted": "Marblewick",  # "please remember that my dentist is Dr. Marblewick"
    "reminder": "Zanzibarpills",
    "task": "Periwinkleform",
    "note": "Obsidianfox",
    "job": "Tangerinedigest",
}
#: a question that shares words with everything said anywhere, so recall would bring it all
PROBE = (
    "what do you know about me: my therapist on Tuesdays, my dentist, the pills, the form,"
    " the plan, the digest, the picnic at the park on Sunday, the deadline on Friday, the pond?"
)
FAMILY_WORD = "Larkspur"
WORK_WORD = "Hollowbrook"
SHARED_WORD = "Saffronhill"


class World:
    def __init__(self, talk: FakeTalkServer, model: FakeAnthropic, config: Config) -> None:
        self.talk = talk
        self.model = model
        self.config = config
        self.ids = iter(range(1000, 100_000))

    async def say(self, room: str, text: str, *, actor: str = "users/scott") -> str:
        """Send ``text`` to ``room``; the answer the persona posted there in reply to it."""
        message_id = next(self.ids)
        addressed = text if room == "scott-room" else f"@inara {text}"
        await self.talk.deliver_message(
            actor=actor, room=room, text=addressed, message_id=message_id
        )
        for _ in range(1000):
            for posted in self.talk.messages:
                if posted.reply_to == message_id and posted.token == room:
                    return posted.message
            await asyncio.sleep(0.01)
        raise AssertionError(f"no answer to {text!r} in {room}")

    async def turn_body(self, room: str, text: str) -> str:
        """The whole request body of one turn's model call(s) in ``room``, as text."""
        before = len(self.model.requests)
        await self.say(room, text)
        bodies = [json.dumps(r.body, ensure_ascii=False) for r in self.model.requests[before:]]
        assert bodies, "the turn asked the model"
        return "\n".join(bodies)


def assert_private(body: str, room: str, when: str) -> None:
    leaked = [kind for kind, word in DIRECT_WORDS.items() if word in body]
    assert not leaked, f"{room}'s request ({when}) carried the direct room's {leaked}"
    other = WORK_WORD if room == "family" else FAMILY_WORD
    assert other not in body, f"{room}'s request ({when}) carried the other shared room's words"


@asynccontextmanager
async def running(config: Config, world_talk: FakeTalkServer) -> AsyncIterator[Daemon]:
    async with Daemon(config, env={"ANTHROPIC_API_KEY": "test-key-0123456789"}) as daemon:
        world_talk.webhook_url = f"http://127.0.0.1:{daemon.http_port}/webhooks/nctalk"
        yield daemon


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with FakeTalkServer(SECRET) as talk, FakeAnthropic() as model:
        make_persona(tmp_path, "scott")
        make_persona(tmp_path, "holly")
        users: dict[str, dict[str, Any]] = {
            "scott": {
                "identities": ["nctalk:scott"],
                "admin": True,
                "timezone": "Europe/Lisbon",
                "notification_room": "nctalk:scott-room",
            },
            "holly": {"identities": ["nctalk:holly"], "timezone": "Europe/Lisbon"},
        }
        section = {
            "enabled": True,
            "backend_url": talk.url,
            "secret": SECRET,
            "secret_env": None,
            "mention_name": "inara",
            "direct_rooms": ["scott-room", "holly-room"],
            "retry_base_seconds": 0.01,
        }
        config = make_config(
            tmp_path,
            users=users,
            adapters={"nctalk": section},
            memory_backend="sqlite-fts5",
            extra={
                "http": {"enabled": True, "host": "127.0.0.1", "port": 0},
                "daemon": {"user_rate_per_minute": 100_000, "user_burst": 1000},
                "llm": {
                    "backends": {
                        "scripted": {
                            "kind": "anthropic",
                            "model": "claude-test",
                            "base_url": model.base_url,
                            "max_retries": 0,
                        }
                    },
                },
            },
        )
        yield World(talk, model, config)


async def _direct_room_material(world: World) -> None:
    """Everything Scott keeps through his direct room, one kind of thing at a time."""
    words = DIRECT_WORDS
    await world.say("scott-room", f"my therapist is Dr. {words['fact']}, we meet on Tuesdays")
    await world.say("scott-room", f"please remember that my dentist is Dr. {words['promoted']}")
    world.model.script(
        ToolUse(
            "reminder_add", {"text": f"take the {words['reminder']}", "when": "2031-01-06T09:00"}
        ),
        Text("Reminder set."),
    )
    await world.say("scott-room", "remind me about the pills")
    world.model.script(ToolUse("task_add", {"title": f"send the {words['task']}"}), Text("ok"))
    await world.say("scott-room", "add the form to my tasks")
    world.model.script(ToolUse("scratch_write", {"text": f"{words['note']} plan"}), Text("ok"))
    await world.say("scott-room", "keep a note of the plan")
    world.model.script(
        ToolUse("cron_add", {"schedule": "0 8 * * 1", "prompt": f"the {words['job']} please"}),
        Text("ok"),
    )
    await world.say("scott-room", "every monday, a digest")


async def _check_rooms(world: World, label: str) -> None:
    for room in ("family", "work"):
        for tier in (1, 2, 3, 4):
            await world.say(room, f"/tier {tier}")
            body = await world.turn_body(room, PROBE)
            assert_private(body, room, f"{label}, tier {tier}")


async def test_a_shared_room_never_hears_what_another_room_said(world: World) -> None:
    async with running(world.config, world.talk):
        await world.say("scott-room", "/tier 4")
        await _direct_room_material(world)
        await world.say("family", f"our picnic is at {FAMILY_WORD} park on Sunday")
        await world.say("work", f"the {WORK_WORD} deadline is Friday")
        await world.say(
            "family", f"{FAMILY_WORD} has a pond", actor="users/holly"
        )  # a second user in the same room
        await _check_rooms(world, "live")
        # the direct room sees everything of its user
        direct = await world.turn_body("scott-room", "what do you remember?")
        assert DIRECT_WORDS["note"] in direct and DIRECT_WORDS["task"] in direct
        for room in ("scott-room", "family", "work"):
            await world.say(room, "/new")
        await _check_rooms(world, "after /new")
        for level in ("short", "mid", "long"):
            answer = await world.say("scott-room", f"/distill {level}")
            assert "fail" not in answer.lower(), answer
            await _check_rooms(world, f"after /distill {level}")
    folder = world.config.data_dir / "scott" / "persona" / "inara"
    # the direct room's words reached its own files, the shared rooms' their own folders
    assert DIRECT_WORDS["promoted"] in (folder / "USER.md").read_text()
    assert DIRECT_WORDS["fact"] in (folder / "MEMORY_SHORT.md").read_text()
    assert DIRECT_WORDS["fact"] in (folder / "MEMORY_MID.md").read_text()
    family = folder / "rooms" / "nctalk-family"
    assert FAMILY_WORD in (family / "MEMORY_SHORT.md").read_text()
    assert WORK_WORD not in (family / "MEMORY_SHORT.md").read_text()
    async with running(world.config, world.talk):
        await _check_rooms(world, "after a restart")
        # what was made shared on purpose reaches every room
        answer = await world.say("scott-room", f"/share I grew up in {SHARED_WORD}")
        assert SHARED_WORD in answer
        for room in ("family", "work"):
            body = await world.turn_body(room, "where did I grow up?")
            assert SHARED_WORD in body
            assert_private(body, room, "after sharing")
        shared = await world.say("scott-room", "/shared")
        assert SHARED_WORD in shared
        assert "shared room" in await world.say("family", "/share my secret plan")
        assert "secret" in await world.say("scott-room", "/share my bank pin is 4471")
        assert "no line" in (await world.say("scott-room", f"/unshare {SHARED_WORD}")).lower()
        assert "Removed" in await world.say("scott-room", f"/unshare I grew up in {SHARED_WORD}")
        assert SHARED_WORD not in await world.turn_body("family", "where did I grow up?")
