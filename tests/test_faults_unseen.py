"""Faults past the usual ones, each driven through the daemon's real path: half an emoji (a
lone UTF-16 surrogate, what JSON's ``"\\ud83d"`` decodes to) in a message or in the model's
streamed answer, a session log that cannot be written, a claim the state database would not
take, and a config file that is not UTF-8 text. Each must end in one answer or one clear
sentence, with nothing said lost."""

from __future__ import annotations

import errno
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.commands.table import RELOAD_REFUSED
from bot.daemon.daemon import Daemon
from bot.daemon.errors import ConfigError
from bot.persona.sessionlog import waiting as sessionlog_waiting
from bot.setup.config import Config
from bot.setup.config_loader import load_config
from tests.fakes.openai_api import FakeOpenAI, Text
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon

#: the first half of 😀 (U+1F600) alone
HALF = "\ud83d"


async def start(
    data: Path, config: Config, llm: ScriptedLLM | None
) -> tuple[Daemon, RecordingAdapter]:
    """A daemon on ``data`` answering through a recording console room; ``llm`` None: the
    model of the config's backend, over the wire."""
    return await start_daemon(config, data, llm=llm, env={}, supports_edit=True)


@pytest.fixture
async def data(tmp_path: Path) -> AsyncIterator[Path]:
    make_persona(tmp_path, "scott")
    yield tmp_path


def day_log(data: Path) -> Path:
    """Today's session log of scott's persona (his day, in New York)."""
    day = datetime.now(ZoneInfo("America/New_York")).date()
    return data / f"scott/persona/inara/sessions/{day.isoformat()}.md"


def refuse_the_log(data: Path) -> Path:
    """Today's log made a folder: the day's file cannot be appended to, an OSError like a
    full disk's (until the folder is removed)."""
    log = day_log(data)
    log.unlink()
    log.mkdir()
    return log


def statuses(data: Path) -> dict[str, str]:
    with sqlite3.connect(data / "personad.db") as con:
        return dict(con.execute("SELECT event_id, status FROM events").fetchall())


async def test_half_an_emoji_in_a_message_is_answered_and_logged(data: Path) -> None:
    llm = ScriptedLLM()
    daemon, adapter = await start(data, make_config(data), llm)
    try:
        await adapter.deliver(f"look {HALF} here", sender="scott", event_id="$1")
        assert adapter.final_texts() == ["echo: look \ufffd here"]
        assert "look \ufffd here" in day_log(data).read_text(encoding="utf-8")
        assert statuses(data) == {"$1": "done"}
    finally:
        await daemon.stop()


async def test_half_an_emoji_in_the_streamed_answer_is_delivered(data: Path) -> None:
    async with FakeOpenAI() as model:
        backend = {"kind": "openai_compat", "model": "m", "base_url": model.base_url + "/v1"}
        config = make_config(data, extra={"llm": {"backends": {"scripted": backend}}})
        model.script(Text(f"Here you go {HALF}, and a whole one 😀."))
        daemon, adapter = await start(data, config, None)
        try:
            await adapter.deliver("send me a smile", sender="scott", event_id="$2")
            assert adapter.final_texts() == ["Here you go \ufffd, and a whole one 😀."]
            assert "a whole one 😀" in day_log(data).read_text(encoding="utf-8")
            assert statuses(data) == {"$2": "done"}
        finally:
            await daemon.stop()


async def test_a_session_log_that_cannot_be_written_still_gets_the_answer(data: Path) -> None:
    llm = ScriptedLLM()
    daemon, adapter = await start(data, make_config(data), llm)
    try:
        await adapter.deliver("first", sender="scott", event_id="$1")
        log = refuse_the_log(data)
        await adapter.deliver("second", sender="scott", event_id="$2")
        assert adapter.final_texts() == ["echo: first", "echo: second"]
        await adapter.deliver("/status", sender="scott", event_id="$s")
        assert "Session log: 1 entry waiting for the disk (Is a directory)" in adapter.texts()[-1]
        log.rmdir()
        await adapter.deliver("third", sender="scott", event_id="$3")
        # what was said while the log failed is still in the conversation the model hears
        heard = [m.text for m in llm.calls[-1].messages]
        assert heard == ["first", "echo: first", "second", "echo: second", "third"]
        assert statuses(data) == {"$1": "done", "$2": "done", "$3": "done", "$s": "done"}
        # and in the log, in its place, once the disk takes it again
        assert said_in_log(data) == ["second", "echo: second", "third", "echo: third"]
        await adapter.deliver("/status", sender="scott", event_id="$t")
        assert "Session log" not in adapter.texts()[-1]
    finally:
        await daemon.stop()


def said_in_log(data: Path) -> list[str]:
    """The messages of today's log, in order."""
    text = day_log(data).read_text(encoding="utf-8")
    blocks = re.findall(r"^### [\d:]+ · (?:user|persona) · [^\n]*\n\n(.*?)\n\n", text, re.M | re.S)
    return [block for block in blocks if not block.startswith("/status")]


