"""``personad init``: from nothing to a checked configuration in one command.

It asks (or takes flags, for scripts) for the data folder, the user, the first persona, the
platforms and their tokens, and the model backend; writes the config and a 0600 ``.env``
beside it; creates the persona; and ends by running ``check-config`` (``--probe`` to try
each service live). Running it again is safe: an existing config is kept (``--force``
rewrites it), an existing ``.env`` keeps its values except those given again, an existing
persona is left as it is.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import pwd
import re
import secrets
import sys
import tomllib
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from bot.daemon.errors import ConfigError
from bot.daemon.invocation import with_config
from bot.persona.atomic import atomic_write_text
from bot.persona.names import validate_name
from bot.persona.store import PersonaStore
from bot.persona.template import available_templates, create_persona
from bot.setup.config import UserConfig, default_data_dir
from bot.setup.config_loader import default_config_path
from bot.setup.envfiles import ENV_FILE, load_env_files
from bot.setup.permissions import make_private_dirs
from bot.setup.preflight import report

__all__ = [
    "NO_TERMINAL",
    "PLATFORM_SECRETS",
    "folder_name",
    "local_zone",
    "register",
    "render_toml",
    "run_init",
]

#: the ``.env`` variable each platform's flag fills, and the flag
PLATFORM_SECRETS = {
    "telegram": ("TELEGRAM_BOT_TOKEN", "telegram_token"),
    "discord": ("DISCORD_BOT_TOKEN", "discord_token"),
    "matrix": ("MATRIX_PASSWORD", "matrix_password"),
    "nctalk": ("NCTALK_BOT_SECRET", "nctalk_secret"),
}


# -- TOML -------------------------------------------------------------------------------------


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


def folder_name(login: str) -> str:
    """A login name as a user's folder name, the way ``make chat`` makes it (every character
    but ASCII letters, digits, ``-`` and ``_`` becomes ``_``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", login)[:64] or "me"


def _login_name() -> str:
    # the account's own name, like `id -un`: $USER is often unset (sudo -u, cron, containers)
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # a uid with no passwd entry (a container's arbitrary uid)
        return os.environ.get("USER", "")


# -- questions --------------------------------------------------------------------------------


class _Asker:
    def __init__(self, interactive: bool) -> None:
        self.interactive = interactive

    def __call__(self, question: str, default: str = "", *, secret: bool = False) -> str:
        if not self.interactive:
            return default
        shown = f" [{'(hidden)' if secret and default else default}]" if default else ""
        prompt = f"{question}{shown}: "
        answer = getpass.getpass(prompt) if secret else input(prompt)
        return answer.strip() or default


def _kept_defaults(config_path: Path) -> dict[str, str]:
    """The data folder, user and persona of a config that is kept, as the defaults of a run
    again: its persona, not a new one for the login name, is the one checked and kept. Read
    from the file itself, so a secret still missing does not lose them."""
    try:
        tree = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the check at the end says what is wrong with it
    kept: dict[str, str] = {}
    data_dir = tree.get("daemon", {}).get("data_dir")
    if isinstance(data_dir, str) and data_dir:
        kept["data_dir"] = data_dir
    for name, user in (tree.get("users") or {}).items():
        kept["user"] = name
        persona = user.get("default_persona") if isinstance(user, dict) else None
        if isinstance(persona, str) and persona:
            kept["persona"] = persona
        break
    return kept


