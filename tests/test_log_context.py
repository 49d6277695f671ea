"""Request context bound for a block is in every log line inside it and gone after it."""

from __future__ import annotations

import asyncio

import pytest
import structlog

from bot.daemon.logs import bound


def _context() -> dict[str, object]:
    return dict(structlog.contextvars.get_contextvars())


async def test_nested_blocks_bind_and_give_back_what_was_there() -> None:
    structlog.contextvars.clear_contextvars()
    with bound(platform="matrix", event_id="$1"):
        with bound(user="scott", event_id="$2"):
            assert _context() == {"platform": "matrix", "event_id": "$2", "user": "scott"}
        assert _context() == {"platform": "matrix", "event_id": "$1"}
    assert _context() == {}


async def test_an_error_inside_still_unbinds() -> None:
    structlog.contextvars.clear_contextvars()
    with pytest.raises(RuntimeError), bound(user="scott"):
        raise RuntimeError("boom")
    assert _context() == {}


async def test_concurrent_turns_keep_their_own_context() -> None:
    structlog.contextvars.clear_contextvars()
    seen: dict[str, object] = {}

    async def turn(user: str) -> None:
        with bound(user=user):
            await asyncio.sleep(0.01)
            seen[user] = _context()["user"]

    await asyncio.gather(turn("scott"), turn("holly"))
    assert seen == {"scott": "scott", "holly": "holly"}
