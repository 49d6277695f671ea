"""The commands every user has, and ``personad init`` as a new user meets it, held to what
the docs promise: ``/persona`` switches the persona the next turn really takes (in the
terminal of ``personad chat`` too), finds a persona typed in another case and lists the
user's own when the name is none of them; ``/shared`` shows each line as ``/unshare`` takes
it back; an answer ``init`` cannot use is asked again, not the end of the run, and the end
of input at a question is one line, not a traceback."""

from __future__ import annotations

import os
import pty
import select
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.commands.table import unknown_command
from tests.harness import ScriptedLLM, make_persona
from tests.test_off_the_record import World
from tests.test_off_the_record import _start as start_world
from tests.test_preflight import personad

REPO = Path(__file__).resolve().parent.parent


def logged_by(world: World, persona: str) -> str:
    folder = world.data / "scott" / "persona" / persona / "sessions"
    return "".join(path.read_text() for path in folder.glob("*.md"))


async def _start(data: Path, *, pinned: str | None = None) -> World:
    """A daemon with one console adapter and scott's two personas; ``pinned``: the persona
    ``personad chat --persona`` gives the terminal."""
    make_persona(data, "scott")
    make_persona(data, "scott", "developer")
    return await start_world(
        data, ScriptedLLM(), pinned={("scott", "console"): pinned} if pinned else None
    )


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    world = await _start(tmp_path)
    yield world
    await world.daemon.stop()


async def test_persona_in_the_terminal_of_personad_chat_switches_that_terminal(
    tmp_path: Path,
) -> None:
    """``make chat`` pins the terminal to a persona; ``/persona developer`` there said it
    switched while every turn after it still went to inara."""
    world = await _start(tmp_path, pinned="inara")
    try:
        assert "now talking with **developer**" in await world.say("/persona developer")
        assert await world.say("which of you is this") == "echo: which of you is this"
        assert "which of you is this" in logged_by(world, "developer")
        assert "which of you is this" not in logged_by(world, "inara")
        assert "talking with **developer**" in await world.say("/persona")
        # the terminal's choice is its own: the persona the chat apps use is left as it was
        assert await world.daemon.state.get_active_persona("scott") is None
    finally:
        await world.daemon.stop()


async def test_persona_in_a_room_that_keeps_its_persona_says_so_and_changes_nothing(
    world: World,
) -> None:
    """A web conversation keeps its persona (the console starts a new conversation for
    ``/persona NAME`` said alone); with more words the command reached the router, which
    said it switched and changed the persona of every other platform instead."""
    router = world.daemon.router
    assert router is not None
    router.room_persona["console:dm"] = "inara"
    answer = await world.say("/persona developer now")
    assert "stays with **inara**" in answer and "`/persona developer`" in answer
    assert await world.daemon.state.get_active_persona("scott") is None
    assert await router.persona_for("scott") == "inara"


async def test_persona_typed_in_another_case_is_found(world: World) -> None:
    """A phone capitalises the first word's letter: ``/persona Developer`` was refused with
    a command to create a second persona named ``Developer``."""
    assert "now talking with **developer**" in await world.say("/persona Developer")
    await world.say("hello there")
    assert "hello there" in logged_by(world, "developer")


async def test_persona_that_is_none_of_yours_lists_yours(world: World) -> None:
    """The answer names the personas there are, not a server command with the server's path."""
    answer = await world.say("/persona kaylee")
    assert answer == "You have no persona 'kaylee'. Your personas: developer, inara."
    answer = await world.say("/persona ../../holly")
    assert answer == "You have no persona '../../holly'. Your personas: developer, inara."


async def test_shared_shows_a_line_as_unshare_takes_it_back(world: World) -> None:
    """A shared line that began with emphasis lost its first ``*`` in ``/shared``, and the
    text shown was not one ``/unshare`` could find."""
    await world.say("/share *Not* a morning person")
    listed = await world.say("/shared")
    assert "- shared/USER.md: *Not* a morning person" in listed.splitlines()
    shown = listed.splitlines()[1].removeprefix("- shared/USER.md: ")
    assert "Removed from shared/USER.md: 1 line." == await world.say(f"/unshare {shown}")


async def test_share_of_a_line_already_shared_adds_no_second_copy(world: World) -> None:
    """Each copy is read in every room's prompt: ``/share`` said twice kept the line twice."""
    assert await world.say("/share I grow tomatoes") == "Every room now knows: I grow tomatoes"
    again = await world.say("/share i grow  TOMATOES")
    assert again == "Every room knows that already: i grow TOMATOES"
    shared = (world.data / "scott/persona/inara/shared/USER.md").read_text()
    assert shared.count("tomatoes") == 1


