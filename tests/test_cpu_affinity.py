"""daemon.one_core: the daemon's threads kept on one core, the embedding model on all of them.

Each test pins threads of its own, never the test runner's: affinity is per thread on Linux.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.daemon import cpu_affinity
from bot.daemon.cpu_affinity import current_cpu, keep_to_one_core, use_every_core
from bot.setup.config import Config
from tests.test_memory_embeddings import needs_minilm

__all__: list[str] = []

ALLOWED = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else frozenset()
needs_two_cores = pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two cores to choose from")


@pytest.fixture(autouse=True)
def _forget_the_pin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(cpu_affinity, "_every_core", None)
    yield


def in_thread(work: Callable[[], Any]) -> Any:
    """``work()`` in a thread of its own; its result, or its exception raised here."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as exc:
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def affinity() -> frozenset[int]:
    return frozenset(os.sched_getaffinity(0))


def test_the_current_core_is_one_the_thread_may_run_on() -> None:
    cpu = current_cpu()
    if not Path("/proc/thread-self/stat").exists():
        assert cpu is None
    else:
        assert cpu in affinity()


@needs_two_cores
def test_threads_started_after_the_pin_inherit_it_and_a_released_one_gets_every_core() -> None:
    def scenario() -> tuple[int | None, frozenset[int], frozenset[int], frozenset[int], bool]:
        core = keep_to_one_core()
        mine = affinity()
        child = in_thread(affinity)  # started after the pin: inherits it

        def released() -> frozenset[int]:
            use_every_core()
            return affinity()

        freed = in_thread(released)
        return core, mine, child, freed, current_cpu() == core

    core, mine, child, freed, runs_there = in_thread(scenario)
    assert core in ALLOWED
    assert mine == child == {core}
    assert freed == ALLOWED
    assert runs_there
    assert affinity() == ALLOWED  # the test runner's own thread was never pinned


def test_nothing_is_pinned_on_a_single_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    assert in_thread(keep_to_one_core) is None
    assert cpu_affinity._every_core is None
    in_thread(use_every_core)  # never pinned: nothing to undo, nothing raised


@needs_two_cores
@needs_minilm
def test_the_embedding_model_runs_on_every_core_from_a_pinned_daemon() -> None:
    from bot.memory.sqlite.embeddings import load_embedder

    def scenario() -> frozenset[int]:
        keep_to_one_core()
        embedder = load_embedder()
        assert embedder is not None

        def embed_then_look() -> frozenset[int]:
            embedder.embed_sync(["the boiler clicks twice before it starts"])
            return affinity()

        return frozenset(in_thread(embed_then_look))

    assert in_thread(scenario) == ALLOWED


def test_one_core_is_the_default_and_can_be_turned_off() -> None:
    assert Config.model_validate({}).daemon.one_core is True
    assert Config.model_validate({"daemon": {"one_core": False}}).daemon.one_core is False


async def test_a_reload_says_one_core_waits_for_the_next_restart(tmp_path: Path) -> None:
    from bot.daemon.daemon import Daemon
    from bot.setup.config_loader import load_config

    path = tmp_path / "personad.toml"
    path.write_text(f'[daemon]\ndata_dir = "{tmp_path / "data"}"\n')
    daemon = Daemon(load_config(path, {}), http=False, jobs=False)
    path.write_text(f'[daemon]\ndata_dir = "{tmp_path / "data"}"\none_core = false\n')
    said = await daemon.reload()
    assert said == (
        "Config and persona files reloaded."
        " daemon.one_core changes take effect at the next restart."
    )
    assert await daemon.reload() == "Config and persona files reloaded."
