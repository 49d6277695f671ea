"""Request context bound for a block is in every log line inside it and gone after it."""

from __future__ import annotations

import asyncio
import io
import logging

import pytest
import structlog

from bot.daemon.logs import bound, configure_logging


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


def test_nio_chatter_stays_out_of_the_log_at_info_but_its_errors_do_not() -> None:
    out = io.StringIO()
    configure_logging(fmt="json", level="info", stream=out)
    nio = logging.getLogger("nio.client.async_client")
    nio.warning("Timed out, sleeping for %ds", 0)
    nio.error("the sync response could not be parsed")
    logging.getLogger("somewhere.else").warning("a library's own warning")
    text = out.getvalue()
    assert "Timed out" not in text
    assert "could not be parsed" in text and "a library's own warning" in text
    out = io.StringIO()
    configure_logging(fmt="json", level="debug", stream=out)
    nio.warning("Timed out, sleeping for %ds", 0)
    assert "Timed out" in out.getvalue()  # when asked for everything, it is there
