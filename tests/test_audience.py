"""The one place that decides what a room may know, and the files it sends each room to."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.daemon.errors import PersonaError
from bot.daemon.notify import Notifier
from bot.memory.distill.distiller import Distiller
from bot.persona.context import prompt_files
from bot.persona.store import PersonaStore
from bot.turn.audience import (
    DIRECT,
    DIRECT_ROOM,
    SHARED,
    Audience,
    describe,
    is_label,
    label_of_path,
    room_folder,
    room_label,
    room_note,
    room_of_folder,
)
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona

FAMILY = Audience("matrix:!fam:example.org")
WORK = Audience("telegram:-100200")


def test_a_direct_room_sees_everything_a_shared_room_its_own_and_the_shared() -> None:
    labels = [DIRECT, SHARED, FAMILY.label, WORK.label]
    assert [DIRECT_ROOM.sees(label) for label in labels] == [True, True, True, True]
    assert [FAMILY.sees(label) for label in labels] == [False, True, True, False]
    assert [WORK.sees(label) for label in labels] == [False, True, False, True]
    assert DIRECT_ROOM.labels is None
    assert FAMILY.labels == (SHARED, "room:matrix:!fam:example.org")


def test_labels_read_as_words() -> None:
    assert describe(DIRECT) == "private"
    assert describe(SHARED) == "shared with every room"
    assert describe(room_label("nctalk:abc")) == "room nctalk:abc"
    assert all(is_label(x) for x in (DIRECT, SHARED, "room:nctalk:abc"))
    assert not any(is_label(x) for x in ("group", "room:", "room:nctalk", ""))


@pytest.mark.parametrize(
    "key",
    ["matrix:!fam:example.org", "telegram:-100200", "nctalk:a/../b", "discord:..", "web:x y%z"],
)
def test_a_room_folder_gives_its_room_back_and_never_leaves_rooms(key: str) -> None:
    folder = room_folder(key)
    prefix, name = folder.split("/")
    assert prefix == "rooms" and "/" not in name and name not in (".", "..")
    assert not name.startswith(".")
    assert room_of_folder(name) == key
    assert label_of_path(f"{folder}/MEMORY.md") == room_label(key)


def test_a_file_is_labelled_by_where_it_lies() -> None:
    assert label_of_path("USER.md") == DIRECT
    assert label_of_path("shared/USER.md") == SHARED
    assert label_of_path("rooms/not a room/USER.md") == DIRECT
    assert room_of_folder("garbage") is None


def test_each_audience_reads_its_own_copy_of_every_memory_file() -> None:
    direct = prompt_files(4)
    assert "USER.md" in direct and "shared/USER.md" in direct and "SCRATCH.md" in direct
    family = prompt_files(4, FAMILY)
    folder = room_folder(FAMILY.room or "")
    assert "IDENTITY.md" in family and "SOUL.md" in family and "VOICE.md" in family
    for private in ("USER.md", "MEMORY.md", "MEMORY_SHORT.md", "SCRATCH.md", "TASKS.json"):
        assert private not in family
        assert f"{folder}/{private}" in family
    assert "shared/USER.md" in family and "shared/MEMORY.md" in family
    assert not any(room_folder(WORK.room or "") in path for path in family)


def test_the_store_reads_audience_paths_and_refuses_any_other(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    assert store.read("scott", "inara", f"{room_folder('nctalk:fam')}/SCRATCH.md").text == ""
    for bad in (
        "../USER.md",
        "shared/../USER.md",
        "rooms/x/../../USER.md",
        "rooms/USER.md",
        "shared/a/USER.md",
        "rooms/.x/USER.md",
        "sessions/2026-01-01.md",
    ):
        with pytest.raises(PersonaError):
            store.read("scott", "inara", bad)


async def test_shared_rooms_are_known_by_their_folders(tmp_path: Path) -> None:
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    assert store.audiences("scott", "inara") == [DIRECT_ROOM]
    key = "matrix:!fam:example.org"
    await store.write("scott", "inara", f"{room_folder(key)}/ROOM.md", room_note(key))
    assert store.shared_rooms("scott", "inara") == [key]
    assert store.audiences("scott", "inara") == [DIRECT_ROOM, Audience(key)]


LOG = """# Session log 2026-05-09 · inara

