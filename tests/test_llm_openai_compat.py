"""The OpenAI-compatible backend over aiohttp, against the loopback chat completions server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import openai
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall

from bot.daemon.errors import ContextOverflow, LLMError, LLMTransientError
from bot.llm.base import Message, SystemPrompt, ToolCall, ToolResult, ToolSpec
from bot.llm.openai_compat import OpenAICompatBackend
from bot.llm.openai_compat_answers import parse_arguments
from tests.fakes.openai_api import Drop, Error, FakeOpenAI, Hang, Reply, Text, ToolUse

SYSTEM = SystemPrompt(stable="You are Inara.", dynamic="--- System ---\nIt is Tuesday.")
HELLO = [Message(role="user", text="hello")]
SCRATCH = ToolSpec(
    name="scratch_write",
    description="Write the scratch pad.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI() as server:
        yield server


@pytest.fixture
async def backend(fake: FakeOpenAI) -> AsyncIterator[OpenAICompatBackend]:
    llm = OpenAICompatBackend(model="llama3.1", base_url=fake.base_url + "/v1")
    yield llm
    await llm.close()


class Collect:
    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, text: str) -> None:
        self.pieces.append(text)


async def test_plain_text_and_system_message(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    fake.script(Text("Hello, Scott."))
    completion = await backend.complete(system=SYSTEM, messages=HELLO)
    assert completion.text == "Hello, Scott."
    assert completion.stop_reason == "end_turn"
    assert completion.usage.input_tokens > 0 and completion.usage.output_tokens > 0
    body = fake.requests[-1].body
    assert body["model"] == "llama3.1"
    assert body["stream"] is False
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM.joined()},
        {"role": "user", "content": "hello"},
    ]
    assert "Authorization" not in fake.requests[-1].headers


async def test_streamed_deltas_arrive_in_order(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    fake.script(Text("one two three four"))
    sink = Collect()
    completion = await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert sink.pieces == ["one ", "two ", "three ", "four"]
    assert completion.text == "one two three four"
    assert completion.usage.output_tokens > 0
    assert fake.requests[-1].body["stream"] is True


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_call_round_trip(
    fake: FakeOpenAI, backend: OpenAICompatBackend, stream: bool
) -> None:
    fake.script(
        Reply(
            text="Noting.",
            tool_uses=[
                ToolUse("scratch_write", {"text": "buy milk, eggs and bread"}),
                ToolUse("scratch_read", {}),
            ],
        ),
        Text("Done."),
    )
    sink = Collect() if stream else None
    first = await backend.complete(system=SYSTEM, messages=HELLO, tools=[SCRATCH], on_text=sink)
    assert first.stop_reason == "tool_use"
    assert [call.name for call in first.tool_calls] == ["scratch_write", "scratch_read"]
    assert first.tool_calls[0].arguments == {"text": "buy milk, eggs and bread"}
    assert first.tool_calls[1].arguments == {}
    assert fake.requests[-1].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "scratch_write",
                "description": "Write the scratch pad.",
                "parameters": SCRATCH.input_schema,
            },
        }
    ]
    write, read = first.tool_calls
    history = [
        *HELLO,
        Message(role="assistant", text=first.text, tool_calls=(write, read)),
        Message(
            role="user",
            tool_results=(ToolResult(write.id, "saved"), ToolResult(read.id, "gone", True)),
        ),
    ]
    second = await backend.complete(system=SYSTEM, messages=history, on_text=sink)
    assert second.text == "Done."
    sent = fake.requests[-1].body["messages"]
    assert sent[2]["role"] == "assistant"
    assert sent[2]["content"] == "Noting."
    assert [c["id"] for c in sent[2]["tool_calls"]] == [write.id, read.id]
    assert sent[2]["tool_calls"][0]["function"] == {
        "name": "scratch_write",
        "arguments": '{"text": "buy milk, eggs and bread"}',
    }
    assert sent[3:] == [
        {"role": "tool", "tool_call_id": write.id, "content": "saved"},
        {"role": "tool", "tool_call_id": read.id, "content": "ERROR: gone"},
    ]


@pytest.mark.parametrize("stream", [False, True])
async def test_malformed_tool_arguments_do_not_crash(
    fake: FakeOpenAI, backend: OpenAICompatBackend, stream: bool
) -> None:
    fake.script(ToolUse("scratch_write", raw='{"text": "unfinished'))
    completion = await backend.complete(
        system=SYSTEM, messages=HELLO, on_text=Collect() if stream else None
    )
    [call] = completion.tool_calls
    assert call.arguments == {"_raw_arguments": '{"text": "unfinished'}


def test_parse_arguments_shapes() -> None:
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments({"a": 1}) == {"a": 1}  # Ollama sometimes sends an object
    assert parse_arguments("") == {}
    assert parse_arguments(None) == {}
    assert parse_arguments("[1, 2]") == {"value": [1, 2]}
    assert parse_arguments("nope") == {"_raw_arguments": "nope"}


async def test_bearer_key_is_sent() -> None:
    async with FakeOpenAI(api_key="local-secret") as fake:
        llm = OpenAICompatBackend(model="m", base_url=fake.base_url + "/v1", api_key="local-secret")
        assert (await llm.complete(system=SYSTEM, messages=HELLO)).text == "echo: hello"
        await llm.close()
        wrong = OpenAICompatBackend(model="m", base_url=fake.base_url + "/v1", api_key="nope")
        with pytest.raises(LLMError) as caught:
            await wrong.complete(system=SYSTEM, messages=HELLO)
        assert caught.value.user_message == "My language model server refused my API key."
        assert not isinstance(caught.value, LLMTransientError)
        await wrong.close()


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (Error(429, "rate_limit_exceeded", "slow down", retry_after=3), "rate-limited"),
        (Error(503, "server_error", "Loading model"), "overloaded"),
        (Error(500, "server_error", "boom"), "server error"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_transient_statuses(
    fake: FakeOpenAI, backend: OpenAICompatBackend, error: Error, reason: str, stream: bool
) -> None:
    fake.script(error)
    with pytest.raises(LLMTransientError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=Collect() if stream else None)
    assert reason in caught.value.user_message
    assert caught.value.retry_after == error.retry_after


async def test_timeout_is_transient(fake: FakeOpenAI) -> None:
    llm = OpenAICompatBackend(model="m", base_url=fake.base_url + "/v1", timeout=0.3)
    fake.script(Hang())
    with pytest.raises(LLMTransientError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert "timed out" in caught.value.user_message
    await llm.close()


async def test_connection_refused_is_transient(fake: FakeOpenAI) -> None:
    url = fake.base_url + "/v1"
    await fake.stop()
    llm = OpenAICompatBackend(model="m", base_url=url)
    with pytest.raises(LLMTransientError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert "connection failed" in caught.value.user_message
    await llm.close()


async def test_connection_dropped_mid_stream(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    fake.script(Drop("half an answer"))
    sink = Collect()
    with pytest.raises(LLMTransientError):
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert "".join(sink.pieces) == "half an answer"


async def test_error_chunk_mid_stream(fake: FakeOpenAI, backend: OpenAICompatBackend) -> None:
    fake.script(Drop("half", error=Error(500, "server_error", "CUDA out of memory")))
    with pytest.raises(LLMTransientError):
        await backend.complete(system=SYSTEM, messages=HELLO, on_text=Collect())


async def test_context_length_is_context_overflow() -> None:
    async with FakeOpenAI(context_limit=10) as fake:
        llm = OpenAICompatBackend(model="m", base_url=fake.base_url + "/v1")
        with pytest.raises(ContextOverflow):
            await llm.complete(system=SYSTEM, messages=HELLO)
        await llm.close()


async def test_llama_cpp_context_error_is_context_overflow(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    fake.script(
        Error(400, "exceed_context_size_error", "the request exceeds the available context size")
    )
    with pytest.raises(ContextOverflow):
        await backend.complete(system=SYSTEM, messages=HELLO)


async def test_missing_model_names_it(fake: FakeOpenAI, backend: OpenAICompatBackend) -> None:
    fake.script(Error(404, "not_found", 'model "llama3.1" not found, try pulling it first'))
    with pytest.raises(LLMError) as caught:
        await backend.complete(system=SYSTEM, messages=HELLO)
    assert (
        caught.value.user_message == "My language model 'llama3.1' is not available on its server."
    )


async def test_assistant_tool_call_without_text_sends_null_content(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    call = ToolCall(id="c1", name="scratch_read", arguments={})
    history = [*HELLO, Message(role="assistant", tool_calls=(call,))]
    history.append(Message(role="user", tool_results=(ToolResult("c1", "empty"),)))
    await backend.complete(system=SystemPrompt(stable=""), messages=history)
    sent = fake.requests[-1].body["messages"]
    assert sent[0] == {"role": "user", "content": "hello"}
    assert sent[1]["content"] is None


async def test_the_fake_speaks_what_the_official_client_expects(fake: FakeOpenAI) -> None:
    client = openai.AsyncOpenAI(base_url=fake.base_url + "/v1", api_key="x", max_retries=0)
    fake.script(Reply(text="a b", tool_uses=[ToolUse("scratch_write", {"text": "x"})]))
    plain = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}]
    )
    assert plain.choices[0].message.tool_calls is not None
    call = plain.choices[0].message.tool_calls[0]
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.function.arguments == '{"text": "x"}'
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    pieces = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices]
    assert "".join(p for p in pieces if p) == "echo: hi"
    await client.close()


async def test_a_huge_stream_line_is_read_whole(
    fake: FakeOpenAI, backend: OpenAICompatBackend
) -> None:
    word = "x" * 300_000  # one delta, one SSE line far above aiohttp's line limit
    fake.script(Text(word))
    sink = Collect()
    completion = await backend.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert sink.pieces == [word]
    assert completion.text == word
