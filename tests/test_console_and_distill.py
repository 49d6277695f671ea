"""The console adapter's streaming and piping, and distillation's never-overwrite rule."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from adapters.base import AdapterContext, Incoming
from adapters.console.adapter import ConsoleAdapter
from bot.daemon.cli import main
from bot.daemon.errors import LLMError
from bot.memory.distill.distiller import Distiller
from bot.persona.store import PersonaStore
from bot.turn.audience import room_folder, room_note
from bot.turn.reply import ReplyStream
from tests.fakes.lifecycle import quiet_port
from tests.harness import ScriptedLLM, make_config, make_persona


async def _noop(incoming: Incoming) -> None:
    return None


async def test_streamed_answer_prints_once_in_a_terminal(tmp_path: Path) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        AdapterContext(handler=_noop, state=None, data_dir=tmp_path),  # type: ignore[arg-type]
        sender="scott",
        stdin=io.StringIO(""),
        stdout=out,
        stream=True,
    )
    reply = ReplyStream(console, "console", interval=0.0)
    async with reply:
        for piece in ["Hel", "lo, ", "Scott", "!"]:
            await reply.on_text(piece)
        await reply.finish("Hello, Scott!")
    assert out.getvalue() == "Hello, Scott!\n"


async def test_piped_console_answers_each_line_in_order(tmp_path: Path) -> None:
    out = io.StringIO()
    seen: list[Incoming] = []

    async def handler(incoming: Incoming) -> None:
        seen.append(incoming)
        await console.send(incoming.room, f"re: {incoming.text}")

    console = ConsoleAdapter(
        AdapterContext(handler=handler, state=None, data_dir=tmp_path),  # type: ignore[arg-type]
        sender="scott",
        stdin=io.StringIO("one\n\n   \ntwo\n"),
        stdout=out,
    )
    await console.start()
    await console.finished.wait()
    assert out.getvalue() == "re: one\nre: two\n"
    assert [i.text for i in seen] == ["one", "two"]
    assert len({i.event_id for i in seen}) == 2


async def test_failed_llm_distillation_keeps_the_previous_file(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_SHORT.md").write_text("Scott planted tomatoes.\n")
    (directory / "MEMORY_MID.md").write_text("previous mid\n")
    llm = ScriptedLLM()
    llm.queue_error(LLMError("down", user_message="the model is down"))
    distiller = Distiller(make_config(tmp_path), PersonaStore(tmp_path), {"scripted": llm})
    outcome = await distiller.run("scott", "inara", "mid")
    assert "failed" in outcome and "unchanged" in outcome
    assert (directory / "MEMORY_MID.md").read_text() == "previous mid\n"
    llm.queue("I noticed Scott is gardening.")
    assert "updated" in await distiller.run("scott", "inara", "mid")
    assert (directory / "MEMORY_MID.md").read_text() == "I noticed Scott is gardening.\n"
    assert "tomatoes" in llm.calls[-1].messages[0].text


async def test_a_rooms_failed_step_is_told_apart_from_the_file_written_before_it(
    tmp_path: Path,
) -> None:
    """The direct rooms' MEMORY_MID.md was rewritten, then a shared room's step failed: the
    answer said "memory files unchanged", of every file."""
    directory = make_persona(tmp_path, "scott")
    store = PersonaStore(tmp_path)
    room = "console:quarry"
    await store.write("scott", "inara", f"{room_folder(room)}/ROOM.md", room_note(room))
    await store.write("scott", "inara", f"{room_folder(room)}/MEMORY_SHORT.md", "the picnic\n")
    await store.write("scott", "inara", f"{room_folder(room)}/MEMORY_MID.md", "room mid\n")
    (directory / "MEMORY_SHORT.md").write_text("Scott planted tomatoes.\n")
    llm = ScriptedLLM()
    llm.queue("I noticed Scott is gardening.")
    llm.queue_error(LLMError("down", user_message="the model is down"))
    distiller = Distiller(make_config(tmp_path), store, {"scripted": llm})
    outcome = await distiller.run("scott", "inara", "mid")
    assert (directory / "MEMORY_MID.md").read_text() == "I noticed Scott is gardening.\n"
    assert (directory / room_folder(room) / "MEMORY_MID.md").read_text() == "room mid\n"
    assert outcome == (
        "Mid-term memory updated (29 characters). The mid distillation failed for room"
        f" {room} (the model is down); its MEMORY_MID.md is unchanged."
    )
    assert distiller.last_runs["scott/inara"]["mid"].endswith(" partial")


async def test_short_distillation_takes_the_newest_days_within_budget(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    sessions = directory / "sessions"
    for day in range(1, 8):
        (sessions / f"2026-11-0{day}.md").write_text(f"day {day} " + "x" * 4000)
    config = make_config(tmp_path)
    config.distill.budget_short = 2500  # about 10,000 characters: two days fit
    await Distiller(config, PersonaStore(tmp_path), {}).run("scott", "inara", "short")
    text = (directory / "MEMORY_SHORT.md").read_text()
    assert "day 6" in text and "day 7" in text and "day 5" not in text
    assert text.index("day 6") < text.index("day 7")


@pytest.mark.parametrize(
    ("budget", "filler"), [(3000, n) for n in range(2930, 3000, 10)] + [(5000, 2960)]
)
async def test_short_memory_fits_the_prompts_limit_with_the_newest_day_whole(
    tmp_path: Path, budget: int, filler: int
) -> None:
    """The prompt cuts a file at its limit from the end, where the newest day is: the
    document with its heading, its separators and its withheld secrets fits the limit of
    MEMORY_SHORT.md (12,000 characters), and so does a budget set above it."""
    directory = make_persona(tmp_path, "scott")
    sessions = directory / "sessions"
    for day in range(1, 8):
        said = f"day {day} " + "y" * filler + "\nmy password is hunter2\n"
        (sessions / f"2026-11-0{day}.md").write_text(said + f"end of day {day}\n")
    config = make_config(tmp_path)
    config.distill.budget_short = budget
    await Distiller(config, PersonaStore(tmp_path), {}).run("scott", "inara", "short")
    text = (directory / "MEMORY_SHORT.md").read_text()
    assert len(text) <= config.prompt.limit("MEMORY_SHORT.md")
    assert "day 7" in text and "end of day 7" in text and "hunter2" not in text


async def test_short_distillation_reads_no_day_older_than_it_needs(tmp_path: Path) -> None:
    """Years of session logs: only the newest days that fill the budget are read, so the
    daily distillation does not grow with the days behind them."""
    directory = make_persona(tmp_path, "scott")
    sessions = directory / "sessions"
    for day in range(1, 8):
        (sessions / f"2026-11-0{day}.md").write_text(f"day {day} " + "x" * 4000)
    (sessions / "2026-10-01.md").mkdir()  # an old day no read could take
    config = make_config(tmp_path)
    config.distill.budget_short = 2500  # about 10,000 characters: three days are read
    outcome = await Distiller(config, PersonaStore(tmp_path), {}).run("scott", "inara", "short")
    assert "refreshed from 2 days of conversation, in 1 room." in outcome
    text = (directory / "MEMORY_SHORT.md").read_text()
    assert "day 6" in text and "day 7" in text and "day 5" not in text


async def test_short_distillation_reads_no_further_back_than_its_days(tmp_path: Path) -> None:
    """An audience that never fills its budget (a quiet room, a short log) does not make it
    read every day there ever was: a quarter's days at most."""
    directory = make_persona(tmp_path, "scott")
    sessions = directory / "sessions"
    (sessions / "2026-11-07.md").write_text("day 7 we talked about the garden\n")
    (sessions / "2026-01-01.md").mkdir()  # an old day no read could take
    await Distiller(make_config(tmp_path), PersonaStore(tmp_path), {}).run(
        "scott", "inara", "short"
    )
    assert "garden" in (directory / "MEMORY_SHORT.md").read_text()