async def test_shared_lists_no_rule_or_bold_heading_as_a_shared_line(world: World) -> None:
    """A ``---`` rule or a ``**heading**`` written by hand in shared/USER.md is no line the
    user shared: it was listed as one ("--", "*Heading**")."""
    shared = world.data / "scott/persona/inara/shared"
    shared.mkdir(exist_ok=True)
    (shared / "USER.md").write_text("**About me**\n\n- I grow tomatoes\n\n---\n")
    listed = (await world.say("/shared")).splitlines()
    assert listed == ["**Known in every room:**", "- shared/USER.md: I grow tomatoes"]


async def test_shared_lists_a_plain_line_every_room_reads_and_unshare_takes_it_out(
    world: World,
) -> None:
    """A line written by hand without a list marker is read by every room's prompt, but
    ``/shared`` listed only list lines, and ``/unshare`` could not find it."""
    shared = world.data / "scott/persona/inara/shared"
    shared.mkdir(exist_ok=True)
    (shared / "USER.md").write_text(
        "# Shared with every room\n\n- I grow tomatoes\nI  am vegetarian\n\n---\n"
    )
    (shared / "MEMORY.md").write_text("**Notes**\n\nThe allotment is plot 14\n")
    listed = (await world.say("/shared")).splitlines()
    assert listed == [
        "**Known in every room:**",
        "- shared/USER.md: I grow tomatoes",
        "- shared/USER.md: I am vegetarian",
        "- shared/MEMORY.md: The allotment is plot 14",
    ]
    answer = await world.say("/unshare i am vegetarian")
    assert answer == "Removed from shared/USER.md: 1 line."
    assert (shared / "USER.md").read_text() == (
        "# Shared with every room\n\n- I grow tomatoes\n\n---\n"
    )
    answer = await world.say("/unshare The allotment is plot 14")
    assert answer == "Removed from shared/MEMORY.md: 1 line."
    assert "allotment" not in (shared / "MEMORY.md").read_text()
    listed = (await world.say("/shared")).splitlines()
    assert listed == ["**Known in every room:**", "- shared/USER.md: I grow tomatoes"]


async def test_shared_lists_a_line_that_opens_and_ends_in_bold(world: World) -> None:
    """Only a line that is one bold run is a heading: "**Allergic** to **peanuts**" is read
    by every room's prompt, so ``/shared`` lists it and ``/unshare`` takes it out."""
    shared = world.data / "scott/persona/inara/shared"
    shared.mkdir(exist_ok=True)
    (shared / "USER.md").write_text("**About me**\n\n**Allergic** to **peanuts**\n")
    listed = (await world.say("/shared")).splitlines()
    assert listed == ["**Known in every room:**", "- shared/USER.md: **Allergic** to **peanuts**"]
    answer = await world.say("/unshare **Allergic** to **peanuts**")
    assert answer == "Removed from shared/USER.md: 1 line."
    assert "peanuts" not in (shared / "USER.md").read_text()


def test_persona_new_refuses_a_twin_of_a_persona_in_another_case(tmp_path: Path) -> None:
    """``persona new scott Inara`` beside ``inara`` made a second persona no ``/persona``
    could tell apart, and one a copy to a case-insensitive disk would merge."""
    data = tmp_path / "data"
    first = personad("persona", "new", "scott", "inara", cwd=tmp_path, PERSONAD_DATA_DIR=str(data))
    assert first.returncode == 0, first.stderr
    twin = personad("persona", "new", "scott", "Inara", cwd=tmp_path, PERSONAD_DATA_DIR=str(data))
    assert twin.returncode == 2
    assert twin.stderr == (
        "personad: user 'scott' has a persona 'inara' already; 'Inara' differs from it only in"
        " case: pick another name\n"
    )
    assert sorted(p.name for p in (data / "scott" / "persona").iterdir()) == ["inara"]


@pytest.mark.parametrize(
    ("user", "said"),
    [
        ("Scott", "user 'Scott' is not configured; did you mean 'scott'?"),
        (
            "brian",
            "user 'brian' is not configured; add a [users.brian] section to personad.toml"
            " or pick one of: scott, holly",
        ),
    ],
)
def test_persona_new_refuses_a_user_the_config_does_not_have(
    tmp_path: Path, user: str, said: str
) -> None:
    """``persona new Scott inara`` made a persona no configured user could reach."""
    data = tmp_path / "data"
    (tmp_path / "personad.toml").write_text(
        '[users.scott]\ntimezone = "UTC"\n\n[users.holly]\ntimezone = "UTC"\n'
    )
    made = personad(
        "--config", "personad.toml", "persona", "new", user, "inara",
        cwd=tmp_path, PERSONAD_DATA_DIR=str(data),
    )  # fmt: skip
    assert made.returncode == 2
    assert made.stderr == f"personad: {said}\n"
    assert not data.exists() or list(data.iterdir()) == []


# -- personad init, answered on a terminal ------------------------------------------------