async def test_what_waits_for_the_disk_is_written_at_a_stop(data: Path) -> None:
    daemon, adapter = await start(data, make_config(data), ScriptedLLM())
    try:
        await adapter.deliver("first", sender="scott", event_id="$1")
        log = refuse_the_log(data)
        await adapter.deliver("second", sender="scott", event_id="$2")
        log.rmdir()  # room on the disk again, and nothing more said before the stop
    finally:
        await daemon.stop()
    assert said_in_log(data) == ["second", "echo: second"]


async def test_what_waits_for_the_disk_is_bounded_oldest_first(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessionlog_waiting, "MAX_WAITING", 40)
    daemon, adapter = await start(data, make_config(data), ScriptedLLM())
    try:
        await adapter.deliver("first", sender="scott", event_id="$1")
        log = refuse_the_log(data)
        for n in range(1, 6):
            await adapter.deliver(f"message number {n}", sender="scott", event_id=f"${n + 1}")
        assert adapter.final_texts()[-1] == "echo: message number 5"
        log.rmdir()
        await adapter.deliver("back", sender="scott", event_id="$9")
    finally:
        await daemon.stop()
    # each turn is about 100 characters: the newest waited, the older were let go
    assert said_in_log(data) == ["message number 5", "echo: message number 5", "back", "echo: back"]


def test_an_append_the_disk_cut_short_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """A file size limit (as a full disk, the kernel writes what fits and refuses the rest):
    the part written is taken back, so the text can be written again whole."""
    script = f"""
import resource, signal
from pathlib import Path
from bot.persona.atomic import append_durably
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
root = Path({str(tmp_path)!r})
old, new = root / "old.md", root / "new.md"
append_durably(old, "x" * 100, "# header\\n", root)
resource.setrlimit(resource.RLIMIT_FSIZE, (150, 150))
for path in (old, new):
    try:
        append_durably(path, "y" * 200, "# header\\n", root)
    except OSError as exc:
        print("refused", exc.errno)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["refused", str(errno.EFBIG)] * 2
    assert (tmp_path / "old.md").read_text() == "# header\n" + "x" * 100
    assert not (tmp_path / "new.md").exists()  # a file the failed append made is gone


async def test_a_claim_the_database_refused_is_answered_once_delivered_again(data: Path) -> None:
    llm = ScriptedLLM()
    daemon, adapter = await start(data, make_config(data), llm)
    try:
        with sqlite3.connect(data / "personad.db") as con:
            con.execute(
                "CREATE TRIGGER full BEFORE INSERT ON events"
                " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
            )
        await adapter.deliver("are you there?", sender="scott", event_id="$1")
        assert adapter.sent == [], "nothing is sent before its claim is in the database"
        with sqlite3.connect(data / "personad.db") as con:
            con.execute("DROP TRIGGER full")
        # the platform delivers it again (an adapter restart): answered, once
        await adapter.deliver("are you there?", sender="scott", event_id="$1")
        assert adapter.final_texts() == ["echo: are you there?"]
        assert len(llm.calls) == 1, "the answer already given by the model is not asked again"
        await adapter.deliver("are you there?", sender="scott", event_id="$1")
        assert len(adapter.sent) == 1
        assert statuses(data) == {"$1": "done"}
    finally:
        await daemon.stop()


def test_a_config_file_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "personad.toml"
    path.write_bytes(b'[daemon]\nname = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 20\); save it as UTF-8"):
        load_config(path, {})


async def test_reload_of_a_config_file_not_utf8_is_refused_in_words(data: Path) -> None:
    config = make_config(data)
    config.source = data / "personad.toml"
    config.source.write_bytes(b"\xff\xfe[daemon]\n")
    daemon, adapter = await start(data, config, ScriptedLLM())
    try:
        await adapter.deliver("/reload", sender="scott", event_id="$r")
        [answer] = adapter.final_texts()
        assert answer.startswith(RELOAD_REFUSED) and "not UTF-8 text" in answer
    finally:
        await daemon.stop()


async def test_an_answer_queued_while_the_log_cannot_be_written_goes_out_once(
    data: Path,
) -> None:
    llm = ScriptedLLM()
    daemon, adapter = await start(data, make_config(data), llm)
    try:
        outbox = daemon.outbox
        outbox.base_delay = outbox.max_delay = 3600.0  # no retry by itself
        await adapter.deliver("first", sender="scott", event_id="$1")
        refuse_the_log(data)  # neither the turn nor its "answer queued" note
        adapter.down = True
        await adapter.deliver("second", sender="scott", event_id="$2")
        adapter.down = False
        await adapter.deliver("second", sender="scott", event_id="$2")  # delivered again
        assert await outbox.run_due(now=time.time() + 7200) == 1
        assert adapter.final_texts() == ["echo: first", "echo: second"]
        assert len(llm.calls) == 2, "the model was asked once for each message"
    finally:
        await daemon.stop()