def test_a_distillation_that_failed_on_the_command_line_exits_non_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``personad distill mid`` with the model down said it failed and exited 0, so a cron
    job or a script running it took the failure for a success."""
    for name in ("PERSONAD_CONFIG", "PERSONAD_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no config of the machine's own
    monkeypatch.setenv("PERSONAD__LLM__ROLES__CHAT__BACKEND", "local")
    monkeypatch.setenv(
        "PERSONAD__LLM__BACKENDS__LOCAL__BASE_URL", f"http://127.0.0.1:{quiet_port()}/v1"
    )
    monkeypatch.setenv("PERSONAD__LLM__BACKENDS__LOCAL__MAX_RETRIES", "0")
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_MID.md").write_text("Kept.\n")
    (directory / "MEMORY_SHORT.md").write_text("Scott booked the Lisbon trip.\n")
    command = ["distill", "mid", "--user", "scott", "--persona", "inara"]
    assert main([*command, "--data-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "The mid distillation failed" in captured.out
    assert (directory / "MEMORY_MID.md").read_text() == "Kept.\n"
    # one failed step is one log line (with its cause), not the same failure twice
    assert captured.err.count("distill.failed") == 1
    assert "cannot connect" in captured.err


@pytest.mark.parametrize(
    ("command", "helped"),
    [
        (["chat"], ["--user USER", "the user who talks", "--persona PERSONA", "the persona"]),
        (["distill"], ["{short,mid,long}", "short: the newest days", "--user USER"]),
    ],
)
def test_every_argument_of_chat_and_distill_says_what_it_is_in_help(
    command: list[str], helped: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    options = lines[lines.index("options:") :]
    for argument in ("--user USER", "--persona PERSONA"):
        [line] = [line for line in options if line.strip().startswith(argument)]
        assert line.strip() != argument, f"{argument} has no help"
    text = " ".join(" ".join(lines).split())
    for words in helped:
        assert words in text
