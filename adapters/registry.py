"""Platform adapters by name: validate their config sections and create them."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, cast

from pydantic import ValidationError

from adapters.base import Adapter, AdapterContext, AdapterSettings
from bot.daemon.errors import ConfigError
from bot.setup.config_loader import validation_lines

__all__ = ["EXTRAS", "KNOWN", "create", "credential_problems", "load", "settings_for"]

KNOWN = ("console", "matrix", "telegram", "discord", "nctalk")
#: the optional dependency group each platform needs
EXTRAS = {"matrix": "matrix", "telegram": "telegram", "discord": "discord", "nctalk": "nctalk"}


def load(name: str) -> ModuleType:
    if name not in KNOWN:
        raise ConfigError(f"adapters.{name}: unknown platform (known: {', '.join(KNOWN)})")
    try:
        return importlib.import_module(f"adapters.{name}.adapter")
    except ImportError as exc:
        extra = EXTRAS.get(name, name)
        raise ConfigError(
            f"adapters.{name}: a library it needs is missing ({exc.name});"
            f" install it with: pip install 'personad[{extra}]'"
        ) from exc


def settings_for(name: str, raw: dict[str, Any]) -> AdapterSettings:
    module = load(name)
    try:
        return cast(AdapterSettings, module.Settings.model_validate(raw))
    except ValidationError as exc:
        fields = module.Settings.model_fields
        lines = validation_lines(exc, f"adapters.{name}", fields, module.Settings)
        raise ConfigError("; ".join(lines)) from exc


def create(name: str, settings: AdapterSettings, context: AdapterContext) -> Adapter:
    module = load(name)
    return cast(Adapter, module.create(settings, context))


def _matrix_credentials(settings: Any) -> None:
    settings.secret("password")
    settings.secret("access_token")


def _telegram_credentials(settings: Any) -> None:
    settings.resolve_token()
    if settings.mode == "webhook":
        settings.resolve_secret()


def _nctalk_credentials(settings: Any) -> None:
    if not settings.backend_url:
        raise ConfigError("adapters.nctalk.backend_url: required (the Nextcloud base URL)")
    settings.secret_value()


#: how each platform reads its secrets at start: the same calls, so a check finds what start
#: would stop on
_CREDENTIALS: dict[str, Any] = {
    "matrix": _matrix_credentials,
    "telegram": _telegram_credentials,
    "discord": lambda settings: settings.token_value(),
    "nctalk": _nctalk_credentials,
}


def credential_problems(name: str, settings: AdapterSettings) -> list[str]:
    """What stops adapter ``name`` from reading its token, password or secret, one line each."""
    reader = _CREDENTIALS.get(name)
    if reader is None:
        return []
    try:
        reader(settings)
    except ConfigError as exc:
        return [str(exc)]
    return []
