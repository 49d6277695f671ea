"""Backends built from configuration, each wrapped in :class:`~bot.llm.retry.RetryingBackend`.

Only the backends some role uses are built, so an unused Anthropic backend does not demand a
key. Keys come from the environment mapping passed in (never from the TOML file), and each
key read is masked in every log line from then on, whatever its variable is called:

- ``anthropic``: the variable named by ``api_key_env``, else ``ANTHROPIC_API_KEY``; the base
  URL from ``base_url``, else ``ANTHROPIC_BASE_URL``, else Anthropic's own;
- ``openai_compat``: ``base_url`` is required; a bearer key only when ``api_key_env`` names one.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from bot.daemon.errors import ConfigError
from bot.daemon.logs import register_secret
from bot.llm.base import LLMBackend
from bot.llm.deferred import DeferredBackend
from bot.llm.retry import RetryingBackend
from bot.setup.config_llm import MEDIA_ROLES, BackendConfig, LLMConfig, RoleConfig

__all__ = ["backend_problems", "backend_url", "build_backend", "build_backends", "used_backends"]

log = structlog.get_logger(__name__)


def _anthropic_key(spec: BackendConfig, env: Mapping[str, str]) -> tuple[str, str]:
    key_env = spec.api_key_env or "ANTHROPIC_API_KEY"
    api_key = env.get(key_env, "").strip()
    if not api_key:
        raise ConfigError(
            f"{key_env} is not set: export your Anthropic API key, or set "
            "llm.roles.chat.backend to a local OpenAI-compatible server "
            "(see config/personad.example.toml)."
        )
    register_secret(api_key)
    return key_env, api_key


def backend_url(spec: BackendConfig, env: Mapping[str, str]) -> str:
    """The address a backend talks to, for log lines and probes."""
    if spec.kind == "anthropic":
        return spec.base_url or env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    return spec.base_url or ""


def _anthropic(name: str, spec: BackendConfig, env: Mapping[str, str]) -> LLMBackend:
    key_env, api_key = _anthropic_key(spec, env)
    base_url = spec.base_url or env.get("ANTHROPIC_BASE_URL") or None

    def build() -> LLMBackend:
        # the anthropic library costs seconds to import: a local backend never loads it,
        # and this one loads it in a thread while the daemon already serves
        from bot.llm.anthropic import AnthropicBackend

        return AnthropicBackend(
            model=spec.model,
            api_key=api_key,
            base_url=base_url,
            timeout=spec.timeout,
            max_tokens=spec.max_tokens,
            temperature=spec.temperature,
            key_env=key_env,
            name=name,
        )

    return DeferredBackend(name, spec.model, build)


def _openai_key(name: str, spec: BackendConfig, env: Mapping[str, str]) -> str | None:
    if not spec.base_url:
        raise ConfigError(
            f"llm.backends.{name}.base_url is not set: give the server's address, "
            "e.g. http://127.0.0.1:11434/v1 for Ollama."
        )
    api_key = None
    if spec.api_key_env:
        api_key = env.get(spec.api_key_env, "").strip()
        if not api_key:
            raise ConfigError(
                f"{spec.api_key_env} is not set: export the key for llm.backends.{name}, "
                f"or remove llm.backends.{name}.api_key_env if the server needs none."
            )
        register_secret(api_key)
    return api_key


def _openai_compat(name: str, spec: BackendConfig, env: Mapping[str, str]) -> LLMBackend:
    from bot.llm.openai_compat import OpenAICompatBackend

    api_key = _openai_key(name, spec, env)
    return OpenAICompatBackend(
        model=spec.model,
        base_url=spec.base_url or "",  # _openai_key refused an empty one
        api_key=api_key,
        timeout=spec.timeout,
        max_tokens=spec.max_tokens,
        temperature=spec.temperature,
        name=name,
    )


def build_backend(name: str, spec: BackendConfig, env: Mapping[str, str]) -> LLMBackend:
    """One configured backend, retrying transient failures ``spec.max_retries`` times."""
    if spec.kind == "anthropic":
        inner = _anthropic(name, spec, env)
    else:
        inner = _openai_compat(name, spec, env)
    log.info(
        "llm.backend",
        backend=name,
        kind=spec.kind,
        model=spec.model,
        url=backend_url(spec, env),
        timeout=spec.timeout,
    )
    return RetryingBackend(
        inner, attempts=spec.max_retries + 1, deadline=spec.timeout, url=backend_url(spec, env)
    )


def used_backends(config: LLMConfig) -> list[str]:
    """The names of the backends some role uses, in role order (the media roles' servers
    are not language models: :mod:`bot.media.servers` speaks to them)."""
    names: list[str] = []
    for role in config.roles:
        if role in MEDIA_ROLES:
            continue
        name, _ = config.backend_for(role)
        if name not in names:
            names.append(name)
    return names


def build_backends(config: LLMConfig, env: Mapping[str, str]) -> dict[str, LLMBackend]:
    """Every backend a role uses, by backend name."""
    return {name: build_backend(name, config.backends[name], env) for name in used_backends(config)}


def backend_problems(config: LLMConfig, env: Mapping[str, str]) -> list[str]:
    """What would stop :func:`build_backends` or the media servers (a missing key or
    address), one line each, without building anything."""
    problems = []
    media = [
        name
        for role in MEDIA_ROLES
        if (name := config.roles.get(role, RoleConfig()).backend) in config.backends
    ]
    for name in dict.fromkeys([*used_backends(config), *media]):
        spec = config.backends[name]
        try:
            if spec.kind == "anthropic":
                _anthropic_key(spec, env)
            else:
                _openai_key(name, spec, env)
        except ConfigError as exc:
            problems.append(str(exc))
    return problems