### 10:00:00 · user · scott · nctalk:dm

my therapist is Dr. Quillfeather

### 10:00:02 · persona · inara · nctalk:dm

noted

### 09:00:00 · user · scott · nctalk:family

while this room was a DM: my Moonquartz diagnosis

### 10:01:00 · user · scott · nctalk:family · shared

the picnic is at Larkspur

### 10:02:00 · user · scott · nctalk:work · shared

the Hollowbrook deadline

### 10:02:30 · event · answer queued

### 10:03:00 · event · new conversation · nctalk:family

### 10:04:00 · user · scott · telegram

an older line that names no room: Oldfield
"""


async def test_every_audience_is_distilled_from_its_own_turns(tmp_path: Path) -> None:
    folder = make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    for key in ("nctalk:family", "nctalk:work"):
        await store.write("scott", "inara", f"{room_folder(key)}/ROOM.md", room_note(key))
    (folder / "sessions").mkdir(exist_ok=True)
    (folder / "sessions" / "2026-05-09.md").write_text(LOG)
    llm = ScriptedLLM()  # answers by echoing what it was given
    distiller = Distiller(make_config(tmp_path), store, {"scripted": llm})
    assert "fail" not in await distiller.run("scott", "inara", "short")

    def read(path: str) -> str:
        return (folder / path).read_text()

    direct = read("MEMORY_SHORT.md")
    assert "Quillfeather" in direct and "Oldfield" in direct
    family = read(f"{room_folder('nctalk:family')}/MEMORY_SHORT.md")
    work = read(f"{room_folder('nctalk:work')}/MEMORY_SHORT.md")
    assert "Larkspur" in family and "Hollowbrook" not in family and "Quillfeather" not in family
    # said while the room was direct: private, though the room is shared now
    assert "Moonquartz" in direct and "Moonquartz" not in family
    assert "answer queued" in work and "answer queued" not in direct
    assert "Hollowbrook" in work and "Larkspur" not in work and "Oldfield" not in work
    for level in ("mid", "long"):
        assert "fail" not in await distiller.run("scott", "inara", level)
    for name in ("MEMORY_MID.md", "MEMORY_LONG.md"):
        family = read(f"{room_folder('nctalk:family')}/{name}")
        assert "Larkspur" in family and "Quillfeather" not in family and "Hollowbrook" not in family
        assert "Quillfeather" in read(name) and "Larkspur" not in read(name)
    # each LLM level asked the model once per audience, each with its own text only
    prompts = [call.messages[-1].text for call in llm.calls]
    assert len(prompts) == 6
    assert not any("Quillfeather" in p and "Larkspur" in p for p in prompts)


async def test_a_shared_room_keeps_its_own_notes_and_tasks(tmp_path: Path) -> None:
    from zoneinfo import ZoneInfo

    from bot.tools.catalog import turn_tools
    from bot.tools.gate import SHARED_ROOM, TurnMode
    from bot.tools.registry import CallLimits

    folder = make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    zone = ZoneInfo("Europe/Lisbon")
    await store.write("scott", "inara", "SCRATCH.md", "Obsidianfox private plan\n")
    await store.write("scott", "inara", "TASKS.json", '[{"id": 1, "title": "Periwinkle"}]\n')
    mode = TurnMode(shared_room=True)
    tools = turn_tools(
        store, "scott", "inara", zone, mode=mode, limits=CallLimits(), audience=FAMILY
    )
    await store.write("scott", "inara", "REMINDERS.md", "- [ ] 2031-01-06 09:00 Zanzibarpills\n")
    for name in ("scratch_read", "task_list", "reminder_list", "cron_list", "scratch_write"):
        assert tools.get(name) is not None, name
        assert tools.withheld(name) is None
    # the direct room's own tools are what the gate withholds in a shared room
    direct = turn_tools(store, "scott", "inara", zone, mode=mode, limits=CallLimits())
    assert direct.withheld("reminder_list") == SHARED_ROOM
    assert "Zanzibar" not in await tools.get("reminder_list").handler({})  # type: ignore[union-attr]
    assert "Obsidianfox" not in await tools.get("scratch_read").handler({})  # type: ignore[union-attr]
    assert "Periwinkle" not in await tools.get("task_list").handler({})  # type: ignore[union-attr]
    await tools.get("scratch_write").handler({"text": "picnic list"})  # type: ignore[union-attr]
    await tools.get("task_add").handler({"title": "bring the blanket"})  # type: ignore[union-attr]
    own = folder / room_folder(FAMILY.room or "")
    assert "picnic list" in (own / "SCRATCH.md").read_text()
    assert "blanket" in (own / "TASKS.json").read_text()
    assert "picnic" not in (folder / "SCRATCH.md").read_text()
    assert "blanket" not in (folder / "TASKS.json").read_text()


def _rooms_world(tmp_path: Path) -> tuple[Any, PersonaStore, RecordingAdapter, Notifier]:
    config = make_config(
        tmp_path,
        users={
            "scott": {
                "identities": ["console:scott"],
                "timezone": "Europe/Lisbon",
                "notification_room": "console:scott-dm",
            }
        },
    )
    make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    room = RecordingAdapter(_context())
    return config, store, room, Notifier(config, {"console": room}, store)


async def jobs_prompts(
    config: Any, store: PersonaStore, room: RecordingAdapter, notifier: Notifier
) -> tuple[str, str]:
    """The persona text of a job's prompt in a direct room and in the family room, each
    with a job due at the same minute."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from bot.tools.crons.job import run_due_crons

    await room.start()
    family = "console:family"
    own = room_folder(family)
    await store.write("scott", "inara", f"{own}/ROOM.md", room_note(family))
    jobs = (
        '[{"id": 1, "schedule": "* * * * *", "prompt": "a briefing",'
        ' "created": "2031-01-06T08:00+00:00"}]\n'
    )
    await store.write("scott", "inara", "CRONS.json", jobs)
    await store.write("scott", "inara", f"{own}/CRONS.json", jobs)
    llm = ScriptedLLM()
    at = datetime(2031, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/Lisbon"))
    assert await run_due_crons(store, notifier, config, llm, "scott", "inara", at) == 2
    private, shared = (call.system.stable for call in llm.calls)
    return private, shared


def _context() -> Any:
    from adapters.base import AdapterContext, Incoming
    from tests.fakes.state import MemoryState

    async def handler(_incoming: Incoming) -> None:
        return None

    return AdapterContext(handler, MemoryState(), Path("."))


async def test_a_shared_rooms_reminder_and_job_answer_in_that_room(tmp_path: Path) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from bot.tools.crons.job import run_due_crons
    from bot.tools.reminders.job import surface_due

    config, store, room, notifier = _rooms_world(tmp_path)
    await room.start()
    family = "console:family"
    await store.write("scott", "inara", f"{room_folder(family)}/ROOM.md", room_note(family))
    own = room_folder(family)
    await store.write("scott", "inara", "REMINDERS.md", "- [ ] 2031-01-06 09:00 Zanzibarpills\n")
    await store.write("scott", "inara", f"{own}/REMINDERS.md", "- [ ] 2031-01-06 09:00 picnic\n")
    at = datetime(2031, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/Lisbon"))
    assert await surface_due(store, notifier, config, "scott", "inara", at) == 2
    assert {target for target, _ in room.sent} == {"scott-dm", "family"}
    [private] = [text for target, text in room.sent if target == "scott-dm"]
    [shared] = [text for target, text in room.sent if target == "family"]
    assert "Zanzibarpills" in private and "picnic" in shared and "Zanzibar" not in shared
    room.sent.clear()
    jobs = (
        '[{"id": 1, "schedule": "* * * * *", "prompt": "FAMILYJOB",'
        ' "created": "2031-01-06T08:00+00:00"}]'
    )
    await store.write("scott", "inara", f"{own}/CRONS.json", jobs + "\n")
    llm = ScriptedLLM()
    llm.queue("the family digest")
    assert await run_due_crons(store, notifier, config, llm, "scott", "inara", at) == 1
    assert [target for target, _ in room.sent] == ["family"]
    assert "the shared room console:family" in llm.calls[0].system.dynamic


async def test_private_notices_are_held_back_from_a_shared_notification_room(
    tmp_path: Path,
) -> None:
    from bot.daemon.notify import HELD_BACK
    from bot.setup.preflight import shared_notification_warnings

    config, store, room, notifier = _rooms_world(tmp_path)
    await room.start()
    assert await notifier.notify("scott", "take the Zanzibarpills", private=True)
    assert room.sent[-1] == ("scott-dm", "take the Zanzibarpills")
    assert shared_notification_warnings(config) == []
    # the notification room turns out to be a shared room the persona answers in
    key = "console:scott-dm"
    await store.write("scott", "inara", f"{room_folder(key)}/ROOM.md", room_note(key))
    # not sent (its reminder waits), and the room is told once
    assert not await notifier.notify("scott", "take the Zanzibarpills", private=True)
    assert not await notifier.notify("scott", "take the Zanzibarpills", private=True)
    assert [text for _room, text in room.sent].count(HELD_BACK) == 1
    assert not any("Zanzibar" in text for _room, text in room.sent[1:])
    assert await notifier.notify("scott", "inara: mid-term memory updated")
    assert room.sent[-1][1] == "inara: mid-term memory updated"
    [warning] = shared_notification_warnings(config)
    assert warning.startswith("users.scott.notification_room: console:scott-dm is a shared room")


# -- a room that changes kind, and the commands of a shared room --------------------------


@pytest.fixture
async def chat(tmp_path: Path) -> Any:
    from tests.test_off_the_record import _start

    make_persona(tmp_path, "scott")
    llm = ScriptedLLM()
    world = await _start(tmp_path, llm, memory_backend="sqlite-fts5")
    world.llm = llm  # type: ignore[attr-defined]
    yield world
    await world.daemon.stop()


def _asked(world: Any) -> str:
    call = world.llm.calls[-1]
    return call.system.stable + call.system.dynamic + "".join(m.text for m in call.messages)


async def test_a_direct_room_that_becomes_shared_keeps_its_direct_words_private(
    chat: Any, tmp_path: Path
) -> None:
    from bot.memory.distill.distiller import Distiller

    await chat.say("between us: I am interviewing at Obsidianworks", room="r1")
    await chat.say("and the salary would be Goldfinch level", room="r1")
    # a third person joined: the same room is a shared one now
    await chat.say("hello everyone", room="r1", direct=False)
    assert "Obsidianworks" not in _asked(chat) and "Goldfinch" not in _asked(chat)
    assert "no" in (await chat.say("/search Obsidianworks", room="r1", direct=False)).lower()
    store = PersonaStore(tmp_path)
    await Distiller(chat.daemon.config, store, {}).run("scott", "inara", "short")
    folder = tmp_path / "scott/persona/inara"
    room_short = (folder / room_folder("console:r1") / "MEMORY_SHORT.md").read_text()
    assert "hello everyone" in room_short and "Obsidianworks" not in room_short
    assert "Obsidianworks" in (folder / "MEMORY_SHORT.md").read_text()


async def test_a_shared_room_neither_undoes_nor_learns_nor_lists_another_rooms(
    chat: Any, tmp_path: Path
) -> None:
    from bot.commands.undo import ONLY_DIRECT

    await chat.say("please remember that my sister Ana is expecting twins")
    await chat.say("/new")  # the session ends: the request is promoted into USER.md
    user_md = tmp_path / "scott/persona/inara/USER.md"
    assert "expecting twins" in user_md.read_text()
    assert await chat.say("/undo", room="family", direct=False) == ONLY_DIRECT
    assert "expecting twins" in user_md.read_text()
    persona_md = (tmp_path / "scott/persona/inara/PERSONA.md").read_text()
    await chat.say("please call me Captain Nemo from now on", room="family", direct=False)
    await asyncio.sleep(0.1)  # the observer runs after the answer
    assert (tmp_path / "scott/persona/inara/PERSONA.md").read_text() == persona_md


async def test_share_refuses_an_id_that_names_nothing_and_unshare_takes_a_whole_line(
    chat: Any, tmp_path: Path
) -> None:
    shared = tmp_path / "scott/persona/inara/shared/USER.md"
    assert "no memory 4242" in (await chat.say("/share 4242")).lower()
    assert not shared.exists() or "4242" not in shared.read_text()
    await chat.say("/share I grew up in Porto")
    await chat.say("/share I play the oboe")
    assert "no line" in (await chat.say("/unshare o")).lower()
    assert "Removed" in await chat.say("/unshare i play the oboe")
    text = shared.read_text()
    assert "Porto" in text and "oboe" not in text


async def test_a_memory_tool_never_writes_a_value_the_turn_carried(chat: Any) -> None:
    chat.llm.queue("Sure, what is it?")
    await chat.say("what's the wifi password at the office? I keep forgetting")
    chat.llm.queue_tool("memory_add", {"text": "Scott uses Zx81lemonade at the office"})
    chat.llm.queue("Noted.")
    await chat.say("Zx81lemonade")
    assert chat.disk_holds("Zx81lemonade") == []


async def test_a_reply_waiting_in_the_outbox_repeats_no_secret(chat: Any) -> None:
    chat.adapter.down = True  # the platform takes nothing: the answer waits in the outbox
    chat.llm.queue("Saved it: Zq9-tangerine-K, I will remind you.")
    await chat.say("my new wifi password is Zq9-tangerine-K")
    assert chat.daemon.router.outbox.waiting_in("console", "dm")
    assert chat.disk_holds("Zq9-tangerine-K") == []


async def test_a_jobs_prompt_knows_its_user_and_a_rooms_job_only_what_the_room_may(
    tmp_path: Path,
) -> None:

    config, store, room, notifier = _rooms_world(tmp_path)
    await store.write("scott", "inara", "USER.md", "# About scott\n\n- Scott's cat is Marmalade\n")
    await store.write("scott", "inara", "shared/USER.md", "- Scott cooks on Sundays\n")
    private, shared = await jobs_prompts(config, store, room, notifier)
    assert "Marmalade" in private and "cooks on Sundays" in private
    assert "Marmalade" not in shared and "cooks on Sundays" in shared


async def test_distillation_speaks_with_the_file_layer_of_its_audience(tmp_path: Path) -> None:
    folder = make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    await store.write("scott", "inara", "USER.md", "# About scott\n\n- Scott's cat is Marmalade\n")
    await store.write("scott", "inara", "shared/USER.md", "- Scott cooks on Sundays\n")
    key = "nctalk:family"
    await store.write("scott", "inara", f"{room_folder(key)}/ROOM.md", room_note(key))
    (folder / "sessions").mkdir(exist_ok=True)
    (folder / "sessions" / "2026-05-09.md").write_text(LOG)
    llm = ScriptedLLM()
    distiller = Distiller(make_config(tmp_path), store, {"scripted": llm})
    await distiller.run("scott", "inara", "short")
    await distiller.run("scott", "inara", "mid")
    direct, *rooms = (call.system.stable for call in llm.calls)
    assert "Marmalade" in direct and "cooks on Sundays" in direct
    assert rooms and all("Marmalade" not in system for system in rooms)
    assert all("cooks on Sundays" in system for system in rooms)
