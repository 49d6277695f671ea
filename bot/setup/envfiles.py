"""``.env`` files: the secrets README tells a user to put beside the config.

Every command loads, before it reads the configuration, a ``.env`` in the working directory
and one beside the config file (``--config``, ``PERSONAD_CONFIG``, which the first may set,
or the one ``personad init`` writes). The one beside the config is the more specific and wins
over the one in the working directory; a variable already in the real environment wins over
both, so a systemd ``EnvironmentFile`` or a ``docker run -e`` is never overridden by a stale
file. A blank value counts as none, wherever it is: compose's ``env_file`` copied from the
example, or a shell that exported an empty variable, must not hide the token ``init`` wrote.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from dotenv import dotenv_values

from bot.daemon.errors import ConfigError
from bot.setup.config_loader import default_config_path

__all__ = ["ENV_FILE", "env_files", "load_env_files"]

ENV_FILE = ".env"


def _read(path: Path) -> dict[str, str]:
    # a file that is there but cannot be read is said, not passed over: its secrets would
    # only show up later as "not set", with no word about the file
    try:
        values = dotenv_values(path, encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    return {key: value for key, value in values.items() if value is not None}


def env_files(
    config_arg: str | None, cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[Path]:
    """The ``.env`` files that apply, least specific first (the same file only once)."""
    here = (cwd or Path.cwd()) / ENV_FILE
    environ = os.environ if environ is None else environ
    chosen = config_arg or environ.get("PERSONAD_CONFIG") or _read(here).get("PERSONAD_CONFIG")
    config = Path(chosen).expanduser() if chosen else default_config_path(environ)
    # the working directory is wherever the command was started (`sudo -u personad` from a
    # home it may not enter): a .env there that cannot be looked at is not ours; one beside
    # the config that cannot is an error the caller reports
    files = [here] if _looks_like_file(here) else []
    if chosen or config.is_file():
        beside = config.parent / ENV_FILE
        if beside.is_file() and not any(_same(beside, path) for path in files):
            files.append(beside)
    return files


def _looks_like_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _same(one: Path, other: Path) -> bool:
    return one.resolve() == other.resolve()


def load_env_files(
    config_arg: str | None,
    environ: MutableMapping[str, str] | None = None,
    cwd: Path | None = None,
) -> list[Path]:
    """Put the variables of the applicable ``.env`` files into ``environ`` where it has no
    value of its own; return the files read."""
    target = os.environ if environ is None else environ
    files = env_files(config_arg, cwd, target)
    merged: dict[str, str] = {}
    for path in files:
        merged.update((key, value) for key, value in _read(path).items() if value)
    for key, value in merged.items():
        if not target.get(key):
            target[key] = value
    return files
