"""Backends built from configuration: keys, base URLs, only what a role uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.daemon.errors import ConfigError
from bot.llm.anthropic import AnthropicBackend
from bot.llm.base import Message, SystemPrompt
from bot.llm.deferred import DeferredBackend
from bot.llm.factory import build_backend, build_backends, used_backends
from bot.llm.openai_compat import OpenAICompatBackend
from bot.llm.retry import RetryingBackend
from bot.setup.config_llm import BackendConfig, LLMConfig, RoleConfig
from tests.fakes.anthropic_api import Error, FakeAnthropic, Text
from tests.fakes.openai_api import FakeOpenAI

REPO = Path(__file__).resolve().parent.parent

SYSTEM = SystemPrompt(stable="You are Inara.")
HELLO = [Message(role="user", text="hello")]
MISSING_KEY = (
    "ANTHROPIC_API_KEY is not set: export your Anthropic API key, or set "
    "llm.roles.chat.backend to a local OpenAI-compatible server "
    "(see config/personad.example.toml)."
)


def test_missing_anthropic_key_is_one_clear_sentence() -> None:
    with pytest.raises(ConfigError) as caught:
        build_backends(LLMConfig(), env={})
    assert str(caught.value) == MISSING_KEY
    assert caught.value.user_message == MISSING_KEY


def test_blank_key_counts_as_missing() -> None:
    with pytest.raises(ConfigError):
        build_backends(LLMConfig(), env={"ANTHROPIC_API_KEY": "  "})


def test_an_unused_anthropic_backend_needs_no_key() -> None:
    config = LLMConfig(roles={"chat": RoleConfig(backend="local")})
    backends = build_backends(config, env={})
    assert list(backends) == ["local"]
    assert isinstance(backends["local"], RetryingBackend)
    assert isinstance(backends["local"].inner, OpenAICompatBackend)


def test_only_used_backends_in_role_order() -> None:
    config = LLMConfig(
        roles={
            "chat": RoleConfig(backend="anthropic"),
            "distill_mid": RoleConfig(backend="local"),
            "distill_long": RoleConfig(),
        }
    )
    assert used_backends(config) == ["anthropic", "local"]
    backends = build_backends(config, env={"ANTHROPIC_API_KEY": "sk-x"})
    assert set(backends) == {"anthropic", "local"}


async def test_max_retries_become_attempts() -> None:
    spec = BackendConfig(kind="anthropic", model="claude-x", max_retries=2)
    backend = build_backend("anthropic", spec, {"ANTHROPIC_API_KEY": "sk-x"})
    assert isinstance(backend, RetryingBackend)
    assert backend.attempts == 3
    assert backend.name == "anthropic" and backend.model == "claude-x"
    assert isinstance(backend.inner, DeferredBackend)
    assert isinstance(await backend.inner.backend(), AnthropicBackend)
    await backend.close()


def test_custom_key_variable_is_named_when_missing() -> None:
    spec = BackendConfig(kind="anthropic", model="claude-x", api_key_env="WORK_CLAUDE_KEY")
    with pytest.raises(ConfigError) as caught:
        build_backend("work", spec, {"ANTHROPIC_API_KEY": "sk-not-this-one"})
    assert str(caught.value).startswith("WORK_CLAUDE_KEY is not set: ")


def test_openai_compat_key_variable_must_be_set_when_named() -> None:
    spec = BackendConfig(
        kind="openai_compat", model="m", base_url="http://127.0.0.1:1/v1", api_key_env="VLLM_KEY"
    )
    with pytest.raises(ConfigError) as caught:
        build_backend("vllm", spec, {})
    assert "VLLM_KEY is not set" in str(caught.value)
    assert "llm.backends.vllm.api_key_env" in str(caught.value)


def test_openai_compat_needs_a_base_url() -> None:
    with pytest.raises(ConfigError) as caught:
        build_backend("local", BackendConfig(kind="openai_compat", model="m"), {})
    assert "llm.backends.local.base_url" in str(caught.value)


async def test_anthropic_base_url_and_key_from_the_environment() -> None:
    async with FakeAnthropic(api_key="sk-env") as fake:
        spec = BackendConfig(kind="anthropic", model="claude-x", max_retries=1)
        env = {"ANTHROPIC_API_KEY": "sk-env", "ANTHROPIC_BASE_URL": fake.base_url}
        backend = build_backend("anthropic", spec, env)
        assert isinstance(backend, RetryingBackend)
        fake.script(Error(529, "overloaded_error", "Overloaded"), Text("hello from the fake"))
        # one retry allowed: the overload is absorbed; the real default wait is cut short
        backend.base_delay = 0.01
        completion = await backend.complete(system=SYSTEM, messages=HELLO)
        assert completion.text == "hello from the fake"
        assert len(fake.requests) == 2
        assert fake.requests[-1].headers.get("Authorization") == "Bearer sk-env"
        await backend.close()


async def test_config_base_url_wins_over_the_environment() -> None:
    async with FakeAnthropic() as fake:
        spec = BackendConfig(kind="anthropic", model="claude-x", base_url=fake.base_url)
        env = {"ANTHROPIC_API_KEY": "sk-x", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/nowhere"}
        backend = build_backend("anthropic", spec, env)
        assert (await backend.complete(system=SYSTEM, messages=HELLO)).text == "echo: hello"
        await backend.close()


async def test_openai_compat_built_from_config_talks_to_the_server() -> None:
    async with FakeOpenAI(api_key="local-key") as fake:
        spec = BackendConfig(
            kind="openai_compat",
            model="qwen2.5",
            base_url=fake.base_url + "/v1",
            api_key_env="LOCAL_KEY",
            temperature=0.3,
            max_tokens=77,
        )
        backend = build_backend("local", spec, {"LOCAL_KEY": "local-key"})
        assert (await backend.complete(system=SYSTEM, messages=HELLO)).text == "echo: hello"
        body = fake.requests[-1].body
        assert (body["model"], body["temperature"], body["max_tokens"]) == ("qwen2.5", 0.3, 77)
        await backend.close()


def test_start_up_imports_only_what_the_configuration_uses(tmp_path: Path) -> None:
    """Building the backends and the daemon's modules loads neither the anthropic library
    (it is imported in a thread once the daemon serves, and never for a local backend) nor
    a platform library that is not enabled."""
    code = (
        "import sys\n"
        "from bot.daemon.cli import main\n"
        "import bot.daemon.daemon\n"
        "from bot.setup.config_llm import BackendConfig\n"
        "from bot.llm.factory import build_backend\n"
        "spec = BackendConfig(kind='anthropic', model='m')\n"
        "build_backend('a', spec, {'ANTHROPIC_API_KEY': 'k'})\n"
        "heavy = ('anthropic', 'telegram', 'discord', 'nio', 'honcho', 'onnxruntime', 'openai')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