def _gather(
    args: argparse.Namespace, ask: _Asker, kept: dict[str, str] | None = None
) -> dict[str, Any]:
    """Every answer, from the flags or the questions (``kept``: the defaults of a kept config)."""
    kept = kept or {}
    answers: dict[str, Any] = {}
    data_default = kept.get("data_dir", str(default_data_dir()))
    answers["data_dir"] = args.data_dir or ask("Data folder", data_default)
    me = kept.get("user") or folder_name(_login_name())
    answers["user"] = args.user or ask("Your user name (a folder name)", me)
    validate_name(answers["user"], "user")
    persona_default = kept.get("persona", "inara")
    answers["persona"] = args.persona or ask("Your first persona's name", persona_default)
    validate_name(answers["persona"], "persona")
    platforms = list(args.platform or [])
    if not platforms and ask.interactive:
        chosen = ask("Platforms, comma separated (matrix, telegram, discord, nctalk; none)", "")
        platforms = [p.strip() for p in chosen.split(",") if p.strip() and p.strip() != "none"]
    for platform in platforms:
        if platform not in PLATFORM_SECRETS:
            raise ConfigError(f"--platform {platform!r}: one of {', '.join(PLATFORM_SECRETS)}")
    answers["platforms"] = platforms
    for variable, attr in PLATFORM_SECRETS.values():
        if getattr(args, attr):  # a token given again replaces the one in .env
            answers[variable] = getattr(args, attr)
    answers["identities"] = list(args.identity or [])
    for platform in platforms:
        variable, attr = PLATFORM_SECRETS[platform]
        label = (
            "password" if platform == "matrix" else "token" if platform != "nctalk" else "secret"
        )
        value = answers.get(variable) or ask(f"{platform} bot {label} ({variable})", secret=True)
        answers[variable] = value
        if not any(i.startswith(f"{platform}:") for i in answers["identities"]) and ask.interactive:
            mine = ask(f"Your own {platform} id, so the bot knows you (blank: later)")
            if mine:
                answers["identities"].append(f"{platform}:{mine}")
    if "matrix" in platforms:
        answers["homeserver"] = args.matrix_homeserver or ask("Matrix homeserver URL")
        answers["matrix_user_id"] = args.matrix_user_id or ask("The bot's Matrix id (@bot:hs)")
    if "nctalk" in platforms:
        answers["nctalk_url"] = args.nctalk_url or ask("Nextcloud URL (https://cloud.example)")
    answers["backend"] = args.backend or ask("Model backend (anthropic or local)", "anthropic")
    if answers["backend"] not in ("anthropic", "local"):
        raise ConfigError(f"--backend {answers['backend']!r}: anthropic or local")
    if answers["backend"] == "anthropic":
        key = args.anthropic_key or os.environ.get("ANTHROPIC_API_KEY", "")
        answers["ANTHROPIC_API_KEY"] = key or ask("Anthropic API key", secret=True)
    else:
        answers["local_url"] = args.local_url or ask("Server address", "http://127.0.0.1:11434/v1")
        answers["model"] = args.model or ask("Model name", "llama3.1")
    return answers


