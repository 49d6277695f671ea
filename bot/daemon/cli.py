"""The ``personad`` command line.

    personad run                      the daemon: every configured adapter and the HTTP API
    personad chat --user U --persona P    talk in this terminal (or through a pipe)
    personad init                     write a config, a private .env and the first persona
    personad check-config [--probe]   print every configuration problem (and try each service)
    personad health [--wait S]        ask the running daemon's /healthz
    personad persona new USER NAME    create a persona from a template
    personad persona list [USER]
    personad memory add|search|list|explain|forget|stats|export --user U --persona P
    personad distill short|mid|long --user U --persona P
    personad web login|password USER  sign in to the web console

``--config PATH`` (or ``PERSONAD_CONFIG``) names the TOML file, else the one ``init`` writes
(``~/.config/personad/personad.toml``) when it exists; without one, defaults apply and the
data directory is ``PERSONAD_DATA_DIR`` or ``~/.local/share/personad``. A ``.env`` in the
working directory and beside the config is read first (the real environment wins). A problem is
reported as one clear sentence on stderr with exit status 2, never a traceback.

Every command runs with a private umask (what it creates is the user's alone), and ``run`` and
``check-config`` warn when the config file holding secrets, or a ``.env`` beside it, can be
read by other users.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import structlog

from adapters.base import AdapterContext, Incoming
from adapters.console.adapter import ConsoleAdapter
from bot import __version__
from bot.daemon.errors import PersonadError
from bot.daemon.invocation import with_config
from bot.daemon.logs import configure_logging
from bot.memory.cli import register as register_memory_commands
from bot.persona.names import validate_name
from bot.persona.store import PersonaStore
from bot.persona.template import available_templates, create_persona
from bot.setup.config import Config
from bot.setup.config_loader import config_path_from, load_config
from bot.setup.config_users import UserConfig
from bot.setup.envfiles import load_env_files
from bot.setup.init import register as register_init
from bot.setup.init_questions import local_zone
from bot.setup.permissions import private_umask
from bot.setup.preflight import check, ensure, report
from bot.web.cli import register as register_web_commands

__all__ = ["main"]


def _fail(message: str, code: int = 2) -> int:
    print(f"personad: {message}", file=sys.stderr)
    return code


def _no_persona(config: Config, args: argparse.Namespace, user: str, persona: str) -> str:
    """Why ``persona`` cannot be used, with the command that makes it: with this run's
    ``--config`` and ``--data-dir``, so that pasted it makes the persona where it was looked for."""
    again = with_config(config.source, getattr(args, "data_dir", None))
    return (
        f"there is no persona {persona!r} for {user!r} in {config.data_dir};"
        f" create it with: {again} persona new {user} {persona}"
    )


def _unconfigured(config: Config, user: str) -> str | None:
    """Why ``user`` is none of the config's users (a persona for them no one could reach),
    or None when it is one or the config names no users (then anyone may be)."""
    if not config.users or user in config.users:
        return None
    twins = [name for name in config.users if name.lower() == user.lower()]
    if twins:
        return f"user {user!r} is not configured; did you mean {twins[0]!r}?"
    return (
        f"user {user!r} is not configured; add a [users.{user}] section to"
        f" {config.source or 'the config'} or pick one of: {', '.join(config.users)}"
    )


def _load(args: argparse.Namespace) -> Config:
    config = load_config(config_path_from(getattr(args, "config", None)))
    if getattr(args, "data_dir", None):
        config.daemon.data_dir = Path(args.data_dir).expanduser()
    return config


# -- chat -------------------------------------------------------------------------------------


async def _chat(args: argparse.Namespace) -> int:
    from bot.daemon.daemon import Daemon

    config = _load(args)
    user, persona = args.user, args.persona
    validate_name(user, "user")
    validate_name(persona, "persona")
    if problem := _unconfigured(config, user):
        return _fail(problem)
    if not config.users:
        config.users[user] = UserConfig(timezone=local_zone(), default_persona=persona, admin=True)
    identity = f"console:{user}"
    if identity not in config.users[user].identities:
        config.users[user].identities.append(identity)
    store = PersonaStore(config.data_dir)
    if not store.directory(user, persona).is_dir():
        return _fail(_no_persona(config, args, user, persona))
    config.adapters = {}
    daemon = Daemon(config, http=False, jobs=False, pinned={(user, "console"): persona})

    async def handler(incoming: Incoming) -> None:
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    console = ConsoleAdapter(
        AdapterContext(
            handler=handler, state=daemon.state.for_adapter("console"), data_dir=config.data_dir
        ),
        sender=user,
    )
    daemon.attach("console", console)
    # Ctrl-C ends the chat as end of input does, whenever it comes (during start-up too):
    # the daemon stops in order and the exit status says it was interrupted
    interrupted = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, interrupted.set)
    try:
        await daemon.start()
        ended = asyncio.ensure_future(console.finished.wait())
        stopped = asyncio.ensure_future(interrupted.wait())
        await asyncio.wait({ended, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for waiter in (ended, stopped):
            waiter.cancel()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await daemon.stop()
    return 130 if interrupted.is_set() else 0


# -- other commands --------------------------------------------------------------------------


async def _run(args: argparse.Namespace) -> int:
    from bot.daemon.daemon import Daemon

    path = config_path_from(args.config)
    findings = check(path)
    config = ensure(findings, path)
    configure_logging(fmt=config.daemon.log_format, level=config.daemon.log_level)
    log = structlog.get_logger(__name__)
    for exposed in findings.exposed:
        log.warning("config.readable_by_others", file=str(exposed), fix=f"chmod 600 {exposed}")
    await Daemon(config).run_until_signalled()
    return 0


def _check_config(args: argparse.Namespace) -> int:
    return report(config_path_from(args.config), probe=args.probe)


def _health(args: argparse.Namespace) -> int:
    from bot.daemon.healthcmd import ask_health

    return ask_health(_load(args), wait=args.wait)


def _persona_new(args: argparse.Namespace) -> int:
    config = _load(args)
    if problem := _unconfigured(config, args.user):
        return _fail(problem)
    store = PersonaStore(config.data_dir)
    path = create_persona(store, args.user, args.name, template=args.template)
    print(f"created persona {args.name!r} for {args.user!r} in {path}")
    again = with_config(config.source, getattr(args, "data_dir", None))
    print(f"talk to it with: {again} chat --user {args.user} --persona {args.name}")
    return 0


def _persona_list(args: argparse.Namespace) -> int:
    config = _load(args)
    store = PersonaStore(config.data_dir)
    users = [args.user] if args.user else store.list_users()
    again = with_config(config.source, getattr(args, "data_dir", None))
    if not users:
        print(
            f"no personas yet in {config.data_dir}; create one with: {again} persona new USER NAME"
        )
    for user in users:
        names = store.list_personas(user)
        if not names and args.user:  # a name mistyped, or a user yet to begin
            print(
                f"no personas for {user!r} in {config.data_dir};"
                f" create one with: {again} persona new {user} NAME"
            )
        for name in names:
            print(f"{user}/{name}")
    print(f"templates: {', '.join(available_templates()) or 'none'}")
    return 0


async def _distill(args: argparse.Namespace) -> int:
    """Run one level now, recorded in ``personad.db`` as the daemon records a scheduled run,
    so its catch-up after a restart does not run the level again. Exit status 1 when a step
    failed (the printed sentence says which and why)."""
    from bot.delivery.state import StateStore
    from bot.llm.factory import build_backends
    from bot.memory.distill.distiller import Distiller
    from bot.memory.distill.schedule import DistillRuns

    config = _load(args)
    store = PersonaStore(config.data_dir, config.prompt.limit)
    if not store.directory(args.user, args.persona).is_dir():
        return _fail(_no_persona(config, args, args.user, args.persona))
    backends = build_backends(config.llm, os.environ) if args.kind != "short" else {}
    try:
        async with StateStore(config.data_dir / "personad.db") as state:
            distiller = Distiller(config, store, backends, runs=DistillRuns(state))
            print(await distiller.run(args.user, args.persona, args.kind))
    finally:
        for backend in backends.values():
            await backend.close()
    # the sentence says what failed; the status tells a script or a cron job that something did
    outcome = distiller.outcome(args.user, args.persona, args.kind)
    return 1 if outcome in ("failed", "partial") else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="personad", description="Talk to your own long-lived AI persona."
    )
    parser.add_argument("--version", action="version", version=f"personad {__version__}")
    parser.add_argument("--config", help="TOML config file (default: $PERSONAD_CONFIG)")
    parser.add_argument("--data-dir", help="data directory (overrides the config)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=argparse.SUPPRESS, help="TOML config file")
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help="data directory")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("run", parents=[common], help="run the daemon").set_defaults(func=_run)
    chat = sub.add_parser("chat", parents=[common], help="talk in this terminal")
    chat.add_argument("--user", required=True, help="the user who talks")
    chat.add_argument("--persona", required=True, help="the persona to talk to")
    chat.set_defaults(func=_chat)
    checking = sub.add_parser(
        "check-config", parents=[common], help="print every configuration problem"
    )
    checking.add_argument(
        "--probe", action="store_true", help="also try each configured service live"
    )
    checking.set_defaults(func=_check_config)
    health = sub.add_parser("health", parents=[common], help="ask the running daemon's /healthz")
    health.add_argument("--wait", type=float, default=0.0, help="seconds to wait to be healthy")
    health.set_defaults(func=_health)
    register_init(sub, common)

    persona = sub.add_parser("persona", help="create and list personas")
    persona_sub = persona.add_subparsers(dest="persona_command", required=True)
    new = persona_sub.add_parser("new", parents=[common], help="create a persona")
    new.add_argument("user")
    new.add_argument("name")
    new.add_argument("--template", help=f"one of: {', '.join(available_templates())}")
    new.set_defaults(func=_persona_new)
    listing = persona_sub.add_parser("list", parents=[common], help="list personas")
    listing.add_argument("user", nargs="?")
    listing.set_defaults(func=_persona_list)

    distill = sub.add_parser("distill", parents=[common], help="run one distillation now")
    distill.add_argument(
        "kind",
        choices=("short", "mid", "long"),
        help="short: the newest days, as said; mid: the model's summary of them;"
        " long: mid folded into the long-term memory",
    )
    distill.add_argument("--user", required=True, help="the user who owns the persona")
    distill.add_argument("--persona", required=True, help="the persona whose memory to distill")
    distill.set_defaults(func=_distill)

    register_memory_commands(sub)
    register_web_commands(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    private_umask()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        load_env_files(args.config)
        if args.data_dir and args.command != "init":
            # through the environment, so every command and check sees the same folder
            os.environ["PERSONAD_DATA_DIR"] = str(Path(args.data_dir).expanduser())
        if args.command != "run":
            level = os.environ.get("PERSONAD_LOG_LEVEL", "error")
            configure_logging(fmt="console", level=level)
        if args.command in ("memory", "web"):
            result = asyncio.run(args.func(args, _load(args)))
        elif asyncio.iscoroutinefunction(args.func):
            result = asyncio.run(args.func(args))
        else:
            result = args.func(args)
        sys.stdout.flush()  # inside the try: a closed pipe is noticed here, not at exit
    except PersonadError as exc:
        return _fail(exc.user_message)
    except BrokenPipeError:
        # the reader of our output went away (`personad persona list | grep -q`): not an
        # error worth a traceback; stdout is pointed at /dev/null so exiting flushes nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        # a folder that is a file, a permission, a full disk: one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        return 130
    return int(result)


if __name__ == "__main__":
    sys.exit(main())
