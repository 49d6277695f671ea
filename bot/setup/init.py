"""``personad init``: from nothing to a checked configuration in one command.

It asks (or takes flags, for scripts) for the data folder, the user, the first persona, the
platforms and their tokens, and the model backend; writes the config and a 0600 ``.env``
beside it; creates the persona; and ends by running ``check-config`` (``--probe`` to try
each service live). Answers that make a config ``check-config`` would refuse (a time zone, an
identity, a ``--set`` key) or name no template stop it before anything is written. Running
it again is safe: an existing config is kept (``--force`` rewrites it), an existing ``.env``
keeps its values except those given again, an existing persona is left as it is.

The answers are :mod:`bot.setup.init_questions`; the config and ``.env`` they become,
:mod:`bot.setup.init_files`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bot.daemon.errors import ConfigError, PersonadError
from bot.daemon.invocation import with_config
from bot.persona.atomic import atomic_write_text
from bot.persona.store import PersonaStore
from bot.persona.template import available_templates, create_persona, template_dir
from bot.setup.config_loader import default_config_path, tree_problems
from bot.setup.envfiles import ENV_FILE, load_env_files
from bot.setup.init_files import config_tree, render_toml, write_env
from bot.setup.init_questions import (
    PLATFORM_SECRETS,
    Asker,
    gather,
    kept_defaults,
    no_terminal_problem,
)
from bot.setup.permissions import make_private_dirs
from bot.setup.preflight import report

__all__ = ["register", "run_init"]


def run_init(args: argparse.Namespace) -> int:
    ask = Asker(interactive=sys.stdin.isatty() and not args.yes)
    chosen = args.config or os.environ.get("PERSONAD_CONFIG")
    config_path = Path(chosen).expanduser() if chosen else default_config_path()
    keep = config_path.exists() and not args.force
    if not ask.interactive:  # nothing can be asked: what is missing is said before writing
        problem = no_terminal_problem(args, keep)
        if problem:
            raise ConfigError(problem)
    # the command to print at the end, found before PERSONAD_CONFIG is set below
    again = with_config(config_path)
    if keep:  # said before any question, so no answer is given for nothing
        print(f"kept the existing config {config_path} (--force writes a new one)")
    answers = gather(args, ask, kept_defaults(config_path) if keep else None)
    tree = None if keep else config_tree(answers, args)
    _refuse_what_cannot_work(args, tree)
    make_private_dirs(config_path.parent)
    if tree is not None:
        text = "# written by personad init; every key: config/personad.example.toml\n\n"
        atomic_write_text(config_path, text + render_toml(tree))
        print(f"wrote {config_path}")
    env_path = config_path.parent / ENV_FILE
    changed = write_env(env_path, answers)
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


def _refuse_what_cannot_work(args: argparse.Namespace, tree: dict[str, Any] | None) -> None:
    """Stop before anything is written when the answers make a config ``check-config`` would
    refuse (a time zone, an identity, a ``--set`` key) or name no template: written, it would
    be kept by the next ``init``, which keeps an existing config."""
    problems = tree_problems(tree) if tree is not None else []
    if args.template:
        try:
            template_dir(args.template)
        except PersonadError as exc:
            problems.append(exc.user_message)
    if problems:
        raise ConfigError(f"{'; '.join(problems)}; nothing was written")


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