class Terminal:
    """``personad init`` run on a pseudo-terminal, as a person at a keyboard runs it: each
    answer is typed once its question is on the screen."""

    def __init__(self, home: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PERSONAD", "ANTHROPIC"))}
        env.update(HOME=str(home), PYTHONPATH=str(REPO))
        for name, folder in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share")):
            env[name] = str(home / folder)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the program, with the terminal as its stdin and tty
            os.chdir(home)
            os.execve(sys.executable, [sys.executable, "-m", "bot.daemon.cli", "init"], env)
        self.screen = ""
        self.typed_at = 0

    def _more(self) -> bool:
        ready, _, _ = select.select([self.fd], [], [], 60)
        if not ready:
            raise AssertionError(f"personad init went silent; the screen:\n{self.screen}")
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the program ended and closed the terminal
            return False
        self.screen += data.decode(errors="replace")
        return bool(data)

    def answer(self, question: str, typed: str) -> None:
        """Wait for ``question`` to be asked since the last answer was typed, then type."""
        while question not in self.screen[self.typed_at :]:
            if not self._more():
                raise AssertionError(f"init ended before asking {question!r}:\n{self.screen}")
        self.typed_at = len(self.screen)
        os.write(self.fd, typed.encode())

    def ended(self) -> int:
        """The exit status, once the program has ended (what it printed is read first)."""
        while self._more():
            pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_init_asks_again_for_an_answer_it_cannot_use(tmp_path: Path) -> None:
    """A platform typed "Telegram", a user name with a space, the backend "Local": each
    ended init (naming a --flag the person never typed), losing every answer before it."""
    terminal = Terminal(tmp_path)
    terminal.answer("Data folder", "\n")
    terminal.answer("Your user name", "Scott Smith\n")
    terminal.answer("Your user name", "scott\n")
    terminal.answer("first persona", "\n")
    terminal.answer("Platforms", "Telegram, signal\n")
    terminal.answer("Platforms", "Telegram\n")
    terminal.answer("telegram bot token", "123:abc\n")
    terminal.answer("Your own telegram id", "42\n")
    terminal.answer("Model backend", "Local\n")
    terminal.answer("Server address", "\n")
    terminal.answer("Model name", "\n")
    terminal.ended()
    assert "user name 'Scott Smith' must be" in terminal.screen
    assert "'signal' is no platform" in terminal.screen
    assert "--platform" not in terminal.screen and "Traceback" not in terminal.screen
    config = (tmp_path / ".config" / "personad" / "personad.toml").read_text()
    assert "[users.scott]" in config and "telegram:42" in config
    assert "[adapters.telegram]" in config and 'backend = "local"' in config
    assert (tmp_path / ".local/share/personad/scott/persona/inara").is_dir()


def test_init_asks_again_for_an_id_or_an_address_in_a_form_that_cannot_work(
    tmp_path: Path,
) -> None:
    """A Telegram @username (never a sender's id) and a server address without its scheme
    were written as typed; the first made every message of that person a stranger's, the
    second made every turn fail as a dropped connection."""
    terminal = Terminal(tmp_path)
    terminal.answer("Data folder", "\n")
    terminal.answer("Your user name", "scott\n")
    terminal.answer("first persona", "\n")
    terminal.answer("Platforms", "telegram\n")
    terminal.answer("telegram bot token", "123:abc\n")
    terminal.answer("Your own telegram id", "@scott\n")
    terminal.answer("Your own telegram id", "42\n")
    terminal.answer("Model backend", "local\n")
    terminal.answer("Server address", "127.0.0.1:11434/v1\n")
    terminal.answer("Server address", "http://127.0.0.1:11434/v1\n")
    terminal.answer("Model name", "\n")
    terminal.ended()
    assert "not the @username" in terminal.screen
    assert "write it with its scheme: 'http://127.0.0.1:11434/v1'" in terminal.screen
    config = (tmp_path / ".config" / "personad" / "personad.toml").read_text()
    assert '"telegram:42"' in config and "@scott" not in config


def test_init_ended_with_ctrl_d_says_so_in_one_line(tmp_path: Path) -> None:
    """Ctrl-D at a question was a Python traceback (EOFError)."""
    terminal = Terminal(tmp_path)
    terminal.answer("Data folder", "\n")
    terminal.answer("Your user name", "\x04")
    assert terminal.ended() == 2
    assert "Traceback" not in terminal.screen
    assert "personad: init ended at a question (end of input); nothing was written" in (
        terminal.screen
    )
    assert not (tmp_path / ".config" / "personad").exists()


async def test_a_mistyped_command_is_answered_with_the_one_meant(world: World) -> None:
    assert await world.say("/stauts") == (
        "I don't know the command /stauts. Did you mean /status? (/help lists them.)"
    )
    assert await world.say("/Persna") == (
        "I don't know the command /persna. Did you mean /persona? (/help lists them.)"
    )
    assert await world.say("/wombatlantern") == (
        "I don't know the command /wombatlantern. Try /help."
    )
    # an admin's command is named only to an admin
    assert "/reload" in unknown_command("relaod", admin=True)
    assert unknown_command("relaod") == "I don't know the command /relaod. Try /help."
