"""A failed connection is one line in words: the address and the reason, never a repr, with
the other scheme to try when the scheme is the likely mistake."""

from __future__ import annotations

import aiohttp
import pytest
from nio import AsyncClient, AsyncClientConfig

from adapters.matrix.login import Credentials, sign_in
from bot.daemon.connection_reason import connection_reason, where
from bot.daemon.errors import AdapterError
from tests.fakes.lifecycle import quiet_port
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.state import MemoryState


def test_an_address_is_shown_without_its_path_or_credentials() -> None:
    assert where("https://api.telegram.org/bot123:secret/getMe") == "https://api.telegram.org"
    assert where("http://user:pw@127.0.0.1:8008/_matrix") == "http://127.0.0.1:8008"


async def test_a_homeserver_nobody_listens_on_is_named_with_the_reason() -> None:
    url = f"http://127.0.0.1:{quiet_port()}"
    # as the adapter makes it, with nio's own retries few and short (it retries refusals too)
    config = AsyncClientConfig(max_timeouts=1, backoff_factor=0.1, max_timeout_retry_wait_time=0.1)
    client = AsyncClient(url, "@inara:example.org", config=config)
    credentials = Credentials(
        "@inara:example.org", password="pw", access_token=None, device_name="personad"
    )
    try:
        with pytest.raises(AdapterError) as raised:
            await sign_in(client, credentials, MemoryState())
    finally:
        await client.close()
    refused = "connection refused: nothing listens there"
    assert str(raised.value) == f"cannot reach the homeserver {url}: {refused}"


async def test_https_to_a_plain_http_server_asks_whether_it_is_http() -> None:
    async with FakeOpenAI() as plain:
        url = plain.base_url.replace("http://", "https://")
        timeout = aiohttp.ClientTimeout(total=5)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            with pytest.raises((aiohttp.ClientError, TimeoutError)) as raised:
                async with http.get(f"{url}/v1/models"):
                    pass
    reason = connection_reason(raised.value, url)
    assert "is it http://?" in reason and "(" not in reason.split("?")[0]
