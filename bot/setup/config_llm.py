"""The ``[llm]`` section: the model backends, the backend each role uses, the tool-call caps.

``[llm.backends.NAME]`` describes one server (Anthropic, or any OpenAI-compatible one) and
``[llm.roles.ROLE]`` names the backend serving a role: the chat, the distillations, the
transcription and speech servers. A role that names no backend is served by the chat
backend, except mid distillation, which takes the local backend when one is configured, and
the media roles, which are never the chat model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PrivateAttr, field_validator

from bot.setup.config_section import Section

__all__ = [
    "DEFAULT_CONTEXT_WINDOWS",
    "LOCAL_BACKEND",
    "MEDIA_ROLES",
    "MID_ROLE",
    "BackendConfig",
    "LLMConfig",
    "RoleConfig",
    "url_problem",
]

#: context windows in tokens by model name prefix; the longest matching prefix wins
DEFAULT_CONTEXT_WINDOWS: dict[str, int] = {
    "claude": 200_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_000_000,
    "llama3": 8_192,
    "llama3.1": 131_072,
    "qwen2.5": 32_768,
    "mistral": 32_768,
}


def url_problem(value: str) -> str | None:
    """What is wrong with a server's address (with what to write), or None. Without a
    scheme every request fails in a way that reads as a dropped connection."""
    if not value.startswith(("http://", "https://")):
        return f"{value!r} is not a URL; write it with its scheme: 'http://{value}'"
    return None


class BackendConfig(Section):
    kind: Literal["anthropic", "openai_compat"]
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    max_tokens: int = Field(1024, ge=1)
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0, le=20)
    temperature: float | None = Field(None, ge=0, le=2)
    context_window: int | None = Field(None, ge=1024)
    #: whether the model sees pictures (unset: Anthropic does, an OpenAI-compatible server
    #: is assumed not to until this says so)
    vision: bool | None = None

    @field_validator("base_url")
    @classmethod
    def _an_address(cls, value: str | None) -> str | None:
        problem = url_problem(value) if value else None
        if problem:
            raise ValueError(problem)
        return value

    @property
    def sees_images(self) -> bool:
        return self.vision if self.vision is not None else self.kind == "anthropic"


class RoleConfig(Section):
    backend: str = ""
    inject_datetime: bool = True


def _default_backends() -> dict[str, BackendConfig]:
    return {
        "anthropic": BackendConfig(kind="anthropic", model="claude-sonnet-4-5"),
        "local": BackendConfig(
            kind="openai_compat", model="llama3.1", base_url="http://127.0.0.1:11434/v1"
        ),
    }


def _default_roles() -> dict[str, RoleConfig]:
    return {
        "chat": RoleConfig(backend="anthropic"),
        "distill_mid": RoleConfig(),
        "distill_long": RoleConfig(),
    }


#: the backend name the seed's mid distillation defaults to, and that role's name
LOCAL_BACKEND = "local"
MID_ROLE = "distill_mid"
#: the roles of the media servers (OpenAI-compatible ``/v1/audio/...``): never the chat model
MEDIA_ROLES = ("transcribe", "speech")


class LLMConfig(Section):
    backends: dict[str, BackendConfig] = Field(default_factory=_default_backends)
    roles: dict[str, RoleConfig] = Field(default_factory=_default_roles)
    max_tool_steps: int = Field(6, ge=1, le=50)
    # calls past these caps are refused, not run (bot/tools/loop.py)
    max_tool_calls_per_step: int = Field(8, ge=1, le=100)
    max_tool_calls_per_turn: int = Field(32, ge=1, le=500)
    context_windows: dict[str, int] = Field(default_factory=dict)
    #: the backends the configuration itself names (its file or environment), not only the
    #: built-in table: the seed's ``DISTILL_BACKEND_MID`` defaults to ``local``, which is
    #: meant only when a local model is really there
    _given: frozenset[str] = PrivateAttr(default_factory=frozenset)

    def mark_given(self, names: set[str]) -> None:
        """Record the backends the configuration names (:meth:`backend_choice` reads it)."""
        self._given = frozenset(names)

    def backend_choice(self, role: str) -> tuple[str, str]:
        """The backend name serving ``role`` and why it was chosen, in words for the log."""
        chosen = self.roles.get(role, RoleConfig()).backend
        if chosen:
            return chosen, f"llm.roles.{role}.backend"
        if role in MEDIA_ROLES:
            return "", f"llm.roles.{role}.backend is not set"
        chat = self.roles["chat"].backend
        if role == MID_ROLE and LOCAL_BACKEND in self._given and LOCAL_BACKEND in self.backends:
            return LOCAL_BACKEND, "the local backend is configured (the seed's default for mid)"
        if role == MID_ROLE:
            return chat, "the chat backend: no local backend is configured"
        return chat, "the chat backend (the role names none)"

    def backend_for(self, role: str) -> tuple[str, BackendConfig]:
        """The backend serving ``role``; an empty role backend means the chat backend, except
        for mid distillation, which takes the local backend when one is configured."""
        name, _why = self.backend_choice(role)
        return name, self.backends[name]

    def media_backend(self, role: str) -> BackendConfig | None:
        """The server of a media role (``transcribe``, ``speech``); None when not configured."""
        name = self.roles.get(role, RoleConfig()).backend
        return self.backends.get(name) if name else None

    def context_window(self, backend: BackendConfig) -> int:
        if backend.context_window:
            return backend.context_window
        table = {**DEFAULT_CONTEXT_WINDOWS, **self.context_windows}
        matches = [prefix for prefix in table if backend.model.startswith(prefix)]
        return table[max(matches, key=len)] if matches else 32_768
