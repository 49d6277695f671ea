"""Retries with backoff, through a real backend talking to the loopback servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest
import structlog

from bot.daemon.errors import LLMError, LLMTransientError
from bot.llm.anthropic import AnthropicBackend
from bot.llm.base import Completion, LLMBackend, Message, SystemPrompt, TextSink, ToolSpec
from bot.llm.openai_compat import OpenAICompatBackend
from bot.llm.retry import CUT_OFF, RetryingBackend, unreachable
from tests.fakes.anthropic_api import Drop, Error, FakeAnthropic, Hang, Text
from tests.fakes.openai_api import FakeOpenAI

SYSTEM = SystemPrompt(stable="You are Inara.")
HELLO = [Message(role="user", text="hello")]
SECRET = "sk-ant-secret-123"


class Sleeps:
    """Records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic() as server:
        yield server


@pytest.fixture
async def inner(fake: FakeAnthropic) -> AsyncIterator[AnthropicBackend]:
    llm = AnthropicBackend(model="m", api_key=SECRET, base_url=fake.base_url, timeout=0.5)
    yield llm
    await llm.close()


@pytest.mark.parametrize(
    "error",
    [
        Error(429, "rate_limit_error", "slow down"),
        Error(529, "overloaded_error", "Overloaded"),
        Error(500, "api_error", "Internal server error"),
    ],
)
async def test_retries_then_succeeds(
    fake: FakeAnthropic, inner: AnthropicBackend, error: Error
) -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(inner, attempts=4, base_delay=0.01, sleep=sleeps)
    fake.script(error, error, Text("made it"))
    completion = await llm.complete(system=SYSTEM, messages=HELLO)
    assert completion.text == "made it"
    assert len(fake.requests) == 3
    assert len(sleeps.waits) == 2