def _config_tree(answers: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
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


def local_zone() -> str:
    """This machine's time zone name, or UTC when it cannot be told."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        try:
            name = Path("/etc/timezone").read_text(encoding="utf-8").strip()
        except OSError:
            target = os.path.realpath("/etc/localtime")
            name = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
    try:
        UserConfig(timezone=name or "UTC")
    except Exception:
        return "UTC"
    return name or "UTC"


def _env_text(values: dict[str, str]) -> str:
    lines = ["# personad's secrets (written by personad init; keep it chmod 600)"]
    for key, value in values.items():
        quoted = f"'{value}'" if "'" not in value else json.dumps(value)
        lines.append(f"{key}={quoted}")
    return "\n".join(lines) + "\n"


def _write_env(path: Path, answers: dict[str, Any]) -> list[str]:
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


#: what a run without a terminal must be given, as the line that says so names it
NO_TERMINAL = (
    "init has no terminal to ask on; give the answers as flags: --backend local --local-url URL"
    " --model NAME (or --backend anthropic --anthropic-key KEY), optionally --user, --persona,"
    " --platform with its token, and --yes to take the defaults of the rest"
)


def _no_terminal_problem(args: argparse.Namespace, keep: bool) -> str | None:
    """Why a run that cannot ask would write a config that cannot work, or None. A kept config
    needs no answers; otherwise the model backend must be chosen, with what it needs."""
    if keep:
        return None
    if not args.backend and not args.yes:
        return NO_TERMINAL
    backend = args.backend or "anthropic"
    if backend == "anthropic" and not (args.anthropic_key or os.environ.get("ANTHROPIC_API_KEY")):
        return (
            "--backend anthropic needs --anthropic-key KEY (or ANTHROPIC_API_KEY set);"
            " or use --backend local --local-url URL --model NAME"
        )
    return None


def run_init(args: argparse.Namespace) -> int:
    ask = _Asker(interactive=sys.stdin.isatty() and not args.yes)
    chosen = args.config or os.environ.get("PERSONAD_CONFIG")
    config_path = Path(chosen).expanduser() if chosen else default_config_path()
    keep = config_path.exists() and not args.force
    if not ask.interactive:  # nothing can be asked: what is missing is said before writing
        problem = _no_terminal_problem(args, keep)
        if problem:
            raise ConfigError(problem)
    # the command to print at the end, found before PERSONAD_CONFIG is set below
    again = with_config(config_path)
    if keep:  # said before any question, so no answer is given for nothing
        print(f"kept the existing config {config_path} (--force writes a new one)")
    answers = _gather(args, ask, _kept_defaults(config_path) if keep else None)
    make_private_dirs(config_path.parent)
    if not keep:
        text = "# written by personad init; every key: config/personad.example.toml\n\n"
        atomic_write_text(config_path, text + render_toml(_config_tree(answers, args)))
        print(f"wrote {config_path}")
    env_path = config_path.parent / ENV_FILE
    changed = _write_env(env_path, answers)
    print(f"wrote {env_path} (mode 600){': ' + ', '.join(changed) if changed else ''}")
    os.environ["PERSONAD_CONFIG"] = str(config_path)
    load_env_files(str(config_path))
    for variable in ("ANTHROPIC_API_KEY", *(v for v, _ in PLATFORM_SECRETS.values())):
        if answers.get(variable):  # what was given now wins over an older value
            os.environ[variable] = str(answers[variable])
    data_dir = Path(answers["data_dir"]).expanduser()
    make_private_dirs(data_dir)
    store = PersonaStore(data_dir)
    user, persona = answers["user"], answers["persona"]
    if store.directory(user, persona).is_dir():
        print(f"kept the existing persona {user}/{persona}")
    else:
        create_persona(store, user, persona, template=args.template)
        print(f"created persona {user}/{persona} in {store.directory(user, persona)}")
    code = report(config_path, probe=args.probe)
    if code == 0:
        print(f"next: {again} chat --user {user} --persona {persona}\n      {again} run")
    return code


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``personad init`` to the command line."""
    init = sub.add_parser("init", parents=[common], help="write a config, .env and persona")
    init.add_argument("--user", help="your user name")
    init.add_argument("--persona", help="the first persona's name (default inara)")
    init.add_argument("--template", help=f"one of: {', '.join(available_templates())}")
    init.add_argument("--timezone", help="your time zone (default: this machine's)")
    init.add_argument("--platform", action="append", choices=sorted(PLATFORM_SECRETS))
    init.add_argument("--identity", action="append", help="yours on a platform: telegram:123")
    init.add_argument("--telegram-token")
    init.add_argument("--discord-token")
    init.add_argument("--matrix-homeserver")
    init.add_argument("--matrix-user-id", help="the bot's account, @bot:example.org")
    init.add_argument("--matrix-password")
    init.add_argument("--nctalk-url", help="the Nextcloud base URL")
    init.add_argument("--nctalk-secret", help="the Talk bot's shared secret")
    init.add_argument("--backend", choices=("anthropic", "local"))
    init.add_argument("--anthropic-key")
    init.add_argument("--local-url", help="an OpenAI-compatible server's /v1 address")
    init.add_argument("--model", help="the local model's name")
    init.add_argument("--set", action="append", metavar="KEY=VALUE", help="any other key")
    init.add_argument("--yes", action="store_true", help="ask nothing: flags and defaults")
    init.add_argument("--force", action="store_true", help="rewrite an existing config")
    init.add_argument("--probe", action="store_true", help="try each service live at the end")
    init.set_defaults(func=run_init)
