"""What ``personad init`` writes: the config as TOML, built from the answers, and the ``.env``.

The config names the data folder, the user (an admin, with their identities, time zone and
persona), the chat backend and the chosen platforms, with any ``--set section.key=value``
over them. The ``.env`` (mode 0600) keeps the secrets: the values it already had, those
given now over them, and a token for the HTTP API, made once.
"""

from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from bot.daemon.errors import ConfigError
from bot.persona.atomic import atomic_write_text
from bot.setup.init_questions import PLATFORM_SECRETS, local_zone

__all__ = ["config_tree", "render_toml", "write_env"]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def render_toml(tree: dict[str, Any], prefix: str = "") -> str:
    """``tree`` as TOML: plain keys first, then one ``[table]`` per nested dict."""
    lines = [
        f"{json.dumps(k) if not k.isidentifier() else k} = {_toml_value(v)}"
        for k, v in tree.items()
        if not isinstance(v, dict)
    ]
    out = (f"[{prefix}]\n" if prefix and lines else "") + "".join(f"{line}\n" for line in lines)
    for key, value in tree.items():
        if isinstance(value, dict):
            name = key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)
            out += ("\n" if out else "") + render_toml(
                value, f"{prefix}.{name}" if prefix else name
            )
    return out


def _set(tree: dict[str, Any], dotted: str) -> None:
    key, sep, raw = dotted.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {dotted!r}: write it as section.key=value")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    node = tree
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def config_tree(answers: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    user = answers["user"]
    tree: dict[str, Any] = {
        "daemon": {"data_dir": str(Path(answers["data_dir"]).expanduser())},
        "llm": {"roles": {"chat": {"backend": answers["backend"]}}},
        "users": {
            user: {
                "identities": answers["identities"],
                "timezone": args.timezone or local_zone(),
                "default_persona": answers["persona"],
                "admin": True,
            }
        },
    }
    if answers["backend"] == "local":
        tree["llm"]["backends"] = {
            "local": {
                "kind": "openai_compat",
                "model": answers["model"],
                "base_url": answers["local_url"],
            }
        }
    adapters: dict[str, Any] = {}
    for platform in answers["platforms"]:
        adapters[platform] = {"enabled": True}
    if "matrix" in adapters:
        adapters["matrix"].update(
            homeserver=answers["homeserver"],
            user_id=answers["matrix_user_id"],
            password_env="MATRIX_PASSWORD",
        )
    if "nctalk" in adapters:
        adapters["nctalk"].update(
            backend_url=answers["nctalk_url"], mention_name=answers["persona"]
        )
    if adapters:
        tree["adapters"] = adapters
    for dotted in args.set or []:
        _set(tree, dotted)
    return tree


def _env_text(values: dict[str, str]) -> str:
    lines = ["# personad's secrets (written by personad init; keep it chmod 600)"]
    for key, value in values.items():
        quoted = f"'{value}'" if "'" not in value else json.dumps(value)
        lines.append(f"{key}={quoted}")
    return "\n".join(lines) + "\n"


def write_env(path: Path, answers: dict[str, Any]) -> list[str]:
    """Merge the secrets into ``path`` (0600); return the names written anew."""
    existing: dict[str, str] = {}
    if path.is_file():
        existing = {k: v for k, v in dotenv_values(path).items() if v is not None}
    merged = dict(existing)
    merged.setdefault("PERSONAD_API_TOKEN", secrets.token_hex(24))
    variables = ["ANTHROPIC_API_KEY"] + [v for v, _ in PLATFORM_SECRETS.values()]
    for variable in variables:
        if answers.get(variable):
            merged[variable] = str(answers[variable])
    changed = [k for k, v in merged.items() if existing.get(k) != v]
    atomic_write_text(path, _env_text(merged), mode=0o600)
    return changed
