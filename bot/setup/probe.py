"""``check-config --probe``: try each configured service live and say what it answered.

One request per service, each bounded by :data:`PROBE_SECONDS`: Matrix ``whoami`` (with the
access token, or a password login whose device is logged out again), Telegram ``getMe``,
Discord ``users/@me``, Nextcloud Talk's capabilities, and the ``models`` list of every
language model a role uses; a local server that has no ``GET /models`` (some llama.cpp and
proxy builds) is asked for a one-token completion instead. A connection that fails says why
in words (:func:`bot.daemon.connection_reason.connection_reason`), with the other scheme to try when
the scheme is the likely mistake. Secrets never appear in what is printed: every credential a
probe sends is masked in what it prints, a service's answer that quotes it back too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from adapters import registry
from bot.daemon.connection_reason import connection_reason, where
from bot.daemon.errors import ConfigError
from bot.daemon.logs import mask_secrets, register_secret
from bot.setup.config import Config

__all__ = ["PROBE_SECONDS", "Probe", "probe_all"]

#: how long one service may take to answer a probe
PROBE_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Probe:
    service: str
    ok: bool
    found: str

    def line(self) -> str:
        return f"probe: {self.service}: {'ok' if self.ok else 'FAILED'}: {self.found}"


def _sent(credential: str | None) -> str:
    """``credential``, masked from now on in whatever is printed or logged."""
    register_secret(credential)
    return credential or ""


class _Refused(Exception):
    """The service answered, and the answer says no."""


async def _json(response: aiohttp.ClientResponse) -> Any:
    try:
        return await response.json(content_type=None)
    except (ValueError, aiohttp.ContentTypeError):
        return None


async def _call(
    http: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> tuple[int, Any]:
    async with http.request(method, url, **kwargs) as response:
        return response.status, await _json(response)


def _deny(status: int, body: Any, what: str) -> _Refused:
    detail = ""
    if isinstance(body, dict):
        raw = body.get("error") or body.get("description") or body.get("message") or ""
        detail = raw.get("message", "") if isinstance(raw, dict) else str(raw)
    detail = mask_secrets(detail)  # before it is cut short, which could leave part of a key
    return _Refused(f"{what} answered HTTP {status}" + (f" ({detail[:120]})" if detail else ""))


async def _matrix(http: aiohttp.ClientSession, settings: Any) -> str:
    base = settings.homeserver.rstrip("/") + "/_matrix/client/v3"
    token = _sent(settings.secret("access_token"))
    logged_in = False
    if not token:
        body = {
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": settings.user_id},
            "password": _sent(settings.secret("password")),
            "initial_device_display_name": "personad check-config",
        }
        status, answer = await _call(http, "POST", f"{base}/login", json=body)
        if status != 200 or not isinstance(answer, dict):
            raise _deny(status, answer, "login")
        token, logged_in = _sent(str(answer.get("access_token", ""))), True
    headers = {"Authorization": f"Bearer {token}"}
    try:
        status, answer = await _call(http, "GET", f"{base}/account/whoami", headers=headers)
    finally:
        if logged_in:  # the probe's own device goes away again
            await _call(http, "POST", f"{base}/logout", headers=headers, json={})
    if status != 200 or not isinstance(answer, dict):
        raise _deny(status, answer, "whoami")
    how = "password login" if logged_in else "access token"
    return f"whoami is {answer.get('user_id')} ({how})"


async def _telegram(http: aiohttp.ClientSession, settings: Any) -> str:
    status, answer = await _call(
        http, "GET", f"{settings.api_url()}{_sent(settings.resolve_token())}/getMe"
    )
    if status != 200 or not isinstance(answer, dict) or not answer.get("ok"):
        raise _deny(status, answer, "getMe")
    return f"getMe is @{answer['result'].get('username')}"


async def _discord(http: aiohttp.ClientSession, settings: Any) -> str:
    base = settings.api_base or "https://discord.com/api/v10"
    headers = {"Authorization": f"Bot {_sent(settings.token_value())}"}
    status, answer = await _call(http, "GET", f"{base}/users/@me", headers=headers)
    if status != 200 or not isinstance(answer, dict):
        raise _deny(status, answer, "users/@me")
    return f"users/@me is {answer.get('username')} (id {answer.get('id')})"


async def _nctalk(http: aiohttp.ClientSession, settings: Any) -> str:
    url = settings.backend_url.rstrip("/") + "/ocs/v2.php/cloud/capabilities"
    headers = {"OCS-APIRequest": "true", "Accept": "application/json"}
    status, answer = await _call(http, "GET", url, headers=headers)
    data = (answer or {}).get("ocs", {}).get("data", {}) if isinstance(answer, dict) else {}
    if status != 200 or not isinstance(data, dict):
        raise _deny(status, answer, "capabilities")
    spreed = data.get("capabilities", {}).get("spreed")
    if not spreed:
        raise _Refused("the server answers, but Talk (spreed) is not installed on it")
    version = data.get("version", {}).get("string", "?")
    bots = "bots-v1" in spreed.get("features", [])
    return f"Nextcloud {version}, Talk {'with' if bots else 'WITHOUT'} bots"


#: statuses of a server that has no models list (rather than one that refuses the caller)
_NO_LIST = frozenset({404, 405, 501})


async def _one_token(
    http: aiohttp.ClientSession, url: str, model: str, headers: dict[str, str]
) -> str:
    """A one-token chat completion: what a server without ``GET /models`` can still show."""
    target = f"{url}/chat/completions"
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
    status, answer = await _call(http, "POST", target, headers=headers, json=body)
    if status != 200 or not isinstance(answer, dict) or "choices" not in answer:
        raise _deny(status, answer, target)
    return f"{target} answers a one-token request for {model!r} (no models list)"


def _model_probe(
    name: str, config: Config, env: Mapping[str, str]
) -> Callable[..., Awaitable[str]]:
    from bot.llm.factory import backend_url

    spec = config.llm.backends[name]
    url = backend_url(spec, env).rstrip("/")

    async def probe(http: aiohttp.ClientSession, _settings: Any) -> str:
        if spec.kind == "anthropic":
            key = _sent(env.get(spec.api_key_env or "ANTHROPIC_API_KEY", ""))
            headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
            target = f"{url}/v1/models"
        else:
            headers = {}
            if spec.api_key_env:
                headers["Authorization"] = f"Bearer {_sent(env.get(spec.api_key_env))}"
            target = f"{url}/models"
        status, answer = await _call(http, "GET", target, headers=headers)
        if spec.kind == "openai_compat" and status in _NO_LIST:
            return await _one_token(http, url, spec.model, headers)
        if status != 200 or not isinstance(answer, dict):
            raise _deny(status, answer, target)
        ids = [str(m.get("id")) for m in answer.get("data", []) if isinstance(m, dict)]
        listed = "listed" if spec.model in ids else f"NOT listed (it has: {', '.join(ids[:5])})"
        return f"{target} answers; model {spec.model!r} {listed}"

    return probe


_PLATFORMS: dict[str, Callable[[aiohttp.ClientSession, Any], Awaitable[str]]] = {
    "matrix": _matrix,
    "telegram": _telegram,
    "discord": _discord,
    "nctalk": _nctalk,
}


async def _one(
    http: aiohttp.ClientSession,
    service: str,
    probe: Callable[[aiohttp.ClientSession, Any], Awaitable[str]],
    settings: Any,
    url: str,
) -> Probe:
    # only scheme, host and port are printed: a Bot API URL carries its token
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            found = await probe(http, settings)
            return Probe(service, True, mask_secrets(found))
    except TimeoutError as exc:
        reason = connection_reason(exc, url).replace("in time", f"within {PROBE_SECONDS:g}s")
        return Probe(service, False, f"{where(url)}: {reason}")
    except (_Refused, ConfigError) as exc:
        return Probe(service, False, mask_secrets(str(exc)))
    except aiohttp.ClientError as exc:
        return Probe(
            service, False, f"cannot connect to {where(url)}: {connection_reason(exc, url)}"
        )


def _platform_url(name: str, settings: Any) -> str:
    """The address a platform's probe talks to."""
    if name == "matrix":
        return str(settings.homeserver)
    if name == "telegram":
        return str(settings.api_url())
    if name == "discord":
        return str(settings.api_base or "https://discord.com/api/v10")
    return str(settings.backend_url)


async def probe_all(config: Config, env: Mapping[str, str]) -> list[Probe]:
    """Probe every enabled platform and every language model a role uses, side by side."""
    from bot.llm.factory import backend_url, used_backends

    jobs: list[tuple[str, Callable[[aiohttp.ClientSession, Any], Awaitable[str]], Any, str]] = []
    for name, raw in sorted(config.adapters.items()):
        if isinstance(raw, dict) and raw.get("enabled") and name in _PLATFORMS:
            try:
                settings = registry.settings_for(name, raw)
            except ConfigError:
                continue  # already reported as a problem
            jobs.append((name, _PLATFORMS[name], settings, _platform_url(name, settings)))
    for name in used_backends(config.llm):
        url = backend_url(config.llm.backends[name], env)
        jobs.append((f"llm.{name}", _model_probe(name, config, env), None, url))
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)) as http:
        return list(await asyncio.gather(*(_one(http, *job) for job in jobs)))
