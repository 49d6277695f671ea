"""``personad memory ...`` end to end: the real command line against a temporary data dir, as
a household admin meets it: a hint that can be pasted where it was printed, a broken store
named with what to do about it, a count that means something, an export that goes where it
was asked, an unknown user named."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.daemon.cli import main
from bot.memory.base import TurnRecord
from bot.memory.sqlite.backend import SqliteFtsMemory


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with scott's persona inara, and no config of the machine's own."""
    monkeypatch.delenv("PERSONAD_CONFIG", raising=False)
    monkeypatch.delenv("PERSONAD_DATA_DIR", raising=False)
    monkeypatch.setenv("PERSONAD__MEMORY__BACKEND", "sqlite-fts5")
    monkeypatch.setenv("PERSONAD__MEMORY__EMBEDDINGS", "off")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no config of the machine's own
    root = tmp_path / "data"
    assert main(["persona", "new", "scott", "inara", "--data-dir", str(root)]) == 0
    return root


def run(data_dir: Path, *args: str) -> int:
    return main(
        ["memory", *args, "--user", "scott", "--persona", "inara", "--data-dir", str(data_dir)]
    )


def test_add_prints_the_verdict_and_stores(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run(data_dir, "add", "I prefer tea over coffee in the afternoon.") == 0
    out = capsys.readouterr().out
    assert "policy: preference (preference: 'i prefer'" in out
    assert "stored as" in out and "[preference]" in out
    assert (data_dir / "scott" / "persona" / "inara" / "memory.db").is_file()


def test_add_forces_a_rejected_sentence_but_says_so(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run(data_dir, "add", "estou almoçando agora", "--category", "fact") == 0
    out = capsys.readouterr().out
    assert out.startswith("policy: rejected (rejected: ephemeral")
    assert "stored as" in out and "[fact]" in out


def test_add_never_stores_a_secret(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert run(data_dir, "add", "minha senha do banco é Tulipa!2024") == 1
    out = capsys.readouterr().out
    assert "rejected: secret" in out and "not stored" in out
    assert run(data_dir, "export") == 0
    assert "Tulipa" not in capsys.readouterr().out


def test_search_list_explain_forget_stats(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(data_dir, "add", "I take my coffee black, no sugar.") == 0
    assert run(data_dir, "add", "Our dog Biscuit is a four year old beagle.") == 0
    capsys.readouterr()

    assert run(data_dir, "search", "cafe coffee", "--limit", "5") == 0
    lines = capsys.readouterr().out.splitlines()
    assert "I take my coffee black, no sugar." in lines[0]
    assert "[preference · cli · " in lines[0]
    assert "bm25=" in lines[1]
    item_id = lines[0].split()[0]

    assert run(data_dir, "list") == 0
    listing = capsys.readouterr().out
    assert "Biscuit" in listing and "coffee" in listing

    assert run(data_dir, "explain", item_id) == 0
    details = json.loads(capsys.readouterr().out)
    assert details["text"] == "I take my coffee black, no sugar."

    assert run(data_dir, "forget", item_id) == 0
    assert f"forgot {item_id}" in capsys.readouterr().out
    assert run(data_dir, "list") == 0
    assert "coffee" not in capsys.readouterr().out
    assert run(data_dir, "list", "--all") == 0
    assert "forgotten" in capsys.readouterr().out

    assert run(data_dir, "stats") == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["backend"] == "sqlite-fts5"

    assert run(data_dir, "forget", "999999") == 1
    assert "no memory with id 999999" in capsys.readouterr().err
    assert run(data_dir, "explain", "999999") == 1


def test_export_writes_json_atomically(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(data_dir, "add", "We decided to paint the kitchen green.") == 0
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "memory.json"
    assert run(data_dir, "export", "--output", str(target)) == 0
    assert "wrote 1 memories" in capsys.readouterr().out
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["backend"] == "sqlite-fts5"
    assert document["persona"] == "inara"
    assert [item["text"] for item in document["items"]] == [
        "We decided to paint the kitchen green."
    ]
    assert [p.name for p in target.parent.iterdir()] == ["memory.json"]


def test_missing_persona_is_one_clear_sentence(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = main(
        ["memory", "list", "--user", "scott", "--persona", "nobody", "--data-dir", str(data_dir)]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert " persona new scott nobody" in err
    assert not (data_dir / "scott" / "persona" / "nobody").exists()


def test_bad_names_are_refused(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(
        ["memory", "list", "--user", "..", "--persona", "inara", "--data-dir", str(data_dir)]
    )
    assert code == 2
    assert "user name" in capsys.readouterr().err


def test_added_facts_are_private_unless_shared_and_search_shows_a_rooms_view(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(data_dir, "add", "Our dog Biscuit is a four year old beagle.", "--shared") == 0
    assert "shared with every room" in capsys.readouterr().out
    assert run(data_dir, "add", "My sister Ana lives in Porto.") == 0
    capsys.readouterr()
    assert run(data_dir, "list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert next(line for line in lines if "Biscuit" in line).split()[2:6] == [
        "shared",
        "with",
        "every",
        "room",
    ]
    assert [line.split()[2] for line in lines if "Porto" in line] == ["private"]
    assert run(data_dir, "search", "Biscuit Ana Porto", "--room", "matrix:!family") == 0
    shown = capsys.readouterr().out
    assert "Biscuit" in shown and "Porto" not in shown
    assert run(data_dir, "search", "Biscuit Ana Porto") == 0
    assert "Porto" in capsys.readouterr().out
    assert run(data_dir, "search", "Biscuit", "--room", "nonsense") == 2


def test_share_and_unshare_move_an_item_between_private_and_every_room(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(data_dir, "add", "My sister Ana lives in Porto.") == 0
    item_id = capsys.readouterr().out.split("stored as ")[1].split()[0]

    def family_sees_porto() -> bool:
        assert run(data_dir, "search", "Ana Porto", "--room", "matrix:!family") == 0
        return "Porto" in capsys.readouterr().out

    assert not family_sees_porto()
    assert run(data_dir, "share", item_id) == 0
    assert f"{item_id} is now shared with every room" in capsys.readouterr().out
    assert family_sees_porto()
    assert run(data_dir, "explain", item_id) == 0
    details = json.loads(capsys.readouterr().out)
    assert details["audience"] == "shared"
    assert details["audience_in_words"] == "shared with every room"
    assert [event["kind"] for event in details["history"]][-1] == "shared"
    assert run(data_dir, "unshare", item_id) == 0
    assert f"{item_id} is now private" in capsys.readouterr().out
    assert not family_sees_porto()
    assert run(data_dir, "export") == 0
    exported = json.loads(capsys.readouterr().out)["items"]
    assert [(row["audience"], row["audience_in_words"]) for row in exported] == [
        ("direct", "private")
    ]
    assert run(data_dir, "share", "999") == 1
    assert "no memory with id 999" in capsys.readouterr().err


def test_explain_shows_an_episode_and_the_parts_of_its_score(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "Went to Sintra with Marta, the palace was closed."

    async def chat() -> None:
        persona = data_dir / "scott" / "persona" / "inara"
        async with SqliteFtsMemory(persona) as memory:
            at = datetime(2026, 5, 9, 18, 0, tzinfo=UTC)
            await memory.sync(TurnRecord(said, "Oh no!", "telegram", at, "scott", "inara"))

    asyncio.run(chat())
    assert run(data_dir, "add", "Marta lives in Sintra.") == 0
    capsys.readouterr()
    assert run(data_dir, "search", "sintra palace") == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("e1 ") and "[episode · 2026-05-09 · dm]" in first
    assert run(data_dir, "explain", "e1", "--query", "when did I go to Sintra") == 0
    details = json.loads(capsys.readouterr().out)
    assert details["text"] == said and details["said"].startswith("2026-05-09")
    score = details["score"]
    assert score["kind"] == "episode" and score["rank"] >= 1
    assert set(score["parts"]) >= {"bm25", "recency"}
    assert sum(score["parts"].values()) == pytest.approx(score["score"], abs=1e-3)
    assert all(other["kind"] in ("fact", "episode") for other in score["ahead"])
    # the export holds the episodes (both sides) beside the facts
    assert run(data_dir, "export") == 0
    exported = json.loads(capsys.readouterr().out)["items"]
    assert {(item["kind"], item["text"]) for item in exported} >= {
        ("episode", said),
        ("episode", "Oh no!"),
        ("fact", "Marta lives in Sintra."),
    }


def test_unshare_of_a_shared_files_line_says_how_to_take_it_out(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line of shared/USER.md is read by every room from the file itself: relabelling its
    copy in the store would make nothing private, so the command says so and changes nothing."""

    async def mirror() -> str:
        persona = data_dir / "scott" / "persona" / "inara"
        async with SqliteFtsMemory(persona) as memory:
            await memory.mirror("shared/USER.md", "- My brother Tomasz moved to Gdansk.\n")
            [item] = [i for i in await memory.list_items() if "Gdansk" in i.text]
            return item.id

    item_id = asyncio.run(mirror())
    capsys.readouterr()
    assert run(data_dir, "unshare", item_id) == 1
    err = capsys.readouterr().err
    assert "is a line of shared/USER.md" in err and "Gdansk" in err
    assert run(data_dir, "explain", item_id) == 0
    assert json.loads(capsys.readouterr().out)["audience"] == "shared"


def test_the_missing_persona_hint_names_the_data_folder_it_was_looked_for_in(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pasted without --data-dir, the hint would make the persona in the default folder
    capsys.readouterr()
    for command in (
        ["memory", "list", "--user", "scott", "--persona", "nobody"],
        ["distill", "short", "--user", "scott", "--persona", "nobody"],
    ):
        assert main([*command, "--data-dir", str(data_dir)]) == 2
        err = capsys.readouterr().err
        assert f"--data-dir {data_dir} persona new scott nobody" in err, err


def test_a_corrupt_memory_file_is_named_with_what_to_do(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = data_dir / "scott" / "persona" / "inara" / "memory.db"
    store.write_bytes(b"this is not a database, it is a note left here by mistake\n" * 20)
    capsys.readouterr()
    assert run(data_dir, "stats") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert str(store) in line and "corrupt or not a SQLite file" in line, line
    assert store.read_bytes().startswith(b"this is not a database")


@pytest.mark.parametrize("command", [["list"], ["search", "coffee"]])
@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_refused_not_answered_with_nothing(
    data_dir: Path, capsys: pytest.CaptureFixture[str], command: list[str], limit: str
) -> None:
    assert run(data_dir, "add", "I take my coffee black, no sugar.") == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        run(data_dir, *command, "--limit", limit)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert "no memories" not in captured.out
    assert "--limit: a whole number of 1 or more" in captured.err


def test_an_export_to_a_file_that_is_not_a_regular_one_is_refused_and_left_alone(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # as /dev/stdout is: replaced by a regular file, it would be gone for every program
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    capsys.readouterr()
    assert run(data_dir, "export", "--output", str(pipe)) == 1
    err = capsys.readouterr().err
    assert f"cannot write {pipe}: not a regular file" in err
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "pipe"]


def test_an_export_to_dash_prints_it(
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(data_dir, "add", "Our dog Biscuit is a four year old beagle.") == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert run(data_dir, "export", "--output", "-") == 0
    document = json.loads(capsys.readouterr().out)
    assert [item["text"] for item in document["items"]] == [
        "Our dog Biscuit is a four year old beagle."
    ]
    assert not (tmp_path / "-").exists()


def test_an_export_over_a_directory_says_so_and_writes_nothing(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    capsys.readouterr()
    assert run(data_dir, "export", "--output", str(folder)) == 1
    assert f"cannot write {folder}: Is a directory" in capsys.readouterr().err
    assert list(folder.iterdir()) == []


def test_an_export_into_a_folder_that_does_not_exist_says_so_and_makes_none(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped ``--output`` made every missing folder on its way (as root, ``/nonexistent``)."""
    target = tmp_path / "no" / "such" / "memory.json"
    capsys.readouterr()
    assert run(data_dir, "export", "--output", str(target)) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"personad: cannot write {target}: there is no folder {tmp_path / 'no' / 'such'}\n"
    )
    assert "wrote" not in captured.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_persona_list_of_an_unknown_user_says_there_is_none(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["persona", "list", "nobody", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert f"no personas for 'nobody' in {data_dir}" in out
    assert f"--data-dir {data_dir} persona new nobody NAME" in out
