"""The Anthropic backend, through the real SDK, against the loopback Messages API."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.daemon.errors import ContextOverflow, LLMError, LLMTransientError
from bot.llm.anthropic import AnthropicBackend
from bot.llm.base import Message, SystemPrompt, ToolCall, ToolResult, ToolSpec
from tests.fakes.anthropic_api import Drop, Error, FakeAnthropic, Hang, Reply, Text, ToolUse

SYSTEM = SystemPrompt(stable="You are Inara. " * 40, dynamic="--- System ---\nIt is Tuesday.")
HELLO = [Message(role="user", text="hello")]
SCRATCH = ToolSpec(
    name="scratch_write",
    description="Write the scratch pad.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(api_key="sk-test") as server:
        yield server


@pytest.fixture
async def backend(fake: FakeAnthropic) -> AsyncIterator[AnthropicBackend]:
    llm = AnthropicBackend(model="claude-test", api_key="sk-test", base_url=fake.base_url)
    yield llm
    await llm.close()


async def test_plain_text_answer(fake: FakeAnthropic, backend: AnthropicBackend) -> None:
    fake.script(Text("Hello, Scott."))
    completion = await backend.complete(system=SYSTEM, messages=HELLO)
    assert completion.text == "Hello, Scott."
    assert completion.tool_calls == []
    assert completion.stop_reason == "end_turn"
    assert completion.model == "claude-test"
    assert completion.usage.input_tokens > 0 and completion.usage.output_tokens > 0
    body = fake.requests[-1].body
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert "stream" not in body or body["stream"] is False


async def test_echo_default_answers_the_last_user_message(backend: AnthropicBackend) -> None:
    history = [*HELLO, Message(role="assistant", text="hi"), Message(role="user", text="again")]
    completion = await backend.complete(system=SYSTEM, messages=history)
    assert completion.text == "echo: again"


async def test_streamed_deltas_arrive_in_order(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    fake.script(Text("one two three four five"))
    pieces: list[str] = []

    async def sink(text: str) -> None:
        pieces.append(text)

    completion = await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert len(pieces) == 5
    assert "".join(pieces) == "one two three four five" == completion.text
    assert fake.requests[-1].body["stream"] is True


async def test_system_prompt_caches_the_stable_part_only(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    await backend.complete(system=SYSTEM, messages=HELLO)
    stable, dynamic = fake.requests[-1].body["system"]
    assert stable == {"type": "text", "text": SYSTEM.stable, "cache_control": {"type": "ephemeral"}}
    assert dynamic == {"type": "text", "text": SYSTEM.dynamic}
    second = await backend.complete(system=SYSTEM, messages=HELLO)
    assert second.usage.cache_read_tokens > 0
    assert second.usage.cache_write_tokens == 0


async def test_first_request_writes_the_cache(backend: AnthropicBackend) -> None:
    first = await backend.complete(system=SYSTEM, messages=HELLO)
    assert first.usage.cache_write_tokens > 0
    assert first.usage.cache_read_tokens == 0


async def test_empty_system_parts_are_left_out(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    await backend.complete(system=SystemPrompt(stable="", dynamic="only this"), messages=HELLO)
    assert fake.requests[-1].body["system"] == [{"type": "text", "text": "only this"}]
    await backend.complete(system=SystemPrompt(stable=""), messages=HELLO)
    assert "system" not in fake.requests[-1].body


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_use_round_trip(
    fake: FakeAnthropic, backend: AnthropicBackend, stream: bool
) -> None:
    fake.script(
        Reply(
            text="Let me note that.",
            tool_uses=[ToolUse("scratch_write", {"text": "buy milk", "tags": ["a", "b"]})],
        ),
        Text("Noted."),
    )
    pieces: list[str] = []

    async def sink(text: str) -> None:
        pieces.append(text)

    on_text = sink if stream else None
    first = await backend.complete(system=SYSTEM, messages=HELLO, tools=[SCRATCH], on_text=on_text)
    assert first.stop_reason == "tool_use"
    assert first.text == "Let me note that."
    [call] = first.tool_calls
    assert call.name == "scratch_write"
    assert call.arguments == {"text": "buy milk", "tags": ["a", "b"]}
    assert fake.requests[-1].body["tools"] == [
        {
            "name": "scratch_write",
            "description": "Write the scratch pad.",
            "input_schema": SCRATCH.input_schema,
        }
    ]
    history = [
        *HELLO,
        Message(role="assistant", text=first.text, tool_calls=(call,)),
        Message(role="user", tool_results=(ToolResult(call_id=call.id, content="saved"),)),
    ]
    second = await backend.complete(
        system=SYSTEM, messages=history, tools=[SCRATCH], on_text=on_text
    )
    assert second.text == "Noted."
    sent = fake.requests[-1].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me note that."},
            {"type": "tool_use", "id": call.id, "name": "scratch_write", "input": call.arguments},
        ],
    }
    assert sent[2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "saved"}],
    }


async def test_failed_tool_result_is_marked(fake: FakeAnthropic, backend: AnthropicBackend) -> None:
    call = ToolCall(id="toolu_1", name="scratch_write", arguments={})
    history = [
        *HELLO,
        Message(role="assistant", tool_calls=(call,)),
        Message(role="user", text="and?", tool_results=(ToolResult("toolu_1", "no", True),)),
    ]
    await backend.complete(system=SYSTEM, messages=history)
    assert fake.requests[-1].body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "no", "is_error": True},
        {"type": "text", "text": "and?"},
    ]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (Error(429, "rate_limit_error", "slow down", retry_after=7), "rate-limited"),
        (Error(529, "overloaded_error", "Overloaded"), "overloaded"),
        (Error(500, "api_error", "Internal server error"), "server error"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_transient_statuses(
    fake: FakeAnthropic, backend: AnthropicBackend, error: Error, reason: str, stream: bool
) -> None:
    fake.script(error)

    async def sink(text: str) -> None:
        return None

    with pytest.raises(LLMTransientError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink if stream else None)
    assert reason in caught.value.user_message
    assert caught.value.retry_after == error.retry_after


async def test_timeout_is_transient(fake: FakeAnthropic) -> None:
    llm = AnthropicBackend(model="m", api_key="sk-test", base_url=fake.base_url, timeout=0.3)
    fake.script(Hang())
    with pytest.raises(LLMTransientError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert "timed out" in caught.value.user_message
    await llm.close()


async def test_connection_refused_is_transient(fake: FakeAnthropic) -> None:
    url = fake.base_url
    await fake.stop()
    llm = AnthropicBackend(model="m", api_key="sk-test", base_url=url)
    with pytest.raises(LLMTransientError):
        await llm.complete(system=SYSTEM, messages=HELLO)
    await llm.close()


async def test_connection_dropped_mid_stream(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    fake.script(Drop("half an ans"))
    pieces: list[str] = []

    async def sink(text: str) -> None:
        pieces.append(text)

    with pytest.raises(LLMTransientError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert "".join(pieces) == "half an ans"
    assert "dropped" in caught.value.user_message


async def test_error_event_mid_stream(fake: FakeAnthropic, backend: AnthropicBackend) -> None:
    fake.script(Drop("partial", error=Error(529, "overloaded_error", "Overloaded")))

    async def sink(text: str) -> None:
        return None

    with pytest.raises(LLMTransientError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert "overloaded" in caught.value.user_message


async def test_wrong_key_gives_a_clear_sentence(fake: FakeAnthropic) -> None:
    llm = AnthropicBackend(model="m", api_key="sk-wrong", base_url=fake.base_url)
    with pytest.raises(LLMError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert not isinstance(caught.value, LLMTransientError)
    assert caught.value.user_message == (
        "My Anthropic API key was refused; please check ANTHROPIC_API_KEY."
    )
    assert "sk-wrong" not in str(caught.value)
    await llm.close()


async def test_prompt_too_long_is_context_overflow() -> None:
    async with FakeAnthropic(context_limit=200) as fake:
        llm = AnthropicBackend(model="m", api_key="k", base_url=fake.base_url)
        with pytest.raises(ContextOverflow) as caught:
            await llm.complete(system=SYSTEM, messages=HELLO)
        assert caught.value.user_message.endswith(".")
        assert "\n" not in caught.value.user_message
        await llm.close()


async def test_other_client_errors_are_not_transient(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    fake.script(Error(404, "not_found_error", "model: claude-test"))
    with pytest.raises(LLMError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO)
    assert not isinstance(caught.value, LLMTransientError)
    assert caught.value.user_message == "My language model rejected the request (HTTP 404)."


async def test_a_failing_sink_is_not_mistaken_for_the_model(
    fake: FakeAnthropic, backend: AnthropicBackend
) -> None:
    class PlatformDown(Exception):
        pass

    async def sink(text: str) -> None:
        raise PlatformDown("chat platform unreachable")

    with pytest.raises(PlatformDown):
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)


async def test_responder_replaces_the_echo(fake: FakeAnthropic, backend: AnthropicBackend) -> None:
    fake.responder = lambda body: Text(f"{len(body['messages'])} message(s)")
    assert (await backend.complete(system=SYSTEM, messages=HELLO)).text == "1 message(s)"


def test_thread_mode_serves_a_process_built_from_the_environment(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, os
        from bot.setup.config_llm import LLMConfig
        from bot.llm.base import Message, SystemPrompt
        from bot.llm.factory import build_backends

        async def main():
            llm = build_backends(LLMConfig(), os.environ)["anthropic"]
            reply = await llm.complete(
                system=SystemPrompt(stable="You are Inara."),
                messages=[Message(role="user", text="from a process")],
            )
            print(reply.text)
            await llm.close()

        asyncio.run(main())
        """
    )
    with FakeAnthropic.run_in_thread(api_key="sk-proc") as fake:
        fake.script(Error(529, "overloaded_error", "Overloaded"))
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "sk-proc",
            "ANTHROPIC_BASE_URL": fake.base_url,
            "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        }
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "echo: from a process"
        assert len(fake.requests) == 2  # the overload was retried
        assert fake.requests[-1].body["messages"][-1]["content"] == "from a process"


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"x-api-key": "sk-test"}, 200),
        ({"Authorization": "Bearer sk-test"}, 200),
        ({}, 401),
        ({"x-api-key": "sk-other"}, 401),
    ],
)
async def test_the_fake_accepts_either_key_header(
    fake: FakeAnthropic, headers: dict[str, str], status: int
) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    async with (
        aiohttp.ClientSession() as session,
        session.post(fake.base_url + "/v1/messages", json=body, headers=headers) as response,
    ):
        assert response.status == status
        answer = await response.json()
    if status == 401:
        assert answer["type"] == "error"
        assert answer["error"]["type"] == "authentication_error"
    else:
        assert answer["content"] == [{"type": "text", "text": "echo: hi"}]