async def test_gives_up_after_n_attempts_with_a_clear_sentence(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(inner, attempts=3, base_delay=0.01, sleep=sleeps)
    fake.script(*[Error(529, "overloaded_error", "Overloaded")] * 5)
    with pytest.raises(LLMError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert not isinstance(caught.value, LLMTransientError)
    assert caught.value.user_message == (
        "I can't reach my language model right now (it is overloaded). "
        "Please try again in a minute."
    )
    assert len(fake.requests) == 3
    assert fake.pending == 2


async def test_timeouts_are_retried(fake: FakeAnthropic, inner: AnthropicBackend) -> None:
    llm = RetryingBackend(inner, attempts=2, base_delay=0.01, sleep=Sleeps())
    fake.script(Hang(), Text("second time lucky"))
    assert (await llm.complete(system=SYSTEM, messages=HELLO)).text == "second time lucky"


async def test_no_retry_after_text_was_streamed(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(inner, attempts=5, base_delay=0.01, sleep=sleeps)
    fake.script(Drop("Once upon a"), Text("a second answer nobody may see"))
    seen: list[str] = []

    async def sink(text: str) -> None:
        seen.append(text)

    with pytest.raises(LLMError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert caught.value.user_message == CUT_OFF
    assert not isinstance(caught.value, LLMTransientError)
    assert "".join(seen) == "Once upon a"
    assert len(fake.requests) == 1
    assert sleeps.waits == []


async def test_streaming_retries_when_nothing_was_shown(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    llm = RetryingBackend(inner, attempts=3, base_delay=0.01, sleep=Sleeps())
    fake.script(Error(529, "overloaded_error", "Overloaded"), Text("streamed fine"))
    seen: list[str] = []

    async def sink(text: str) -> None:
        seen.append(text)

    completion = await llm.complete(system=SYSTEM, messages=HELLO, on_text=sink)
    assert "".join(seen) == "streamed fine" == completion.text


async def test_retry_after_is_honoured(fake: FakeAnthropic, inner: AnthropicBackend) -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(inner, attempts=2, base_delay=0.01, max_delay=30, sleep=sleeps)
    fake.script(Error(429, "rate_limit_error", "slow down", retry_after=7), Text("ok"))
    await llm.complete(system=SYSTEM, messages=HELLO)
    assert sleeps.waits == [7.0]


async def test_a_retry_after_longer_than_max_delay_gives_up_now(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(inner, attempts=5, max_delay=10, sleep=sleeps)
    fake.script(Error(429, "rate_limit_error", "slow down", retry_after=120), Text("late"))
    with pytest.raises(LLMError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert "rate-limited" in caught.value.user_message
    assert sleeps.waits == []


async def test_permanent_errors_are_not_retried(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    llm = RetryingBackend(inner, attempts=5, sleep=Sleeps())
    fake.script(Error(400, "invalid_request_error", "messages: bad"), Text("never"))
    with pytest.raises(LLMError):
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert len(fake.requests) == 1


async def test_openai_compat_is_retried_too() -> None:
    async with FakeOpenAI() as fake:
        inner = OpenAICompatBackend(model="m", base_url=fake.base_url + "/v1")
        llm = RetryingBackend(inner, attempts=3, sleep=Sleeps())
        fake.script(Error(503, "server_error", "Loading model"), Text("loaded"))
        assert (await llm.complete(system=SYSTEM, messages=HELLO)).text == "loaded"
        await llm.close()


class AlwaysDown(LLMBackend):
    """A backend whose every call fails with a bare transient error."""

    name = "flaky"

    async def complete(
        self,
        *,
        system: SystemPrompt,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        max_tokens: int | None = None,
        on_text: TextSink | None = None,
    ) -> Completion:
        raise LLMTransientError("flaky: socket reset by peer 10.0.0.1")


def test_backoff_is_full_jitter_exponential_and_capped() -> None:
    top = RetryingBackend(AlwaysDown(), attempts=9, base_delay=1, max_delay=30, jitter=lambda: 1.0)
    assert [top.delay(n, None) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    bottom = RetryingBackend(AlwaysDown(), attempts=9, jitter=lambda: 0.0)
    assert bottom.delay(3, None) == 0.0
    assert bottom.delay(3, 2.5) == 2.5


async def test_a_backend_without_a_sentence_still_gets_one() -> None:
    sleeps = Sleeps()
    llm = RetryingBackend(AlwaysDown(), attempts=2, sleep=sleeps)
    with pytest.raises(LLMError) as caught:
        await llm.complete(system=SYSTEM, messages=HELLO)
    assert caught.value.user_message == unreachable("it keeps failing")
    assert "10.0.0.1" not in caught.value.user_message
    assert len(sleeps.waits) == 1


async def test_each_retry_is_logged_without_the_key(
    fake: FakeAnthropic, inner: AnthropicBackend
) -> None:
    llm = RetryingBackend(inner, attempts=2, base_delay=0.01, sleep=Sleeps())
    fake.script(Error(529, "overloaded_error", "Overloaded"), Text("ok"))
    with structlog.testing.capture_logs() as logs:
        await llm.complete(system=SYSTEM, messages=HELLO)
    [retry] = [entry for entry in logs if entry["event"] == "llm.retry"]
    assert retry["attempt"] == 1
    assert retry["delay"] >= 0
    assert "529" in retry["reason"]
    assert SECRET not in str(logs)


async def test_an_unreachable_model_is_given_up_within_the_configured_timeout() -> None:
    """A server that refuses every connection: the answer comes once another try would end
    past the backend's timeout, and the log line names the backend and its address."""
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    url = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    inner = OpenAICompatBackend(model="m", base_url=url, timeout=5, name="local")
    llm = RetryingBackend(
        inner, attempts=50, base_delay=1.0, sleep=sleep, jitter=lambda: 1.0,
        deadline=5.0, url=url, clock=lambda: now[0],
    )  # fmt: skip
    try:
        with structlog.testing.capture_logs() as logs:
            with pytest.raises(LLMError) as caught:
                await llm.complete(system=SYSTEM, messages=HELLO)
    finally:
        await llm.close()
    assert now[0] <= 5.0  # the waits between tries stay within the timeout
    assert "can't reach my language model" in caught.value.user_message
    [gave_up] = [e for e in logs if e["event"] == "llm.gave_up"]
    assert gave_up["backend"] == "local" and gave_up["url"] == url
