"""The command that runs this personad again, as it can be typed here.

Every command that prints a command to run next (``persona new``, ``init``'s closing lines,
``chat``'s hint to create a missing persona) prints it through :func:`invocation`, so what is
printed works when pasted: after ``make chat`` the ``personad`` script is in ``.venv/bin``,
not on PATH, and a bare ``personad`` would not be found.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

__all__ = ["invocation", "with_config"]


def invocation() -> str:
    """``personad`` when that name on PATH is this program, else its path
    (``.venv/bin/personad``), else ``python -m`` its module."""
    program = Path(sys.argv[0])
    found = shutil.which("personad")
    if program.name == "personad":
        if found and Path(found).resolve() == program.resolve():
            return "personad"
        return shlex.quote(os.path.relpath(program) if not program.is_absolute() else str(program))
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    module = spec.name if spec is not None else "bot.daemon.cli"
    return f"{shlex.quote(sys.executable)} -m {module}"


def with_config(config: Path | None, data_dir: str | None = None) -> str:
    """:func:`invocation` with ``--config`` when the config is not the one found without it
    (the file ``personad init`` writes by default, or ``$PERSONAD_CONFIG``), and with
    ``--data-dir`` when one was given."""
    from bot.setup.config_loader import config_path_from, default_config_path

    command = invocation()
    # the default file counts as found even before it is written (init prints this first)
    found = config_path_from(None) or default_config_path()
    if config is not None and found != config:
        command += f" --config {shlex.quote(str(config))}"
    if data_dir:
        command += f" --data-dir {shlex.quote(data_dir)}"
    return command
