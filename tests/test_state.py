"""The daemon's state database: migrations, exactly-once claims, settings that survive, and
no text left on disk once its row lets go of it (the bytes of the files are read)."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.base import Incoming
from bot.daemon.errors import StoreError
from bot.delivery.state import MIGRATIONS, StateStore


async def test_migrations_from_empty_and_from_version_one(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    con.executescript(MIGRATIONS[0][1])
    con.execute("INSERT INTO schema_version VALUES (1)")
    con.execute("INSERT INTO kv VALUES ('telegram:offset', '42')")
    con.commit()
    con.close()
    async with StateStore(path) as state:
        assert await state.kv_get("telegram:offset") == "42"
        await state.set_active_persona("scott", "developer")
    async with StateStore(tmp_path / "fresh.db") as fresh:
        await fresh.set_active_persona("scott", "inara")
        assert await fresh.get_active_persona("scott") == "inara"
    versions = sqlite3.connect(path).execute("SELECT MAX(version) FROM schema_version")
    assert versions.fetchone()[0] == max(v for v, _ in MIGRATIONS)


async def test_an_event_is_claimed_once_and_retried_after_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as first:
        assert await first.claim_event("matrix", "$a") == "new"
        assert await first.claim_event("matrix", "$a") == "duplicate"
        await first.finish_event("matrix", "$a")
        assert await first.claim_event("matrix", "$b") == "new"  # never finished: a crash
    async with StateStore(path) as second:
        assert await second.claim_event("matrix", "$a") == "duplicate"
        assert await second.claim_event("matrix", "$b") == "retry"
        assert await second.claim_event("matrix", "$b") == "duplicate"
        assert await second.claim_event("telegram", "$a") == "new"


async def test_claims_and_finishes_arriving_together_are_exact(tmp_path: Path) -> None:
    """Under load claims go to the database in batches; each event still gets its own answer."""
    path = tmp_path / "personad.db"
    ids = [f"${n}" for n in range(600)]
    async with StateStore(path) as first:
        # every event twice at once (a platform redelivering while the first is handled)
        claims = await asyncio.gather(*(first.claim_event("matrix", i) for i in ids + ids))
        assert claims[: len(ids)] == ["new"] * len(ids)
        assert claims[len(ids) :] == ["duplicate"] * len(ids)
        await asyncio.gather(*(first.finish_event("matrix", i) for i in ids[:300]))
    async with StateStore(path) as second:
        again = await asyncio.gather(*(second.claim_event("matrix", i) for i in ids))
    assert again == ["duplicate"] * 300 + ["retry"] * 300  # the unfinished are retried once


async def _steps_to_finish(state: StateStore, event_ids: list[str]) -> int:
    """SQLite's virtual machine steps (in hundreds) spent finishing events that end together
    (they go to the database in one batch)."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    await state.conn.set_progress_handler(count, 100)
    await asyncio.gather(*(state.finish_event("matrix", i) for i in event_ids))
    await state.conn.set_progress_handler(None, 100)
    return steps[0]


async def test_finishing_an_event_does_not_read_the_month_of_events(tmp_path: Path) -> None:
    """A month of events stays in the table; finishing a turn reads its own row only."""
    async with StateStore(tmp_path / "few.db") as few, StateStore(tmp_path / "many.db") as many:
        for state, count in ((few, 10), (many, 5000)):
            ids = [f"${n}" for n in range(count)]
            await asyncio.gather(*(state.claim_event("matrix", i) for i in ids))
            await asyncio.gather(*(state.finish_event("matrix", i) for i in ids[:-3]))
        small = await _steps_to_finish(few, ["$7", "$8", "$9"])
        large = await _steps_to_finish(many, ["$4997", "$4998", "$4999"])
    assert large <= small + 2


async def test_a_new_claim_is_written_while_the_turn_runs(tmp_path: Path) -> None:
    """A new event is "new" at once; event_recorded waits until the database holds it, and a
    finish that comes before the write completes lands after it."""
    path = tmp_path / "personad.db"
    async with StateStore(path) as first:
        assert await first.claim_event("matrix", "$a") == "new"
        await first.event_recorded("matrix", "$a")
        rows = sqlite3.connect(path).execute("SELECT event_id, status FROM events").fetchall()
        assert rows == [("$a", "processing")]
        assert await first.claim_event("matrix", "$b") == "new"
        await first.finish_event("matrix", "$b")  # no wait in between
        await first.event_recorded("matrix", "$b")  # finished: nothing left to wait for
    async with StateStore(path) as second:
        assert await second.claim_event("matrix", "$b") == "duplicate"
        assert await second.claim_event("matrix", "$a") == "retry"


async def test_a_claim_that_cannot_be_written_stops_the_answer(tmp_path: Path) -> None:
    async with StateStore(tmp_path / "personad.db") as state:
        await state.conn.execute("DROP TABLE events")
        assert await state.claim_event("matrix", "$a") == "new"
        with pytest.raises(StoreError, match="no such table"):
            await state.event_recorded("matrix", "$a")
        await state.finish_event("matrix", "$a")  # nothing to finish, and no error
        assert await state.claim_event("matrix", "$a") == "new"  # a redelivery tries again
        await state.finish_event("matrix", "$a")


