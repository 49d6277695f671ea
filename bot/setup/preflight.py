"""The one validation ``run`` and ``check-config`` share: every problem at once.

:func:`check` loads the configuration and then looks, without starting anything, at what
start-up would stop on: each enabled adapter's section and its token, password or secret,
the keys and addresses of the language models the roles use, the data folder, and what the
webhook adapters need of the HTTP server. Each problem is one line that starts with its key.
Warnings (a secrets file other users can read) do not stop start-up.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from adapters import registry
from bot.daemon.errors import ConfigError
from bot.setup.config import Config
from bot.setup.config_loader import collect_problems, exposed_secret_files

__all__ = ["Findings", "check", "data_dir_problems", "ensure", "load_checked", "report"]


@dataclass(slots=True)
class Findings:
    config: Config | None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: secrets files other users can read (each is also a warning)
    exposed: list[Path] = field(default_factory=list)


def _write_fails(folder: Path) -> str | None:
    """Why a folder cannot be made in ``folder``, by making one and removing it again, or
    None. Permission bits are not enough: root passes ``os.access`` everywhere, and /proc,
    /sys or a read-only mount refuse whatever the bits say."""
    try:
        made = tempfile.mkdtemp(prefix=".personad-check-", dir=folder)
    except OSError as exc:
        return (exc.strerror or type(exc).__name__).lower()
    os.rmdir(made)
    return None


def data_dir_problems(path: Path) -> list[str]:
    """Why the data folder cannot be used by this user, if it cannot."""
    key = f"daemon.data_dir ({path})"
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            return [f"{key}: exists and is not a folder; move it away or choose another path"]
        if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
            return [f"{key}: this user ({_whoami()}) cannot read and write it"]
        if failed := _write_fails(path):
            return [f"{key}: nothing can be written in it ({failed}); choose another path"]
        return []
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return [f"{key}: cannot be created, {parent} is not a folder"]
    if not os.access(parent, os.W_OK | os.X_OK):
        return [f"{key}: cannot be created, this user ({_whoami()}) cannot write in {parent}"]
    if failed := _write_fails(parent):
        return [f"{key}: {parent} refuses new folders ({failed}); choose another path"]
    return []


def _whoami() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return str(os.geteuid())


def _adapter_problems(config: Config) -> list[str]:
    problems = []
    for name, raw in sorted(config.adapters.items()):
        if not isinstance(raw, dict) or not raw.get("enabled"):
            continue
        try:
            settings = registry.settings_for(name, raw)
        except ConfigError as exc:
            problems.extend(str(exc).split("; "))
            continue
        problems.extend(registry.credential_problems(name, settings))
        webhook = name == "nctalk" or getattr(settings, "mode", None) == "webhook"
        if webhook and not config.http.enabled:
            problems.append(f"http.enabled: adapters.{name} receives webhooks; enable the server")
    return problems


def check(path: Path | None, env: Mapping[str, str] | None = None) -> Findings:
    """Everything start-up validates, for the config file at ``path`` (None: the defaults)."""
    from bot.llm.factory import backend_problems

    env = os.environ if env is None else env
    config, problems = collect_problems(path, env)
    findings = Findings(config, list(problems))
    findings.exposed = exposed_secret_files(path)
    findings.warnings = [
        f"{exposed} holds secrets and other users can read it; fix: chmod 600 {exposed}"
        for exposed in findings.exposed
    ]
    if config is None:
        return findings
    # a section already reported wrong holds the defaults here: not checked again
    wrong = {problem.split(".", 1)[0].split(":", 1)[0] for problem in problems}
    findings.problems += _adapter_problems(config)
    if "llm" not in wrong:
        findings.problems += backend_problems(config.llm, env)
    if "daemon" not in wrong:
        findings.problems += data_dir_problems(config.data_dir)
    findings.warnings += shared_notification_warnings(config)
    if config.daemon.one_core is not None:
        findings.warnings.append(
            "daemon.one_core no longer does anything (the kernel places the daemon's threads);"
            " remove it from the config"
        )
    return findings


def shared_notification_warnings(config: Config) -> list[str]:
    """A warning for each user whose ``notification_room`` a persona knows as shared: private
    notices (reminders, scheduled jobs' answers, distillation notices) are held back there."""
    from bot.daemon.notify import shared_notification_room
    from bot.persona.store import PersonaStore

    store = PersonaStore(config.data_dir)
    warnings = []
    for user in config.users:
        room = shared_notification_room(config, store, user)
        if room is not None:
            warnings.append(
                f"users.{user}.notification_room: {room} is a shared room; reminders and"
                " scheduled jobs' answers are private and will be held back there. Use a direct"
                " conversation."
            )
    return warnings


def ensure(findings: Findings, path: Path | None) -> Config:
    """The checked configuration, or a :class:`ConfigError` listing every problem, one a
    line."""
    if findings.problems or findings.config is None:
        count = len(findings.problems)
        raise ConfigError(
            f"{count} problem(s) in {path or 'the defaults'}:\n  " + "\n  ".join(findings.problems)
        )
    return findings.config


def load_checked(path: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """:func:`check`, then :func:`ensure`."""
    return ensure(check(path, env), path)


def report(path: Path | None, *, probe: bool = False) -> int:
    """Print what :func:`check` (and with ``probe``, :func:`bot.setup.probe.probe_all`) found, as
    ``check-config`` and ``init`` show it; 0 when nothing is wrong, 1 otherwise."""
    findings = check(path)
    for warning in findings.warnings:
        print(f"config: warning: {warning}", file=sys.stderr)
    for problem in findings.problems:
        print(f"config: {problem}", file=sys.stderr)
    config = findings.config
    failed = 0
    if probe and config is not None:
        from bot.setup.probe import probe_all

        for result in asyncio.run(probe_all(config, os.environ)):
            print(result.line(), file=sys.stdout if result.ok else sys.stderr)
            failed += not result.ok
    if findings.problems or config is None:
        count = len(findings.problems)
        print(f"{count} problem(s) in {path or 'the defaults'}", file=sys.stderr)
        return 1
    enabled = [n for n, raw in config.adapters.items() if raw.get("enabled")]
    print(
        f"config OK ({path or 'defaults'}): {len(config.users)} user(s),"
        f" adapters: {', '.join(enabled) or 'none'}, memory: {config.memory.backend},"
        f" data in {config.data_dir}" + (f"; {failed} probe(s) failed" if failed else "")
    )
    return 1 if failed else 0
