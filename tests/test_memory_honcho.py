"""The honcho backend, driving the real ``honcho-ai`` SDK against a loopback Honcho server."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.honcho.backend import HonchoMemory
from bot.setup.config import HonchoConfig
from bot.tools.registry import ToolFailed
from bot.turn.audience import Audience
from tests.fakes.honcho_api import FakeHoncho, Workspace

KEY = "test-key-123"
AT = datetime(2026, 11, 29, 18, 30, tzinfo=UTC)

Opener = Callable[..., Awaitable[HonchoMemory]]


@pytest.fixture
async def fake() -> AsyncIterator[FakeHoncho]:
    async with FakeHoncho(api_key=KEY) as server:
        yield server


@pytest.fixture
async def opener(tmp_path: Path, fake: FakeHoncho) -> AsyncIterator[Opener]:
    """Opens backends (default: alice's inara, right key, no SDK retries) and closes them all,
    even after a failed assertion."""
    opened: list[HonchoMemory] = []

    async def open_one(
        *,
        persona: str = "inara",
        base_url: str | None = None,
        key: str = KEY,
        retries: int = 0,
        folder: Path | None = None,
    ) -> HonchoMemory:
        config = HonchoConfig(base_url=base_url or fake.base_url, workspace="personad")
        backend = HonchoMemory(
            folder or tmp_path / persona,
            config=config,
            user="alice",
            persona=persona,
            env={"HONCHO_API_KEY": key},
            max_retries=retries,
        )
        await backend.open()
        opened.append(backend)
        return backend

    yield open_one
    for backend in opened:
        await backend.close()


@pytest.fixture
async def memory(opener: Opener) -> HonchoMemory:
    return await opener()


def turn(user_text: str, reply: str = "Noted.", at: datetime = AT) -> TurnRecord:
    return TurnRecord(user_text, reply, "telegram", at, "alice", "inara")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def space(fake: FakeHoncho) -> Workspace:
    return fake.workspace("personad")


async def test_it_is_a_memory_backend_named_honcho(memory: HonchoMemory) -> None:
    assert isinstance(memory, MemoryBackend)
    assert memory.name == "honcho"
    assert (memory.persona_dir / "honcho.db").exists()


async def test_open_does_not_contact_the_server(memory: HonchoMemory, fake: FakeHoncho) -> None:
    assert fake.requests == []


# -- sync -----------------------------------------------------------------------------------


async def test_sync_adds_both_messages_to_the_days_session(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    await memory.sync(turn("I moved to Lisbon last year", reply="How do you like it?"))
    ws = space(fake)
    assert set(ws.peers) == {"alice", "inara__alice"}
    assert set(ws.sessions) == {"inara__alice-2026-11-29"}
    assert ws.session_peers["inara__alice-2026-11-29"] == {
        "alice": {"observe_me": True},
        "inara__alice": {"observe_others": True},
    }
    assert [(m["peer_id"], m["content"]) for m in ws.messages] == [
        ("alice", "I moved to Lisbon last year"),
        ("inara__alice", "How do you like it?"),
    ]
    assert ws.messages[0]["metadata"] == {"platform": "telegram"}
    assert datetime.fromisoformat(ws.messages[0]["created_at"]) == AT
    assert (await memory.stats())["messages_sent"] == 2


async def test_sync_withholds_secrets_everywhere(
    memory: HonchoMemory, fake: FakeHoncho, tmp_path: Path
) -> None:
    await memory.sync(turn("I love Lisbon. My password is hunter2", reply="Got it"))
    assert space(fake).messages[0]["content"] == ("I love Lisbon. [withheld: looked like a secret]")
    await memory.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path


# -- add and the write policy ---------------------------------------------------------------


async def test_add_writes_a_conclusion_of_the_persona_about_the_user(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    result = await memory.add("I prefer green tea in the morning", source="cli")
    assert result.stored and result.category == "preference"
    (conclusion,) = space(fake).conclusions.values()
    assert conclusion["content"] == "I prefer green tea in the morning"
    assert (conclusion["observer_id"], conclusion["observed_id"]) == ("inara__alice", "alice")
    (exported,) = await memory.export()
    assert exported["honcho_id"] == conclusion["id"]
    assert exported["status"] == "active"


async def test_policy_and_secrets(memory: HonchoMemory, fake: FakeHoncho) -> None:
    refused = await memory.add("ok", source="chat")
    assert not refused.stored and refused.reason.startswith("rejected")
    secret = await memory.add(
        "my api key is sk-live-abcdef0123456789abcdef", source="cli", force=True
    )
    assert not secret.stored and "secret" in secret.reason
    forced = await memory.add("Scott likes Holly", source="cli", force=True)
    assert forced.stored and forced.category == "fact" and forced.reason.startswith("forced")
    assert [c["content"] for c in space(fake).conclusions.values()] == ["Scott likes Holly"]
    again = await memory.add("Scott likes Holly.", source="chat")
    assert again.duplicate_of == forced.item_id
    assert len(space(fake).conclusions) == 1
    (item,) = await memory.list_items()
    assert item.reinforced == 1 and item.confidence == 1.0


async def test_extract_and_mirror(memory: HonchoMemory, fake: FakeHoncho) -> None:
    stored = await memory.extract([turn("I love Lisbon. ok"), turn("eu prefiro chá verde")])
    assert stored == 2
    writes = [path for method, path in fake.requests if path.endswith("/conclusions")]
    assert len(writes) == 1  # one batch for the whole session
    await memory.mirror("MEMORY.md", "# Memory\n- Scott's birthday is March 3\n- I love Lisbon\n")
    sources = {item.text: item.source for item in await memory.list_items()}
    assert sources["Scott's birthday is March 3"] == "file:MEMORY.md"
    assert sources["I love Lisbon."] == "telegram"  # already known: not written twice
    await memory.mirror("MEMORY.md", "# Memory\n- I love Lisbon\n")
    statuses = {i.text: i.status for i in await memory.list_items(include_inactive=True)}
    assert statuses["Scott's birthday is March 3"] == "superseded"
    assert all(
        hit.item.text != "Scott's birthday is March 3" for hit in await memory.search("birthday")
    )
    assert len(space(fake).conclusions) == 3  # superseded, yet nothing deleted on the server


# -- recall ---------------------------------------------------------------------------------


async def test_prefetch_returns_cited_conclusions_then_messages(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    await memory.sync(turn("We talked about green tea and Lisbon"))
    added = await memory.add("I prefer green tea in the morning", source="cli")
    derived = fake.derive("personad", "inara__alice", "alice", "alice drinks green tea daily")
    hits = await memory.prefetch("green tea", limit=5)
    by_id = {hit.item.id: hit for hit in hits}
    assert hits[0].item.id == added.item_id
    assert hits[0].citation == "[preference · cli · 0.75]"
    assert by_id[f"honcho:{derived}"].citation == "[fact · honcho deductive · 0.60]"
    message = next(hit for hit in hits if hit.item.id.startswith("message:"))
    assert message.item.text == "We talked about green tea and Lisbon"
    assert message.score < hits[0].score
    assert "message_rank" in message.parts and "conclusion_rank" in hits[0].parts


async def test_messages_come_back_as_episodes_with_their_date_both_sides(
    memory: HonchoMemory,
) -> None:
    told = "We went to Porto last week and walked along the river"
    await memory.sync(turn(told, "The riverside in Porto is lovely in spring."))
    pub = Audience("telegram:-100pub")
    shared = TurnRecord(
        "We watched the match at the pub",
        "Noted.",
        "telegram",
        AT,
        "alice",
        "inara",
        audience=pub.label,
    )
    await memory.sync(shared)
    hits = await memory.prefetch("when did I go to Porto?", limit=5)
    assert hits[0].item.text == told
    assert hits[0].item.kind == "episode" and hits[0].item.source == "user telegram"
    assert hits[0].citation == "[episode · 2026-11-29 · dm]"
    reply = (await memory.prefetch("riverside spring", limit=5))[0]
    assert reply.item.text == "The riverside in Porto is lovely in spring."
    assert reply.item.source == "persona telegram"
    group = await memory.prefetch("match pub", limit=5, audience=pub)
    assert [hit.citation for hit in group] == ["[episode · 2026-11-29 · group]"]
    assert await memory.prefetch("Porto river", limit=5, audience=pub) == []
    assert await memory.prefetch("match pub", limit=5, audience=Audience("matrix:!b")) == []


async def test_asked_when_the_dated_message_ranks_above_the_conclusion(
    memory: HonchoMemory,
) -> None:
    await memory.sync(turn("I prefer green tea in the morning"))
    added = await memory.add("I prefer green tea in the morning", source="cli")
    what = await memory.prefetch("green tea morning", limit=2)
    assert what[0].item.id == added.item_id
    when = await memory.prefetch("when did I say I prefer green tea?", limit=2)
    assert when[0].citation == "[episode · 2026-11-29 · dm]"


async def test_other_personas_conversations_stay_apart(opener: Opener) -> None:
    inara = await opener()
    zoe = await opener(persona="zoe")
    await zoe.sync(turn("I secretly love Porto"))
    await inara.sync(turn("I love Lisbon"))
    assert [h.item.text for h in await inara.prefetch("love Porto Lisbon")] == ["I love Lisbon"]


async def test_inject_is_the_representation_minus_forgotten(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    assert await memory.inject() == ""
    kept = await memory.add("I prefer green tea in the morning", source="cli")
    gone = await memory.add("I love Lisbon", source="cli")
    assert kept.stored and gone.item_id is not None
    block = await memory.inject()
    assert block.startswith("What Honcho has learned about alice:")
    assert "## Explicit Observations" in block and "I love Lisbon" in block
    assert await memory.forget(gone.item_id)
    block = await memory.inject()
    assert "I prefer green tea in the morning" in block and "Lisbon" not in block


async def test_forget_marks_in_the_ledger_and_filters_recall(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    added = await memory.add("I prefer green tea in the morning", source="cli")
    derived = fake.derive("personad", "inara__alice", "alice", "alice likes green things")
    await memory.sync(turn("green tea again"))
    assert added.item_id is not None
    message_id = next(
        h.item.id for h in await memory.search("green tea") if h.item.id.startswith("message:")
    )
    assert await memory.forget(added.item_id)
    assert await memory.forget(f"honcho:{derived}")
    assert await memory.forget(message_id)
    assert await memory.search("green tea") == []
    assert len(space(fake).conclusions) == 2  # Honcho cannot mark, so nothing was deleted
    assert not await memory.forget("nope")
    assert not await memory.forget("honcho:does-not-exist")
    statuses = {e["id"]: e["status"] for e in await memory.export()}
    assert statuses == {
        added.item_id: "forgotten",
        f"honcho:{derived}": "forgotten",
        message_id: "forgotten",
    }
    assert [i.id for i in await memory.list_items(include_inactive=True)].count(message_id) == 0


async def test_the_ledger_survives_a_restart(opener: Opener, tmp_path: Path) -> None:
    first = await opener(folder=tmp_path / "p")
    added = await first.add("I prefer green tea in the morning", source="cli")
    assert added.item_id is not None and await first.forget(added.item_id)
    await first.close()
    second = await opener(folder=tmp_path / "p")
    assert await second.search("green tea") == []
    assert (await second.stats())["by_status"] == {"forgotten": 1}


async def test_explain_and_stats(memory: HonchoMemory, fake: FakeHoncho) -> None:
    added = await memory.add("I prefer green tea in the morning", source="cli")
    assert added.item_id is not None
    explained = await memory.explain(added.item_id)
    assert explained["citation"] == "[preference · cli · 0.75]"
    assert explained["honcho"]["observer"] == "inara__alice"
    assert [entry["event"] for entry in explained["history"]] == ["created", "sent"]
    derived = fake.derive("personad", "inara__alice", "alice", "alice is a morning person")
    assert (await memory.explain(f"honcho:{derived}"))["honcho"]["level"] == "deductive"
    assert await memory.explain("missing") == {}
    stats = await memory.stats()
    assert stats["backend"] == "honcho" and stats["workspace"] == "personad"
    assert stats["peers"] == {"user": "alice", "persona": "inara__alice"}
    assert stats["by_category"] == {"preference": 1}
    assert stats["queued"] == {} and stats["reachable"]


# -- failures -------------------------------------------------------------------------------


async def test_unreachable_server_never_breaks_a_turn_and_nothing_is_lost(
    opener: Opener,
) -> None:
    port = free_port()
    memory = await opener(base_url=f"http://127.0.0.1:{port}")
    assert await memory.inject() == ""
    assert await memory.prefetch("anything") == []
    await memory.sync(turn("I love Lisbon"))
    added = await memory.add("I prefer green tea in the morning", source="cli")
    assert added.stored and "queued" in added.reason
    stats = await memory.stats()
    assert stats["queued"] == {"messages": 1, "conclusion": 1}
    assert not stats["reachable"]
    with pytest.raises(MemoryStoreError, match="cannot reach"):
        await memory.search("green tea")
    with pytest.raises(ToolFailed, match="cannot reach"):
        tool = next(t for t in memory.tools() if t.name == "memory_search")
        await tool.handler({"query": "green tea"})

    async with FakeHoncho(api_key=KEY) as late:
        await late.stop()
        await late.start(port=port)
        assert await memory.flush()
        ws = late.workspace("personad")
        assert [m["content"] for m in ws.messages] == ["I love Lisbon", "Noted."]
        assert [c["content"] for c in ws.conclusions.values()] == [
            "I prefer green tea in the morning"
        ]
        assert (await memory.stats())["queued"] == {}
        assert [h.item.id for h in await memory.search("green tea")] == [added.item_id]


async def test_a_write_forgotten_while_queued_is_never_sent(opener: Opener) -> None:
    port = free_port()
    memory = await opener(base_url=f"http://127.0.0.1:{port}")
    added = await memory.add("I prefer green tea in the morning", source="cli")
    assert added.item_id is not None and await memory.forget(added.item_id)
    async with FakeHoncho(api_key=KEY) as late:
        await late.stop()
        await late.start(port=port)
        assert await memory.flush()
        assert not any(path.endswith("/conclusions") for _, path in late.requests)
    history = (await memory.explain(added.item_id))["history"]
    assert [entry["event"] for entry in history] == ["created", "forgotten", "not sent"]


async def test_server_errors_become_memory_store_errors(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    await memory.add("I prefer green tea in the morning", source="cli")
    fake.fail_next(500, times=3)
    with pytest.raises(MemoryStoreError, match=r"server error \(HTTP 500\)"):
        await memory.search("green tea")
    assert await memory.prefetch("green tea") == []
    assert await memory.inject() == ""
    assert [h.item.text for h in await memory.prefetch("green tea")] == [
        "I prefer green tea in the morning"
    ]


async def test_a_transient_500_is_retried_by_the_sdk(opener: Opener, fake: FakeHoncho) -> None:
    memory = await opener(retries=1)
    await memory.add("I prefer green tea in the morning", source="cli")
    fake.fail_next(500)
    assert [h.item.text for h in await memory.search("green tea")] == [
        "I prefer green tea in the morning"
    ]


async def test_a_refused_key_is_named_without_showing_it(opener: Opener) -> None:
    memory = await opener(key="wrong-key-456")
    with pytest.raises(MemoryStoreError) as caught:
        await memory.search("tea")
    assert "API key was refused" in str(caught.value)
    assert "$HONCHO_API_KEY" in str(caught.value)
    assert "wrong-key-456" not in str(caught.value)
    assert "Honcho" in caught.value.user_message
    added = await memory.add("I prefer green tea in the morning", source="cli")
    assert added.stored and "queued" in added.reason


# -- tools ----------------------------------------------------------------------------------


async def test_tools_search_add_forget(memory: HonchoMemory) -> None:
    tools = {tool.name: tool for tool in memory.tools()}
    assert set(tools) == {"memory_search", "memory_add", "memory_forget"}
    added = await tools["memory_add"].handler({"text": "I prefer green tea in the morning"})
    assert added.startswith("Stored as preference")
    item_id = added.split("(id ", 1)[1].split(")", 1)[0]
    assert (await tools["memory_add"].handler({"text": "ok"})).startswith("Not stored")
    found = await tools["memory_search"].handler({"query": "green tea"})
    assert f"I prefer green tea in the morning [preference · persona · 0.75] (id {item_id})" in (
        found
    )
    assert await tools["memory_forget"].handler({"id": item_id}) == f"Forgotten: {item_id}."
    assert await tools["memory_search"].handler({"query": "green tea"}) == (
        "No stored memory matches."
    )
    with pytest.raises(ToolFailed):
        await tools["memory_forget"].handler({"id": "nope"})
    with pytest.raises(ToolFailed):
        await tools["memory_search"].handler({"query": " "})
    with pytest.raises(ToolFailed):
        await tools["memory_add"].handler({"text": "I like tea", "category": "gossip"})


async def test_an_unreadable_ledger_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "honcho.db").write_bytes(b"this is not a database " * 64)
    memory = HonchoMemory(tmp_path, config=HonchoConfig(), user="alice", persona="inara", env={})
    with pytest.raises(MemoryStoreError, match=r"cannot read .*honcho\.db"):
        await memory.open()


async def test_a_server_that_lost_its_data_is_filled_again(
    memory: HonchoMemory, fake: FakeHoncho
) -> None:
    await memory.sync(turn("I love Lisbon"))
    fake.workspaces.clear()  # e.g. the server's database was restored from an old backup
    await memory.sync(turn("I love Porto too", at=AT.replace(hour=19)))
    assert (await memory.stats())["queued"] == {"messages": 1}
    assert await memory.flush()
    assert [m["content"] for m in space(fake).messages] == ["I love Porto too", "Noted."]
