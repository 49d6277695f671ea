"""Shared test setup: no test may reach past this machine's loopback, nor read or write the
home of the person running it."""

from __future__ import annotations

import atexit
import ipaddress
import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
import structlog

# the whole suite, and every process it starts, lives in a home of its own: a config file
# in the real ~/.config/personad, or anything under ~/.local, never changes what a test sees
_HOME = tempfile.mkdtemp(prefix="personad-test-home-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["HOME"] = _HOME
for _name, _folder in (
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
    ("XDG_CACHE_HOME", ".cache"),
):
    os.environ[_name] = os.path.join(_HOME, _folder)
os.environ.pop("PERSONAD_CONFIG", None)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _allowed(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _allowed(address):
        raise RuntimeError(f"test tried to reach {address!r}; only loopback is allowed")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _allowed(address):
        raise RuntimeError(f"test tried to reach {address!r}; only loopback is allowed")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _fresh_logging() -> Iterator[None]:
    """A test that configures logging (the CLI does) must not leak it into the next one."""
    handlers = logging.getLogger().handlers[:]
    level = logging.getLogger().level
    yield
    structlog.reset_defaults()
    root = logging.getLogger()
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(autouse=True)
def _own_environment() -> Iterator[None]:
    """A command run in-process loads ``.env`` files into the environment (as it does at the
    start of a real process): the next test starts from the environment as it was."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