async def test_pruned_events_are_forgotten(tmp_path: Path) -> None:
    async with StateStore(tmp_path / "personad.db") as state:
        assert await state.claim_event("telegram", "7") == "new"
        await state.finish_event("telegram", "7")
        assert await state.claim_event("telegram", "7") == "duplicate"
        assert await state.prune_events(older_than_days=-1) == 1
        assert await state.claim_event("telegram", "7") == "new"
        await state.event_recorded("telegram", "7")


async def test_settings_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        await state.set_otr_room("scott", "matrix:!dm", True)
        await state.set_tier("scott", "inara", 3)
        await state.for_adapter("matrix").set("next_batch", "s123")
    async with StateStore(path) as state:
        assert await state.otr_rooms() == [("scott", "matrix:!dm")]
        assert await state.session_tier("scott", "inara") == 3
        assert await state.session_tier("scott", "developer") is None
        assert await state.for_adapter("matrix").get("next_batch") == "s123"
        assert await state.for_adapter("telegram").get("next_batch") is None


async def test_an_older_off_the_record_flag_stays_on_in_every_room(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for version, script in MIGRATIONS:
        if version <= 2:
            con.executescript(script)
            con.execute("INSERT INTO schema_version VALUES (?)", (version,))
    con.execute("INSERT INTO session_state (user, persona, otr) VALUES ('scott', 'inara', 1)")
    con.commit()
    con.close()
    async with StateStore(path) as state:
        assert await state.otr_rooms() == [("scott", "*")]
        await state.set_otr_room("scott", "telegram:1", False)  # off ends it everywhere
        assert await state.otr_rooms() == []


async def test_a_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open state database"):
        await StateStore(path).open()
    assert path.read_bytes().startswith(b"this is not")


async def test_the_outbox_marks_its_event_queued_then_done(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        assert await state.claim_event("matrix", "$q") == "new"
        await state.event_recorded("matrix", "$q")
        row = await state.outbox_add("matrix", "$q", "scott", "inara", "[]", 0.0)
        state.event_queued("matrix", "$q")
    async with StateStore(path) as later:
        # its answer waits in the outbox: a redelivery is not answered again
        assert await later.claim_event("matrix", "$q") == "duplicate"
        assert [r[0] for r in await later.outbox_rows()] == [row]
        await later.outbox_remove(row)
        status = await later._one("SELECT status FROM events WHERE event_id = '$q'", ())
        assert status == ("done",)


async def test_a_released_event_is_retried_by_this_process_and_the_next(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        assert await state.claim_event("matrix", "$r") == "new"
        await state.event_recorded("matrix", "$r")
        state.release_event("matrix", "$r")  # its turn was cut off
        assert await state.claim_event("matrix", "$r") == "retry"
        assert await state.claim_event("matrix", "$r") == "duplicate"  # being retried
        state.release_event("matrix", "$r")
    async with StateStore(path) as later:
        assert await later.claim_event("matrix", "$r") == "retry"
        await later.finish_event("matrix", "$r")
        assert await later.claim_event("matrix", "$r") == "duplicate"


async def test_the_first_message_of_an_answer_is_remembered_until_pruned(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        assert await state.claim_event("matrix", "$f") == "new"
        await state.event_recorded("matrix", "$f")
        await state.record_message("matrix", "$f", "!room", "$answer")
    async with StateStore(path) as later:
        assert await later.first_message("matrix", "$f") == "$answer"
        await later.finish_event("matrix", "$f")
        await later.prune_events(older_than_days=-1)
        assert await later.first_message("matrix", "$f") is None


async def test_an_outbox_row_from_before_refusals_knows_its_room_and_can_be_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "personad.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for version, script in MIGRATIONS:
        if version <= 6:
            con.executescript(script)
            con.execute("INSERT INTO schema_version VALUES (?)", (version,))
    con.execute(
        "INSERT INTO events (platform, event_id, status, boot_id, received_at)"
        " VALUES ('matrix', '$old', 'queued', 'b', 0)"
    )
    con.execute(
        "INSERT INTO outbox (platform, event_id, user, persona, steps, attempts, created_at,"
        " next_at) VALUES ('matrix', '$old', 'scott', 'inara',"
        ' \'[{"op": "send", "room": "!den", "text": "hi", "key": "k"}]\', 3, 5.0, 0)'
    )
    con.commit()
    con.close()
    async with StateStore(path) as state:
        [row] = await state.outbox_rows()
        await state.outbox_refused(row[0], "PermanentSendError: M_FORBIDDEN", 4)
        assert await state.outbox_rows() == []
        [refused] = await state.undelivered_rows(0.0)
    assert refused[:8] == ("matrix", "$old", "scott", "inara", "!den", refused[5], 4, 5.0)
    assert refused[5] == "PermanentSendError: M_FORBIDDEN"
    assert abs(refused[8] - time.time()) < 60
    with sqlite3.connect(path) as con:
        status = con.execute("SELECT status FROM events WHERE event_id = '$old'").fetchone()
    assert status == ("done",)


def _holding(folder: Path, word: str) -> list[str]:
    """The SQLite files of ``personad.db`` (with its -wal and -shm) whose bytes hold ``word``."""
    return [p.name for p in folder.glob("personad.db*") if word.encode() in p.read_bytes()]


async def _until_none_holds(folder: Path, word: str) -> None:
    async with asyncio.timeout(5):
        while _holding(folder, word):  # noqa: ASYNC110 (the files: nothing to wait on)
            await asyncio.sleep(0.05)


async def test_a_settled_message_and_a_delivered_answer_leave_no_bytes_on_disk(
    tmp_path: Path,
) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        message = Incoming("nctalk", "scott", "den", "my pin is narwhalfig", "$m")
        assert await state.claim_event("nctalk", "$m", keep=message) == "new"
        await state.event_recorded("nctalk", "$m")
        assert _holding(tmp_path, "narwhalfig")  # kept until it is answered
        steps = '[{"op": "send", "room": "den", "text": "about narwhalfig", "key": "k"}]'
        row = await state.outbox_add("nctalk", "$m", "scott", "inara", steps, 0.0, "den")
        state.event_queued("nctalk", "$m")
        await state.outbox_update(row, steps.replace("narwhalfig", "lemurtulip"), 1, 0.0)
        assert _holding(tmp_path, "lemurtulip")
        await _until_none_holds(tmp_path, "narwhalfig")  # the message and the first steps
        await state.outbox_remove(row)
        await _until_none_holds(tmp_path, "lemurtulip")
        assert await state.outbox_rows() == []


KILLED_AFTER_SETTLING = """
import asyncio, os, signal, sys
from pathlib import Path
from adapters.base import Incoming
from bot.delivery.state import StateStore

async def main() -> None:
    state = StateStore(Path(sys.argv[1]))
    await state.open()
    message = Incoming("nctalk", "scott", "den", "the safe opens with ibexcymbal", "$k")
    await state.claim_event("nctalk", "$k", keep=message)
    await state.event_recorded("nctalk", "$k")
    await state.finish_event("nctalk", "$k")
    os.kill(os.getpid(), signal.SIGKILL)  # before the checkpoint that follows a settle

asyncio.run(main())
"""


async def test_what_a_killed_process_left_in_the_wal_is_gone_before_serving(
    tmp_path: Path,
) -> None:
    path = tmp_path / "personad.db"
    killed = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", KILLED_AFTER_SETTLING, str(path)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _holding(tmp_path, "ibexcymbal") == ["personad.db-wal"]  # settled, not yet gone
    async with StateStore(path) as state:
        assert _holding(tmp_path, "ibexcymbal") == []  # at open, before anything is served
        assert await state.claim_event("nctalk", "$k") == "duplicate"


async def test_an_answer_queued_before_the_private_column_counts_as_private(
    tmp_path: Path,
) -> None:
    """An answer waiting in the outbox of a version before rows said whether they were
    written for a direct room may have been: after the upgrade it is held to that."""
    path = tmp_path / "personad.db"
    async with StateStore(path) as state:
        await state.outbox_add("telegram", "$q", "scott", "inara", "[]", 0.0, "dm")
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("ALTER TABLE outbox DROP COLUMN private")
    con.execute("DELETE FROM schema_version WHERE version >= 9")
    con.close()
    async with StateStore(path) as state:
        [row] = await state.outbox_rows()
    assert row[2] == "$q" and row[-1] is True


async def test_a_file_written_without_secure_delete_is_rewritten_once(tmp_path: Path) -> None:
    path = tmp_path / "personad.db"
    async with StateStore(path):
        pass
    # as a version before this one, or an SQLite built not to zero freed bytes, left it
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA secure_delete = OFF")
    con.execute(
        "INSERT INTO events (platform, event_id, status, boot_id, received_at, incoming)"
        " VALUES ('nctalk', '$o', 'processing', 'b', 0, ?)",
        ("tapirsonnet is the alarm code, " * 8,),  # longer than the row it leaves
    )
    con.execute("UPDATE events SET status = 'done' WHERE event_id = '$o'")  # cleared
    # a file of version 7, before the rewrite's migration and those after it
    con.execute("ALTER TABLE outbox DROP COLUMN private")
    con.execute("DELETE FROM schema_version WHERE version >= 8")
    con.close()
    assert _holding(tmp_path, "tapirsonnet") == ["personad.db"]  # in the page's free space
    async with StateStore(path) as state:
        assert _holding(tmp_path, "tapirsonnet") == []
        assert await state.kv_get("personad.db:rewrite") is None  # once only
