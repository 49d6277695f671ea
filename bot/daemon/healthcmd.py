"""``personad health``: ask a running daemon's ``/healthz`` and say what it answered.

For scripts, the container's HEALTHCHECK and systemd's ``ExecStartPost``: exit status 0 when
every enabled adapter is healthy, 1 when the daemon answers that one is not (each problem is
printed, one a line), 2 when nothing answers. ``--wait SECONDS`` keeps asking until the
daemon is healthy, an adapter has failed for good, or the time is up.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from bot.daemon.invocation import invocation
from bot.setup.config import Config

__all__ = ["ask_health"]


def _url(config: Config) -> str:
    host = config.http.host
    if host in ("0.0.0.0", "::", ""):  # listening everywhere: ask on loopback
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{config.http.port}/healthz"


def _get(url: str) -> tuple[int, dict[str, Any]] | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"{}")
        except ValueError:
            return exc.code, {}
    except (OSError, ValueError):
        return None


def _failed_for_good(body: dict[str, Any]) -> bool:
    # a failed adapter (credentials rejected, a secret missing) is not retried: waiting on
    # would only hold up a systemd start for nothing
    adapters = body.get("adapters") or {}
    return any(isinstance(a, dict) and a.get("state") == "failed" for a in adapters.values())


def ask_health(config: Config, wait: float = 0.0) -> int:
    """Print the daemon's health; the exit status described above."""
    url = _url(config)
    deadline = time.monotonic() + wait
    while True:
        answer = _get(url)
        if answer is not None and (answer[0] == 200 or _failed_for_good(answer[1])):
            break
        if time.monotonic() >= deadline:
            break
        time.sleep(0.5)
    if answer is None:
        print(f"personad: nothing answers at {url}; is `{invocation()} run` running?")
        return 2
    status, body = answer
    if status == 200:
        adapters = ", ".join(sorted(body.get("adapters", {}))) or "no adapters"
        print(f"healthy ({adapters})")
        return 0
    for name, why in sorted((body.get("problems") or {}).items()):
        print(f"{name}: {why}")
    return 1
