"""What ``personad init`` is told: each answer from its flag, or else asked on the terminal.

Without a terminal (or with ``--yes``) nothing is asked: a flag not given takes its default,
and a run that would write a config that cannot work is stopped before it writes, with the
flags it needs. The defaults come from this machine (the login name as the user's folder
name, the time zone) or, when the config is kept, from the config itself.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import os
import pwd
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.daemon.errors import ConfigError, PersonadError
from bot.persona.names import validate_name
from bot.setup.config import default_data_dir
from bot.setup.config_llm import url_problem
from bot.setup.config_users import UserConfig, identity_problem

__all__ = [
    "NO_TERMINAL",
    "PLATFORM_SECRETS",
    "Asker",
    "folder_name",
    "gather",
    "kept_defaults",
    "local_zone",
    "no_terminal_problem",
]

#: the ``.env`` variable each platform's flag fills, and the flag
PLATFORM_SECRETS = {
    "telegram": ("TELEGRAM_BOT_TOKEN", "telegram_token"),
    "discord": ("DISCORD_BOT_TOKEN", "discord_token"),
    "matrix": ("MATRIX_PASSWORD", "matrix_password"),
    "nctalk": ("NCTALK_BOT_SECRET", "nctalk_secret"),
}


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


class Asker:
    def __init__(self, interactive: bool) -> None:
        self.interactive = interactive

    def __call__(self, question: str, default: str = "", *, secret: bool = False) -> str:
        if not self.interactive:
            return default
        shown = f" [{'(hidden)' if secret and default else default}]" if default else ""
        try:
            answer = self._read(f"{question}{shown}: ", secret=secret)
        except EOFError:  # Ctrl-D: nothing is written before every answer is in
            print()
            raise ConfigError(
                "init ended at a question (end of input); nothing was written"
            ) from None
        return answer.strip() or default

    def _read(self, prompt: str, *, secret: bool) -> str:
        return getpass.getpass(prompt) if secret else input(prompt)

    def until_valid(self, question: str, default: str, check: Callable[[str], str]) -> str:
        """Ask until ``check`` takes the answer (it gives the value to keep, or raises a
        PersonadError saying what is wrong, which is printed before the question comes
        again): a typo does not end ``init`` and lose the answers before it. Without a
        terminal the default is checked once, its problem raised."""
        while True:
            answer = self(question, default)
            try:
                return check(answer)
            except PersonadError as exc:
                if not self.interactive:
                    raise
                print(f"  {exc.user_message}")


def kept_defaults(config_path: Path) -> dict[str, str]:
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


def gather(
    args: argparse.Namespace, ask: Asker, kept: dict[str, str] | None = None
) -> dict[str, Any]:
    """Every answer, from the flags or the questions (``kept``: the defaults of a kept config)."""
    kept = kept or {}
    answers: dict[str, Any] = {}
    data_default = kept.get("data_dir", str(default_data_dir()))
    answers["data_dir"] = args.data_dir or ask("Data folder", data_default)
    me = kept.get("user") or folder_name(_login_name())
    answers["user"] = (
        validate_name(args.user, "user")
        if args.user
        else ask.until_valid(
            "Your user name (a folder name)", me, lambda name: validate_name(name, "user")
        )
    )
    persona_default = kept.get("persona", "inara")
    answers["persona"] = (
        validate_name(args.persona, "persona")
        if args.persona
        else ask.until_valid(
            "Your first persona's name",
            persona_default,
            lambda name: validate_name(name, "persona"),
        )
    )
    platforms = list(args.platform or [])
    if not platforms and ask.interactive:
        chosen = ask.until_valid(
            "Platforms, comma separated (matrix, telegram, discord, nctalk; none)", "", _platforms
        )
        platforms = chosen.split(",") if chosen else []
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
            mine = ask.until_valid(
                f"Your own {platform} id, so the bot knows you (blank: later)",
                "",
                functools.partial(_own_identity, platform),
            )
            if mine:
                answers["identities"].append(mine)
    if "matrix" in platforms:
        answers["homeserver"] = args.matrix_homeserver or ask("Matrix homeserver URL")
        answers["matrix_user_id"] = args.matrix_user_id or ask("The bot's Matrix id (@bot:hs)")
    if "nctalk" in platforms:
        answers["nctalk_url"] = args.nctalk_url or ask("Nextcloud URL (https://cloud.example)")
    answers["backend"] = args.backend or ask.until_valid(
        "Model backend (anthropic or local)", "anthropic", _backend
    )
    if answers["backend"] == "anthropic":
        key = args.anthropic_key or os.environ.get("ANTHROPIC_API_KEY", "")
        answers["ANTHROPIC_API_KEY"] = key or ask("Anthropic API key", secret=True)
    else:
        answers["local_url"] = args.local_url or ask.until_valid(
            "Server address", "http://127.0.0.1:11434/v1", _address
        )
        answers["model"] = args.model or ask("Model name", "llama3.1")
    return answers


def _platforms(answer: str) -> str:
    """The platforms named in an answer, lowercased, joined by commas ("" for none)."""
    named = [p.strip().lower() for p in answer.split(",")]
    named = [p for p in named if p and p != "none"]
    for platform in named:
        if platform not in PLATFORM_SECRETS:
            raise ConfigError(f"{platform!r} is no platform: one of {', '.join(PLATFORM_SECRETS)}")
    return ",".join(named)


def _own_identity(platform: str, answer: str) -> str:
    """The identity an answer to "your own id" makes ("" for none yet)."""
    if not answer:
        return ""
    identity = answer if answer.startswith(f"{platform}:") else f"{platform}:{answer}"
    problem = identity_problem(identity)
    if problem:
        raise ConfigError(problem)
    return identity


def _address(answer: str) -> str:
    problem = url_problem(answer)
    if problem:
        raise ConfigError(problem)
    return answer


def _backend(answer: str) -> str:
    backend = answer.strip().lower()
    if backend not in ("anthropic", "local"):
        raise ConfigError(f"{answer!r} is no model backend: anthropic or local")
    return backend


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


#: what a run without a terminal must be given, as the line that says so names it
NO_TERMINAL = (
    "init has no terminal to ask on; give the answers as flags: --backend local --local-url URL"
    " --model NAME (or --backend anthropic --anthropic-key KEY), optionally --user, --persona,"
    " --platform with its token, and --yes to take the defaults of the rest"
)


def no_terminal_problem(args: argparse.Namespace, keep: bool) -> str | None:
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
