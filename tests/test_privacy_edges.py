"""The corners of the privacy promise, end to end in-process: an answer said Off The Record
that the outbox delivers later leaves no trace in the session log; a message said while Off
The Record stays off the record when its answer comes after the mode was switched off; a
shared notification room is never told the name of another room's file; a line taken out of
``shared/`` is gone from a group's next turn, and one unshared by its id is never called
private while every room still reads it; a private reminder is never said in a notification
room the daemon heard to be a group, whoever spoke there and whoever's persona answered; an
answer written for a direct room that became a group while it waited in the outbox is not
said there."""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from adapters.base import AdapterContext, Incoming
from bot.daemon.notify import HELD_BACK, Notifier
from bot.delivery.steps import WITHHELD_NOTE
from bot.persona.store import PersonaStore
from bot.setup.preflight import shared_notification_warnings
from bot.tools.reminders.job import surface_due
from bot.turn.answer_delivery import WITHHELD
from bot.turn.audience import ROOM_NOTE, room_folder, room_note
from tests.fakes.state import MemoryState
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon
from tests.test_off_the_record import World as OffTheRecordWorld


class World(OffTheRecordWorld):
    @property
    def sessions(self) -> Path:
        return self.data / "scott" / "persona" / "inara" / "sessions"

    def logged(self) -> str:
        return "".join(path.read_text() for path in sorted(self.sessions.glob("*.md")))


@pytest.fixture
async def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
async def world(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[World]:
    make_persona(tmp_path, "scott")
    config = make_config(tmp_path, memory_backend="sqlite-fts5")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm, env={})
    yield World(daemon, adapter, tmp_path)
    await daemon.stop()


async def test_an_off_the_record_answer_delivered_late_leaves_no_line_in_the_log(
    world: World, llm: ScriptedLLM
) -> None:
    outbox = world.daemon.outbox
    outbox.base_delay = outbox.max_delay = 3600.0  # no retry by itself
    await world.say("/otr on")
    world.adapter.down = True
    llm.queue("Your locker is number 12.")
    await world.say("where is my locker?")
    world.adapter.down = False
    await world.say("/otr off")
    assert await outbox.run_due(now=time.time() + 7200) == 2
    assert "Your locker is number 12." in world.adapter.texts()
    assert world.logged() == "", "an Off The Record answer's delivery was written down"


async def test_a_message_said_off_the_record_stays_so_when_answered_after_the_mode_ended(
    world: World, llm: ScriptedLLM
) -> None:
    """Cut off (an adapter restart) while Off The Record, a message delivered again after
    ``/otr off`` is still answered off the record: nothing of it is logged or remembered."""
    await world.say("/otr on")
    llm.delay = 30.0  # the model is slow: the turn is cut off while it thinks
    llm.queue("Noted, the Kestrelmoor affair stays between us.")
    said = "about the Kestrelmoor affair: it was me"
    asked = len(llm.calls)
    turn = asyncio.create_task(
        world.adapter.deliver(said, sender="scott", room="dm", event_id="otr-1", is_direct=True)
    )
    async with asyncio.timeout(10):
        while len(llm.calls) == asked:  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.01)
    turn.cancel()  # an adapter restart cuts the handler off
    with pytest.raises(asyncio.CancelledError):
        await turn
    await world.say("/otr off")
    told = world.adapter.context.off_the_record
    # the platform delivers the message again
    llm.delay, asked = 0.2, len(llm.calls)
    again = asyncio.create_task(
        world.adapter.deliver(said, sender="scott", room="dm", event_id="otr-1", is_direct=True)
    )
    async with asyncio.timeout(10):
        while len(llm.calls) == asked:  # noqa: ASYNC110 (a plain list)
            await asyncio.sleep(0.01)
    assert told("dm"), "the adapter may write down what it sends of an off-the-record answer"
    await again
    assert not told("dm")
    assert "Kestrelmoor" not in world.logged(), "a message said off the record was logged"
    session = await world.daemon.sessions.get("scott", "inara")
    assert session.pending_extract == 0, "a message said off the record was kept for memory"


