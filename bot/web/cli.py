"""``personad web login USER``, ``personad web password USER`` and ``personad web logout USER``.

``login`` prints a one-time link that signs USER in to the web console of the daemon using
the same data directory (only the token's hash is stored, in ``personad.db``; the link works
once, for 15 minutes). ``password`` reads a password and prints the scrypt hash to put in the
config as ``users.USER.web_password``. ``logout`` signs USER out of every browser at once
and uses up their links not yet used (a lost phone, a password changed).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable

from bot.delivery.state import StateStore
from bot.setup.config import Config
from bot.web.auth import LOGIN_TOKEN_SECONDS, WebStore
from bot.web.passwords import hash_password

__all__ = ["console_base", "register"]


def _check_user(config: Config, user: str) -> str | None:
    if user in config.users:
        return None
    known = ", ".join(sorted(config.users)) or "none"
    return f"user {user!r} is not configured (configured users: {known})"


#: the bind addresses a link to 127.0.0.1 (or [::1]) reaches
_LOOPBACK_V4 = frozenset({"", "0.0.0.0", "127.0.0.1", "localhost"})
_LOOPBACK_V6 = frozenset({"::", "::1", "[::1]"})


def console_base(config: Config) -> tuple[str, str | None]:
    """The console's address as a browser here opens it, and the problem that stops a link to
    it from working as printed (the server off, a port chosen at start, an address the console
    would refuse) or None. ``http.public_url`` wins over everything."""
    http = config.http
    if not http.enabled:
        return "", "http.enabled is false: the web console is off; set it to true and restart"
    if http.public_url:
        return http.public_url.rstrip("/"), None
    fix = "set http.public_url to the address you open the console at"
    if http.port == 0:
        return "", f"http.port is 0 (a port chosen at start); {fix}"
    host = http.host.lower()
    name = "127.0.0.1" if host in _LOOPBACK_V4 else "[::1]" if host in _LOOPBACK_V6 else ""
    if not name:
        return "", f"http.host is {http.host}, not this machine's loopback; {fix}"
    allowed = [entry.lower() for entry in http.allowed_hosts]
    if allowed and f"{name}:{http.port}" not in allowed and name not in allowed:
        return "", f"http.allowed_hosts does not include {name}:{http.port}; {fix}"
    return f"http://{name}:{http.port}", None


async def _login(args: argparse.Namespace, config: Config) -> int:
    problem = _check_user(config, args.user)
    base, unreachable = console_base(config)
    if problem or unreachable:
        print(f"personad: {problem or unreachable}", file=sys.stderr)
        return 2
    async with StateStore(config.data_dir / "personad.db") as state:
        token = await WebStore(state).issue_login(args.user)
    print(f"{base}/login?token={token}")
    print(f"(works once, for {LOGIN_TOKEN_SECONDS // 60} minutes)", file=sys.stderr)
    return 0


async def _password(args: argparse.Namespace, config: Config) -> int:
    problem = _check_user(config, args.user)
    if problem:
        print(f"personad: {problem}", file=sys.stderr)
        return 2
    if sys.stdin.isatty():
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            print("personad: the two passwords differ", file=sys.stderr)
            return 2
    else:
        password = sys.stdin.readline().rstrip("\n")
    if len(password) < 10:
        print("personad: use a password of at least 10 characters", file=sys.stderr)
        return 2
    print(f'[users.{args.user}]\nweb_password = "{hash_password(password)}"')
    return 0


async def _logout(args: argparse.Namespace, config: Config) -> int:
    problem = _check_user(config, args.user)
    if problem:
        print(f"personad: {problem}", file=sys.stderr)
        return 2
    async with StateStore(config.data_dir / "personad.db") as state:
        closed = await WebStore(state).close_sessions_of(args.user)
    browsers = "browser" if closed == 1 else "browsers"
    print(f"{args.user} is signed out of {closed} {browsers}.")
    return 0


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    web = subparsers.add_parser("web", help="the web console's sign-in")
    sub = web.add_subparsers(dest="web_command", required=True)
    commands: list[tuple[str, Callable[..., object], str]] = [
        ("login", _login, "print a one-time sign-in link"),
        ("password", _password, "print a password hash for the config"),
        ("logout", _logout, "sign a user out of every browser"),
    ]
    for name, func, help_text in commands:
        command = sub.add_parser(name, parents=[common], help=help_text)
        command.add_argument("user")
        command.set_defaults(func=func)
