"""``personad memory ...`` and the other shell commands as a household admin meets them: a hint
that can be pasted where it was printed, a broken store named with what to do about it, a
count that means something, an export that goes where it was asked, an unknown user named."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from bot.daemon.cli import main
from tests.test_memory_cli import persona_data_dir, run


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return persona_data_dir(tmp_path, monkeypatch)


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


def test_persona_list_of_an_unknown_user_says_there_is_none(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["persona", "list", "nobody", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert f"no personas for 'nobody' in {data_dir}" in out
    assert f"--data-dir {data_dir} persona new nobody NAME" in out