async def test_a_shared_notification_room_is_not_told_of_another_rooms_files(
    tmp_path: Path,
) -> None:
    """A shared room's reminders that cannot be saved: the notice names that room's folder,
    so a notification room shared with others never gets it (it is told a notice waits)."""
    users = {
        "scott": {
            "identities": ["console:scott"],
            "timezone": "Europe/Lisbon",
            "notification_room": "console:family",
        }
    }
    config = make_config(tmp_path, users=users)
    make_persona(tmp_path, "scott")
    store = FullDisk(tmp_path)
    folder = tmp_path / "scott/persona/inara"
    for room in ("console:family", "console:work"):
        (folder / room_folder(room)).mkdir(parents=True)
        (folder / room_folder(room) / ROOM_NOTE).write_text(room_note(room))
    work = folder / room_folder("console:work") / "REMINDERS.md"
    work.write_text("- [ ] 2031-01-06 09:00 Call the Hollowbrook supplier\n")
    family = RecordingAdapter(AdapterContext(_ignore, MemoryState(), Path(".")))
    await family.start()
    notifier = Notifier(config, {"console": family}, store)
    now = datetime(2031, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/Lisbon"))
    await surface_due(store, notifier, config, "scott", "inara", now)
    told = "\n".join(family.texts())
    assert "console-work" not in told, f"the family room was told of the work room: {told!r}"


class FullDisk(PersonaStore):
    """A store on a full disk: every write fails as the kernel reports it."""

    async def write(
        self, user: str, persona: str, filename: str, text: str, *, durable: bool = True
    ) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


async def _ignore(incoming: Incoming) -> None:
    return None


def _asked(llm: ScriptedLLM) -> str:
    """Everything the model was given for the last request."""
    call = llm.calls[-1]
    return call.system.stable + call.system.dynamic + "".join(m.text for m in call.messages)


async def test_a_line_unshared_is_gone_from_the_next_turn_of_a_shared_room(
    world: World, llm: ScriptedLLM
) -> None:
    await world.say("/share My brother Tomasz moved to Gdansk")
    await world.say("how are you today?")  # a turn: memory keeps a copy of the line
    await world.say("where does Tomasz live now?", room="family", direct=False)
    assert "Gdansk" in _asked(llm), "a line made shared reaches every room"
    assert "Removed" in await world.say("/unshare My brother Tomasz moved to Gdansk")
    await world.say("where does Tomasz live now?", room="family", direct=False)
    assert "Gdansk" not in _asked(llm), "a line unshared still reached a shared room"


async def test_a_shared_line_unshared_by_its_id_is_never_said_to_be_private(
    world: World, llm: ScriptedLLM
) -> None:
    """Every room reads a line of ``shared/USER.md`` in the file itself: ``/unshare ID`` of its
    copy in memory says how to take the line out instead of calling it private."""
    await world.say("/share My brother Tomasz moved to Gdansk")
    await world.say("how are you today?")  # a turn: memory keeps a copy of the line
    session = await world.daemon.sessions.get("scott", "inara")
    assert session.memory is not None
    item = next(i for i in await session.memory.list_items() if "Gdansk" in i.text)
    answer = await world.say(f"/unshare {item.id}")
    assert "private again" not in answer, "a line every room reads was called private"
    advice = answer[answer.index("`") + 1 : answer.rindex("`")]
    assert "Removed" in await world.say(advice)
    await world.say("where does Tomasz live now?", room="family", direct=False)
    assert "Gdansk" not in _asked(llm), "what was made private again still reached a group"


async def test_a_share_said_off_the_record_is_refused_when_it_comes_again_after_the_mode(
    world: World,
) -> None:
    """``/share TEXT`` said Off The Record and delivered again after ``/otr off`` (its first
    delivery cut off) keeps nothing: the text was said off the record."""
    await world.say("/otr on")
    await world.say("/otr off")
    router = world.daemon.router
    assert router is not None
    # as the router marks a message it claimed while the mode was on, until it is finished
    router._said_off_record[("console", "share-1")] = "dm"
    before = len(world.adapter.sent)
    await world.adapter.deliver(
        "/share My brother Tomasz moved to Gdansk", sender="scott", event_id="share-1"
    )
    answer = world.adapter.texts()[before:]
    assert answer and "Off The Record" in answer[-1]
    shared = world.data / "scott" / "persona" / "inara" / "shared" / "USER.md"
    assert not shared.exists() or "Gdansk" not in shared.read_text()


# -- a notification room the daemon has seen to be a group ---------------------------------

#: a private reminder: said in a direct room, due where the user's notices go
PRIVATE_REMINDER = "- [ ] 2031-01-06 09:00 Pick up the Quillonide prescription\n"
DUE = datetime(2031, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/Lisbon"))


@pytest.fixture
async def noticed(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[World]:
    """Scott's notices go to ``console:family``; holly is a user of the same daemon."""
    users = {
        "scott": {
            "identities": ["console:scott"],
            "timezone": "Europe/Lisbon",
            "notification_room": "console:family",
        },
        "holly": {"identities": ["console:holly"], "timezone": "Europe/Lisbon"},
    }
    make_persona(tmp_path, "scott")
    make_persona(tmp_path, "holly")
    config = make_config(tmp_path, users=users, memory_backend="sqlite-fts5")
    daemon, adapter = await start_daemon(config, tmp_path, llm=llm, env={})
    folder = tmp_path / "scott" / "persona" / "inara"
    (folder / "REMINDERS.md").write_text(PRIVATE_REMINDER)
    yield World(daemon, adapter, tmp_path)
    await daemon.stop()


async def _remind(world: World) -> str:
    """What the family room was sent when scott's private reminder fell due."""
    before = len(world.adapter.sent)
    daemon = world.daemon
    await surface_due(daemon.store, daemon.notifier, daemon.config, "scott", "inara", DUE)
    return "\n".join(text for room, text in world.adapter.sent[before:] if room == "family")


async def test_a_private_reminder_waits_when_the_notification_room_was_heard_as_a_group(
    noticed: World,
) -> None:
    """The persona never answered scott there on the record (he spoke Off The Record), so
    no folder names the room; the daemon still heard it was a group."""
    await noticed.say("/otr on", room="family", direct=False)
    await noticed.say("who is coming on Sunday?", room="family", direct=False)
    told = await _remind(noticed)
    assert "Quillonide" not in told, f"a private reminder was said in a group: {told!r}"
    assert HELD_BACK in told


async def _a_third_person_speaks(world: World, room: str = "family") -> None:
    """Someone no user is says hello in ``room``, to no one in particular."""
    await world.adapter.deliver(
        "hi all, thanks for adding me",
        sender="cousin",
        room=room,
        event_id="cousin-1",
        is_direct=False,
        addressed=False,
    )


async def test_a_private_reminder_waits_when_someone_else_speaks_in_the_notification_room(
    noticed: World,
) -> None:
    """A direct conversation a third person joined: what they say there (to no one the
    daemon knows, to no one in particular) shows the room is a group now."""
    await _a_third_person_speaks(noticed)
    told = await _remind(noticed)
    assert "Quillonide" not in told, f"a private reminder was said in a group: {told!r}"
    # the third person left: the room is direct again, and the reminder that waited arrives
    await noticed.say("just us again", room="family", direct=True)
    assert "Quillonide" in await _remind(noticed)


async def test_a_room_heard_as_a_group_is_one_after_a_restart(noticed: World) -> None:
    """The daemon restarted after the third person spoke: the reminder due before anyone
    speaks there again still waits."""
    await _a_third_person_speaks(noticed)
    await noticed.daemon.stop()
    config, llm = noticed.daemon.config, ScriptedLLM()
    daemon, adapter = await start_daemon(config, noticed.data, llm=llm, env={})
    restarted = World(daemon, adapter, noticed.data)
    try:
        told = await _remind(restarted)
        assert "Quillonide" not in told, f"a private reminder was said in a group: {told!r}"
        assert HELD_BACK in told
    finally:
        await daemon.stop()


async def test_a_private_reminder_waits_in_a_room_another_users_persona_knows_as_shared(
    noticed: World,
) -> None:
    """The room is a group whoever's persona answered there: holly's knows it as one."""
    folder = noticed.data / "holly" / "persona" / "inara" / room_folder("console:family")
    folder.mkdir(parents=True)
    (folder / ROOM_NOTE).write_text(room_note("console:family"))
    told = await _remind(noticed)
    assert "Quillonide" not in told, f"a private reminder was said in a group: {told!r}"
    assert shared_notification_warnings(noticed.daemon.config)


# -- an answer that waited while its direct room became a group -----------------------------

#: what scott's private files say, and so what an answer in a direct room may say
PRIVATE_ANSWER = "Your Quillonide dose went up to 40 mg last week."


async def _queued_in_dm(world: World, llm: ScriptedLLM, *, direct: bool = True) -> None:
    """scott asks in ``dm``; the platform is down, so the answer waits in the outbox."""
    outbox = world.daemon.outbox
    outbox.base_delay = outbox.max_delay = 3600.0  # no retry by itself
    world.adapter.down = True
    llm.queue(PRIVATE_ANSWER)
    await world.say("what is my dose now?", room="dm", direct=direct)
    world.adapter.down = False


async def test_an_answer_for_a_direct_room_that_became_a_group_is_not_said_there(
    world: World, llm: ScriptedLLM
) -> None:
    """The answer, written while the room was direct (its prompt read the private files),
    waits through an outage while a third person joins and speaks: the room is told an
    answer was not sent, never the answer; the event is settled, and the log says so."""
    await _queued_in_dm(world, llm)
    await _a_third_person_speaks(world, room="dm")
    assert await world.daemon.outbox.run_due(now=time.time() + 7200) == 1
    said = world.adapter.texts()
    assert not any("Quillonide" in text for text in said), f"leaked to a group: {said!r}"
    assert said[-1] == WITHHELD_NOTE
    assert not world.daemon.outbox.parcels
    assert WITHHELD in world.logged()


async def test_a_queued_answer_is_delivered_whole_where_the_room_stayed_as_it_was(
    world: World, llm: ScriptedLLM
) -> None:
    """A direct room that stayed direct, and a group's own answer in a group: each waited
    answer arrives as it was written."""
    await _queued_in_dm(world, llm)
    await world.daemon.outbox.run_due(now=time.time() + 7200)
    assert world.adapter.texts()[-1] == PRIVATE_ANSWER

    await _queued_in_dm(world, llm, direct=False)  # asked in the group itself
    await _a_third_person_speaks(world, room="dm")
    await world.daemon.outbox.run_due(now=time.time() + 7200)
    assert world.adapter.texts()[-1] == PRIVATE_ANSWER


async def test_a_waiting_private_answer_stays_private_across_a_restart(
    world: World, llm: ScriptedLLM
) -> None:
    """The daemon restarts while the answer waits; the room becomes a group after: the
    answer read again from ``personad.db`` still knows it was written for a direct room."""
    await _queued_in_dm(world, llm)
    await world.daemon.stop()
    daemon, adapter = await start_daemon(world.daemon.config, world.data, llm=llm, env={})
    restarted = World(daemon, adapter, world.data)
    try:
        daemon.outbox.base_delay = daemon.outbox.max_delay = 3600.0
        await _a_third_person_speaks(restarted, room="dm")
        await daemon.outbox.run_due(now=time.time() + 7200)
        said = adapter.texts()
        assert not any("Quillonide" in text for text in said), f"leaked to a group: {said!r}"
        assert WITHHELD_NOTE in said
    finally:
        await daemon.stop()


async def test_a_search_from_a_direct_room_that_became_a_group_is_not_shown_there(
    world: World, llm: ScriptedLLM
) -> None:
    """A command's answer in a direct room shows what only that room may see (a search
    there reads every room's turns): it waits out the outage as privately as an answer."""
    llm.queue("Noted.")
    await world.say("the Quillonide pharmacy on Rua Augusta closes at six")
    outbox = world.daemon.outbox
    outbox.base_delay = outbox.max_delay = 3600.0
    world.adapter.down = True
    await world.say("/search pharmacy")
    world.adapter.down = False
    await _a_third_person_speaks(world, room="dm")
    await outbox.run_due(now=time.time() + 7200)
    said = world.adapter.texts()
    assert not any("Augusta" in text for text in said[1:]), f"leaked to a group: {said!r}"
    assert said[-1] == WITHHELD_NOTE
