"""Distillation as the seed lays it out: the three jobs registered in each user's own time
zone and firing through the scheduler, the mid and long budgets enforced on what the model
writes, and mid distillation on the local model when one is configured."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import structlog

from bot.daemon.daemon import Daemon
from bot.memory.distill.distiller import CHARS_PER_TOKEN, Distiller, within_budget
from bot.memory.distill.schedule import last_due
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.setup.config_loader import load_config
from tests.harness import ScriptedLLM, make_config, make_persona

NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)  # a Monday; the 1st is on Tuesday
ZONES = {"scott": "America/New_York", "brian": "Asia/Tokyo"}
PERSONAS = {"scott": "developer", "brian": "wintermute"}


@pytest.fixture
async def daemon(tmp_path: Path) -> AsyncIterator[tuple[Daemon, ScriptedLLM]]:
    for user, persona in PERSONAS.items():
        make_persona(tmp_path, user, persona)
    users = {
        user: {"identities": [f"console:{user}"], "timezone": zone} for user, zone in ZONES.items()
    }
    config = make_config(tmp_path, users=users, extra={"distill": {"long": True}})
    llm = ScriptedLLM()
    running = Daemon(config, backends={"scripted": llm}, env={}, clock=lambda: NOW)
    await running.start()
    try:
        assert running.catching_up is not None
        await running.catching_up  # a first start sets the baseline: nothing runs
        yield running, llm
    finally:
        await running.stop()


async def test_the_three_levels_are_scheduled_in_each_users_own_zone(
    daemon: tuple[Daemon, ScriptedLLM],
) -> None:
    running, _llm = daemon
    jobs = running.jobs
    expected = {
        # level: (weekday or None, day of month or None, hour, minute) in the user's zone
        "short": (None, None, 3, 0),
        "mid": (6, None, 3, 30),
        "long": (None, 1, 4, 0),
    }
    for user, zone_name in ZONES.items():
        zone = ZoneInfo(zone_name)
        for kind, (weekday, day, hour, minute) in expected.items():
            name = f"distill.{kind}.{user}"
            assert name in jobs.names()
            fires = jobs.next_run(name, after=NOW)
            assert fires is not None and fires > NOW
            local = fires.astimezone(zone)
            assert (local.hour, local.minute) == (hour, minute), (name, local)
            assert weekday is None or local.weekday() == weekday, (name, local)
            assert day is None or local.day == day, (name, local)
            # the next firing is the first due time after now: what catch-up counts as due
            assert last_due(kind, fires, zone) == fires
            assert last_due(kind, fires - timedelta(seconds=1), zone) <= NOW
            scheduled = jobs.next_run(name)  # as the running scheduler holds it
            assert scheduled is not None and str(scheduled.tzinfo) == zone_name
            assert (scheduled.hour, scheduled.minute) == (hour, minute)
    # the same wall-clock time is a different instant in each zone
    assert jobs.next_run("distill.short.scott", NOW) != jobs.next_run("distill.short.brian", NOW)


async def test_each_job_fires_its_level_for_every_persona_of_its_user(
    daemon: tuple[Daemon, ScriptedLLM], tmp_path: Path
) -> None:
    running, llm = daemon
    scott = tmp_path / "scott" / "persona" / "developer"
    (scott / "sessions" / "2026-11-29.md").write_text(
        "### 10:00:00 · user · scott · console:scott\n\nThe release is on Friday.\n"
    )
    assert await running.jobs.run_now("distill.short.scott")
    assert "The release is on Friday." in (scott / "MEMORY_SHORT.md").read_text()
    llm.queue("Scott ships the release on Friday.")
    assert await running.jobs.run_now("distill.mid.scott")
    assert (scott / "MEMORY_MID.md").read_text() == "Scott ships the release on Friday.\n"
    llm.queue("Long: Scott ships on Fridays.")
    assert await running.jobs.run_now("distill.long.scott")
    assert "ships on Fridays" in (scott / "MEMORY_LONG.md").read_text()
    assert len(llm.calls) == 2  # brian's persona was not touched by scott's jobs
    brian = tmp_path / "brian" / "persona" / "wintermute"
    assert not (brian / "MEMORY_MID.md").read_text().strip()
    assert running.jobs.failures == {}
    assert all(running.jobs.runs[f"distill.{k}.scott"] == 1 for k in ("short", "mid", "long"))


def test_a_text_within_its_budget_is_kept_and_a_longer_one_cut_with_a_marker() -> None:
    assert within_budget("short enough", 100, "MEMORY_MID.md") == "short enough"
    lines = "\n".join(f"line {n}: " + "word " * 10 for n in range(200))
    cut = within_budget(lines, 200, "MEMORY_MID.md")
    assert len(cut) <= 200 * CHARS_PER_TOKEN
    body, marker = cut.rsplit("\n\n", 1)
    assert lines.startswith(body) and body.endswith("word")  # a whole line, not half a word
    assert marker.startswith("[… MEMORY_MID.md cut here at its budget of 200 tokens:")


def _digests_to_distill(tmp_path: Path) -> tuple[Path, Config]:
    """A persona with short- and mid-term memory to distill, and its config."""
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_SHORT.md").write_text("Scott planted tomatoes.\n")
    (directory / "MEMORY_MID.md").write_text("Scott gardens.\n")
    return directory, make_config(tmp_path)


@pytest.mark.parametrize(("kind", "target"), [("mid", "MEMORY_MID.md"), ("long", "MEMORY_LONG.md")])
async def test_the_models_distillation_is_cut_at_its_budget(
    tmp_path: Path, kind: str, target: str
) -> None:
    directory, config = _digests_to_distill(tmp_path)
    config.distill.budget_mid = config.distill.budget_long = 150
    llm = ScriptedLLM()
    llm.queue("\n".join(f"- a fact worth keeping, number {n}" for n in range(400)))
    distiller = Distiller(config, PersonaStore(tmp_path), {"scripted": llm})
    with structlog.testing.capture_logs() as logs:
        assert "updated" in await distiller.run("scott", "inara", kind)  # type: ignore[arg-type]
    written = (directory / target).read_text()
    assert len(written.strip()) <= 150 * CHARS_PER_TOKEN
    assert f"[… {target} cut here at its budget of 150 tokens:" in written
    assert any(entry["event"] == "distill.over_budget" for entry in logs)


@pytest.mark.parametrize(("kind", "target"), [("mid", "MEMORY_MID.md"), ("long", "MEMORY_LONG.md")])
async def test_a_budget_above_the_files_limit_is_cut_at_the_limit(
    tmp_path: Path, kind: str, target: str
) -> None:
    """The prompt cuts a file at its limit without the marker: a budget set above the limit
    of the file (8,000 characters) writes no more than the prompt shows, the marker in it."""
    directory, config = _digests_to_distill(tmp_path)
    config.distill.budget_mid = config.distill.budget_long = 5000
    llm = ScriptedLLM()
    llm.queue("\n".join(f"- a fact worth keeping, number {n}" for n in range(1000)))
    distiller = Distiller(config, PersonaStore(tmp_path), {"scripted": llm})
    assert "updated" in await distiller.run("scott", "inara", kind)  # type: ignore[arg-type]
    written = (directory / target).read_text()
    assert len(written) <= config.prompt.limit(target)
    assert f"[… {target} cut here at its budget of" in written


def _config(tmp_path: Path, local: bool) -> Path:
    path = tmp_path / "personad.toml"
    text = f'[daemon]\ndata_dir = "{tmp_path}"\n'
    if local:
        text += '[llm.backends.local]\nkind = "openai_compat"\nmodel = "qwen"\n'
        text += 'base_url = "http://127.0.0.1:9/v1"\n'
    path.write_text(text)
    return path


@pytest.mark.parametrize("local", [True, False])
async def test_mid_distillation_runs_on_the_local_model_when_one_is_configured(
    tmp_path: Path, local: bool
) -> None:
    config = load_config(_config(tmp_path, local), env={})
    directory = make_persona(tmp_path, "scott")
    (directory / "MEMORY_SHORT.md").write_text("Scott planted tomatoes.\n")
    cloud, on_premises = ScriptedLLM(), ScriptedLLM()
    cloud.queue("summary by the chat model")
    on_premises.queue("summary by the local model")
    backends = {"anthropic": cloud, "local": on_premises}
    distiller = Distiller(config, PersonaStore(tmp_path), backends)
    with structlog.testing.capture_logs() as logs:
        await distiller.run("scott", "inara", "mid")
    [said] = [entry for entry in logs if entry["event"] == "distill.backend"]
    expected = "local" if local else "anthropic"
    assert said["backend"] == expected
    assert ("local backend is configured" if local else "no local backend") in said["why"]
    assert (
        f"by the {'local' if local else 'chat'} model" in (directory / "MEMORY_MID.md").read_text()
    )
    # long stays on the chat backend, as DISTILL_BACKEND_LONG's empty default says
    assert config.llm.backend_for("distill_long")[0] == "anthropic"


def test_the_seed_variable_still_chooses_the_mid_backend(tmp_path: Path) -> None:
    env = {"DISTILL_BACKEND_MID": "anthropic"}
    config = load_config(_config(tmp_path, local=True), env=env)
    assert config.llm.backend_for("distill_mid")[0] == "anthropic"
    config = load_config(None, env={"PERSONAD__LLM__BACKENDS__LOCAL__MODEL": "qwen"})
    assert config.llm.backend_for("distill_mid")[0] == "local"  # given through the environment
    assert load_config(None, env={}).llm.backend_for("distill_mid")[0] == "anthropic"
