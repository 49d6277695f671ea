"""Loading the configuration: the TOML file, the environment over it, one line per problem.

Order of precedence, lowest first: built-in defaults, the TOML file (``--config PATH``,
``PERSONAD_CONFIG``, or ``~/.config/personad/personad.toml`` when it exists), then the
environment. The environment accepts the seed's own names
(``AUTO_DISTILL``, ``DISTILL_BACKEND_MID``, ``MEMORY_BUDGET_SHORT`` ...), ``PERSONAD_DATA_DIR``,
and ``PERSONAD__SECTION__KEY=value`` for any other key (``PERSONAD__HTTP__PORT=9000``).

A wrong value raises :class:`~bot.daemon.errors.ConfigError` whose message names the key:
``users.scott.timezone: unknown time zone 'Mars/Base'``.

Secrets belong in the environment, but a config file may hold one anyway (an adapter's
``access_token = "..."``). :func:`exposed_secret_files` names the config file when it does and
other local users can read it, and a ``.env`` beside it that they can read, so ``run`` and
``check-config`` can warn (a warning: the daemon still starts).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import stat
import tomllib
import types
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from bot.daemon.errors import ConfigError
from bot.persona.names import validate_name
from bot.setup.config import Config
from bot.setup.config_llm import MEDIA_ROLES, LLMConfig

__all__ = [
    "MIN_API_TOKEN",
    "SEED_ENV",
    "apply_env",
    "collect_problems",
    "config_path_from",
    "default_config_path",
    "exposed_secret_files",
    "load_config",
    "read_tree",
    "tree_problems",
    "validation_lines",
]

#: the seed's environment names and where each lands
SEED_ENV: dict[str, tuple[str, ...]] = {
    "AUTO_DISTILL": ("distill", "auto"),
    "AUTO_DISTILL_SHORT": ("distill", "short"),
    "AUTO_DISTILL_MID": ("distill", "mid"),
    "AUTO_DISTILL_LONG": ("distill", "long"),
    "DISTILL_BACKEND_MID": ("llm", "roles", "distill_mid", "backend"),
    "DISTILL_BACKEND_LONG": ("llm", "roles", "distill_long", "backend"),
    "MEMORY_BUDGET_SHORT": ("distill", "budget_short"),
    "MEMORY_BUDGET_MID": ("distill", "budget_mid"),
    "MEMORY_BUDGET_LONG": ("distill", "budget_long"),
    "MEMORY_BACKEND": ("memory", "backend"),
    "PERSONAD_DATA_DIR": ("daemon", "data_dir"),
}


def _set_path(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[path[-1]] = value


def _env_value(raw: str) -> Any:
    """Environment values are strings; JSON-looking ones (lists, numbers) are decoded."""
    text = raw.strip()
    if text[:1] in "[{" or text in ("true", "false"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return raw
    return raw


def apply_env(tree: dict[str, Any], env: Mapping[str, str]) -> None:
    for name, path in SEED_ENV.items():
        if name in env:
            _set_path(tree, path, _env_value(env[name]))
    for name, value in env.items():
        if name.startswith("PERSONAD__") and len(name) > len("PERSONAD__"):
            path = tuple(part.lower() for part in name[len("PERSONAD__") :].split("__"))
            _set_path(tree, path, _env_value(value))


def _section_at(model: type[BaseModel] | None, loc: Sequence[int | str]) -> Any:
    """The model of the table at ``loc`` below ``model`` (a table of tables, ``users``,
    takes any key), or None when it cannot be told."""
    current: Any = model
    for part in loc:
        if get_origin(current) in (Union, types.UnionType):  # `X | None`
            current = next((a for a in get_args(current) if a is not type(None)), None)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = field.annotation if field else None
        elif get_origin(current) is dict:
            current = get_args(current)[1]
        else:
            return None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unknown_key(model: type[BaseModel] | None, loc: Sequence[int | str]) -> str:
    section = _section_at(model, loc[:-1]) if loc else None
    known = list(section.model_fields) if section else []
    meant = difflib.get_close_matches(str(loc[-1]), known, n=1) if loc else []
    return f"unknown key (did you mean {meant[0]!r}?)" if meant else "unknown key"


def _wrong_type(error: Any) -> str:
    """pydantic's message with the value the file gave, and for a word where a list goes,
    the list to write."""
    given = error.get("input")
    if error["type"] == "list_type" and isinstance(given, str):
        return f"should be a list; write it as a list: [{json.dumps(given)}]"
    if isinstance(given, str | int | float | bool):
        return f"{error['msg']} (got {given!r})"
    return str(error["msg"])


def validation_lines(
    exc: ValidationError,
    prefix: str = "",
    fields: Collection[str] = (),
    model: type[BaseModel] | None = None,
) -> list[str]:
    """One ``key: what is wrong`` line per error of ``exc``, each key under ``prefix``
    (``adapters.matrix``). pydantic's "Value error, " is dropped; a whole-section check has no
    key of its own, so its message names the field first ("homeserver must be a URL"), and
    that field in ``fields`` becomes the key ("...homeserver: must be a URL"). With the
    ``model`` validated, an unknown key is given the known key nearest it ("did you mean"),
    and a value of the wrong type is quoted back."""
    lines = []
    for error in exc.errors():
        parts = [prefix] if prefix else []
        parts += [str(part) for part in error["loc"]]
        message = error["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if error["type"] == "extra_forbidden":
            message = _unknown_key(model, error["loc"])
        elif error["type"].endswith(("_type", "_parsing")) and not (
            error["loc"] and _SECRET_KEY.search(str(error["loc"][-1]))
        ):  # a secret is never quoted back, even a wrong one
            message = _wrong_type(error)
        first, _, rest = message.partition(" ")
        if not error["loc"] and first in fields and rest:
            parts.append(first)
            message = rest
        lines.append(f"{'.'.join(parts) or '(top level)'}: {message}")
    return lines


def _format_errors(exc: ValidationError) -> list[str]:
    return validation_lines(exc, fields=Config.model_fields, model=Config)


def _cross_checks(config: Config) -> list[str]:
    problems = []
    for role, spec in config.llm.roles.items():
        if spec.backend and spec.backend not in config.llm.backends:
            known = ", ".join(sorted(config.llm.backends)) or "none"
            problems.append(
                f"llm.roles.{role}.backend: no backend named {spec.backend!r} (have: {known})"
            )
        elif role in MEDIA_ROLES and spec.backend:
            server = config.llm.backends[spec.backend]
            if server.kind != "openai_compat" or not server.base_url:
                problems.append(
                    f"llm.roles.{role}.backend: {spec.backend!r} must be an OpenAI-compatible"
                    ' audio server (kind = "openai_compat" with a base_url)'
                )
    if "chat" not in config.llm.roles or not config.llm.roles["chat"].backend:
        problems.append("llm.roles.chat.backend: the chat role needs a backend")
    for name in config.users:
        try:
            validate_name(name, "user")
        except Exception as exc:
            problems.append(f"users.{name}: {exc}")
    seen: dict[str, str] = {}
    for name, user in config.users.items():
        for identity in user.identities:
            if identity in seen:
                problems.append(
                    f"users.{name}.identities: {identity!r} already belongs to {seen[identity]!r}"
                )
            seen[identity] = name
    for name, raw in config.adapters.items():
        if not isinstance(raw, dict):
            problems.append(f"adapters.{name}: must be a table")
    return problems


#: the shortest bearer token the HTTP API accepts: anything shorter can be guessed
MIN_API_TOKEN = 16


def _env_checks(config: Config, env: Mapping[str, str]) -> list[str]:
    """Problems with secrets the environment holds for the configuration."""
    name = config.http.token_env
    token = env.get(name, "")
    if config.http.enabled and token and len(token.strip()) < MIN_API_TOKEN:
        return [
            f"http.token_env: the API token in {name} is {len(token.strip())} characters long;"
            f" it needs at least {MIN_API_TOKEN} (e.g. `openssl rand -hex 24`)"
        ]
    return []


def _defaults() -> dict[str, Any]:
    """The built-in defaults as a plain tree, so an override of one nested key (say
    ``PERSONAD__LLM__BACKENDS__ANTHROPIC__MODEL``) keeps the rest of that table."""
    return {"llm": LLMConfig().model_dump(mode="json")}


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merged(result[key], value)
        else:
            result[key] = value
    return result


def _given_backends(tree: dict[str, Any], env: Mapping[str, str]) -> set[str]:
    """The backends the file or the environment name: a table of their own, or a role's
    backend (not the built-in table every configuration has)."""
    llm_given = tree.get("llm")
    ours: dict[str, Any] = {"llm": copy.deepcopy(llm_given) if isinstance(llm_given, dict) else {}}
    apply_env(ours, env)  # on a copy: the file's own tree is merged and overridden later
    llm = ours["llm"] if isinstance(ours.get("llm"), dict) else {}
    backends = llm.get("backends")
    names = {str(name) for name in backends} if isinstance(backends, dict) else set()
    roles = llm.get("roles")
    for role in roles.values() if isinstance(roles, dict) else ():
        if isinstance(role, dict) and isinstance(role.get("backend"), str) and role["backend"]:
            names.add(role["backend"])
    return names


def read_tree(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"config file {path} does not exist") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: {exc}") from exc
    except UnicodeDecodeError as exc:  # tomllib decodes the whole file before parsing it
        raise ConfigError(
            f"config file {path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"config file {path}: {exc.strerror}") from exc


def collect_problems(
    path: Path | None, env: Mapping[str, str] | None = None
) -> tuple[Config | None, list[str]]:
    """Load and validate; return the config (or None) and every problem found. With
    problems, the config returned (if any) has the defaults in place of the wrong sections."""
    try:
        tree = read_tree(path)
    except ConfigError as exc:
        return None, [str(exc)]
    return _validated(tree, path, os.environ if env is None else env)


def tree_problems(tree: dict[str, Any], env: Mapping[str, str] | None = None) -> list[str]:
    """Every problem of a config not yet written (``tree`` as its file would read), so that
    ``init`` can refuse to write one that ``check-config`` would refuse."""
    return _validated(copy.deepcopy(tree), None, os.environ if env is None else env)[1]


def _validated(
    tree: dict[str, Any], path: Path | None, env: Mapping[str, str]
) -> tuple[Config | None, list[str]]:
    given = _given_backends(tree, env)
    tree = _merged(_defaults(), tree)
    apply_env(tree, env)
    try:
        config = Config.model_validate(tree)
    except ValidationError as exc:
        # the sections that are right are still checked, so one run shows every problem
        problems = _format_errors(exc)
        bad = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
        try:
            config = Config.model_validate({k: v for k, v in tree.items() if k not in bad})
        except ValidationError:
            return None, problems
        config.source = path
        config.llm.mark_given(given)
        later = [p for p in _cross_checks(config) if p.split(".", 1)[0] not in bad]
        return config, problems + later + _env_checks(config, env)
    config.source = path
    config.llm.mark_given(given)
    return config, _cross_checks(config) + _env_checks(config, env)


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where ``personad init`` writes the config: ``$XDG_CONFIG_HOME/personad/personad.toml``
    (``~/.config/...``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "personad" / "personad.toml"


def config_path_from(arg: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """``--config``, else ``$PERSONAD_CONFIG``, else the file ``personad init`` writes when
    it exists; None means the built-in defaults."""
    env = os.environ if env is None else env
    chosen = arg or env.get("PERSONAD_CONFIG")
    if chosen:
        return Path(chosen).expanduser()
    default = default_config_path(env)
    return default if default.is_file() else None


def load_config(path: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Load, validate and return the configuration, or raise ConfigError naming the key."""
    config, problems = collect_problems(path, env)
    if problems or config is None:
        raise ConfigError("config: " + "; ".join(problems))
    return config


#: a key whose value is a secret (``token_env`` and the like only name a variable)
_SECRET_KEY = re.compile(r"(?:^|_)(?:token|password|passwd|secret|api_?key|apikey)$", re.I)


def _holds_secret(tree: Any) -> bool:
    if isinstance(tree, dict):
        return any(
            (isinstance(key, str) and _SECRET_KEY.search(key) and value not in ("", None))
            or _holds_secret(value)
            for key, value in tree.items()
        )
    if isinstance(tree, list):
        return any(_holds_secret(item) for item in tree)
    return False


def _readable_by_others(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False


def exposed_secret_files(path: Path | None) -> list[Path]:
    """The config file when it holds a secret and the group or others may read it, and a
    ``.env`` beside it that they may read; each wants ``chmod 600``."""
    if path is None:
        return []
    exposed = []
    if _readable_by_others(path):
        try:
            if _holds_secret(read_tree(path)):
                exposed.append(path)
        except ConfigError:
            pass  # reported as a problem by whoever loads it
    env_file = path.parent / ".env"
    if env_file.is_file() and _readable_by_others(env_file):
        exposed.append(env_file)
    return exposed
