"""The model's turns: a question asked while a bulk embedding runs waits for one batch, not all."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from bot.memory.embedding.model_turns import ModelTurns
from bot.memory.embedding.models import MiniLMEmbedder, load_minilm
from tests.test_memory_embeddings import needs_minilm

__all__: list[str] = []


def _until(condition: object, what: str) -> None:
    """Wait (up to ten seconds) for ``condition()``; the test fails if it never holds."""
    deadline = time.monotonic() + 10
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.001)


def test_a_short_call_waiting_goes_before_a_bulk_batch() -> None:
    turns = ModelTurns()
    ran: list[str] = []

    def take(name: str, *, short: bool) -> None:
        with turns.turn(short=short):
            ran.append(name)

    bulk = threading.Thread(target=take, args=("bulk",), kwargs={"short": False})
    short = threading.Thread(target=take, args=("question",), kwargs={"short": True})
    with turns.turn(short=False):
        bulk.start()
        _until(lambda: turns._changed._waiters, "the bulk call waits")  # type: ignore[attr-defined]
        short.start()
        _until(lambda: turns._short_waiting == 1, "the question waits")
        ran.append("running")
    bulk.join(10)
    short.join(10)
    assert ran == ["running", "question", "bulk"]


def test_a_bulk_call_alone_takes_every_turn_and_two_never_overlap() -> None:
    turns = ModelTurns()
    inside = 0
    most = 0
    guard = threading.Lock()

    def batches(short: bool) -> None:
        nonlocal inside, most
        for _ in range(200):
            with turns.turn(short=short):
                with guard:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.0001)  # the pass: another thread let in now would be counted
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=batches, args=(n % 2 == 0,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most == 1 and not any(thread.is_alive() for thread in threads)


@needs_minilm
async def test_a_question_is_answered_while_a_long_fill_still_runs() -> None:
    embedder = load_minilm()
    assert isinstance(embedder, MiniLMEmbedder)
    texts = [
        f"message {n} about the garden, the weather and the long drive home" for n in range(400)
    ]
    bulk = asyncio.ensure_future(asyncio.to_thread(embedder.embed_sync, texts))
    await asyncio.to_thread(_until, lambda: embedder._turns._busy, "the fill runs")
    question = await embedder.embed_query("where does my sister live")
    assert question.shape == (1, embedder.dim)
    assert not bulk.done(), "the question waited for the whole fill"
    vectors = await bulk
    assert vectors.shape == (400, embedder.dim)


@pytest.mark.parametrize("count", [1, 8, 9, 33])
@needs_minilm
def test_vectors_do_not_depend_on_the_batch_a_text_is_in(count: int) -> None:
    embedder = load_minilm()
    assert isinstance(embedder, MiniLMEmbedder)
    texts = [f"{'a much longer message ' * (n % 5)}number {n}" for n in range(count)]
    together = embedder.embed_sync(texts)
    alone = [embedder.embed_sync([text])[0] for text in texts]
    for row, single in zip(together, alone, strict=True):
        assert float(row @ single) > 0.9999
