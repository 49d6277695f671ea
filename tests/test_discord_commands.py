"""Slash commands: registration from the command table, invocation, and the follow-up answer."""

from __future__ import annotations

from pathlib import Path

from adapters.discord.adapter import DiscordAdapter
from tests.fakes.discord_api import ADMINISTRATOR, FakeDiscord
from tests.test_discord import (  # noqa: F401  (the fixtures are used by name)
    MENU,
    Collector,
    MemoryState,
    adapter_fixture,
    events_fixture,
    fake_fixture,
    guild,
    make_adapter,
    state_fixture,
)


def _options(command: dict[str, object]) -> list[dict[str, object]]:
    return command.get("options") or []  # type: ignore[return-value]


async def test_menu_registered_with_admin_commands_for_administrators_only(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    assert fake.command_puts == 1
    registered = {command["name"]: command for command in fake.commands}
    assert set(registered) == {name for name, _, _ in MENU}
    for name, description, admin_only in MENU:
        command = registered[name]
        assert command["description"] == description
        expected = str(ADMINISTRATOR) if admin_only else None
        assert command.get("default_member_permissions") == expected, name
    [otr] = _options(registered["otr"])
    assert [c["value"] for c in otr["choices"]] == ["on", "off"]
    [tier] = _options(registered["tier"])
    assert (tier["type"], tier["min_value"], tier["max_value"]) == (4, 1, 4)
    [scope] = _options(registered["status"])
    assert [c["value"] for c in scope["choices"]] == ["all"]
    [layer] = _options(registered["distill"])
    assert [c["value"] for c in layer["choices"]] == ["short", "mid", "long"]
    # every command also works bare (/otr shows the state), so no option is required
    assert not any(o.get("required") for c in fake.commands for o in _options(c))
    assert _options(registered["help"]) == []
    [free] = _options(registered["persona"])  # not a known shape: free text
    assert free["type"] == 3


async def test_unchanged_commands_are_not_registered_again(
    fake: FakeDiscord, events: Collector, state: MemoryState, tmp_path: Path
) -> None:
    async with make_adapter(fake, events, state, tmp_path):
        pass
    async with make_adapter(fake, events, state, tmp_path):
        pass
    assert fake.command_puts == 1
    changed = make_adapter(fake, events, state, tmp_path)
    changed.context.command_menu = [*MENU, ("remind", "Set a reminder", False)]
    async with changed:
        pass
    assert fake.command_puts == 2
    assert "remind" in {command["name"] for command in fake.commands}


async def test_slash_command_becomes_text_and_is_answered_as_follow_up(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    scott = fake.user("scott")
    events.answer = "Off the record is **on**."
    interaction = await fake.dispatch_interaction(
        "otr", [{"name": "state", "type": 3, "value": "on"}], user=scott, channel_id="900"
    )
    await fake.wait_for(lambda: len(fake.sent) == 1)
    [incoming] = events.events
    assert incoming.text == "/otr on"
    assert incoming.event_id == interaction["id"]
    assert incoming.identity == f"discord:{scott['id']}" and incoming.is_direct
    [callback] = fake.callbacks
    assert callback["interaction_id"] == interaction["id"] and callback["type"] == 5  # deferred
    [answer] = fake.sent
    assert answer["via"] == "original" and answer["content"] == "Off the record is **on**."
    assert fake.deleted == []  # an answered command keeps its response


async def test_long_command_answer_continues_in_follow_ups_and_can_be_edited(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    guild_id, channel_id = guild(fake)
    await fake.dispatch_interaction(
        "tier",
        [{"name": "tier", "type": 4, "value": 3}],
        user=fake.user("scott"),
        channel_id=channel_id,
        guild_id=guild_id,
    )
    await fake.wait_for(lambda: len(events.events) == 1)
    incoming = events.events[0]
    assert incoming.text == "/tier 3" and not incoming.is_direct and incoming.addressed
    long_text = "\n\n".join(f"Paragraph {n}: " + "word " * 60 for n in range(20))
    last = await adapter.send(incoming.room, long_text, reply_to=incoming.event_id)
    vias = [m["via"] for m in fake.sent]
    assert vias[0] == "original" and set(vias[1:]) == {"followup"} and len(vias) >= 3
    assert last == fake.sent[-1]["id"]
    first = fake.sent[0]["id"]
    await adapter.edit(incoming.room, first, "Paragraph 0, revised")
    await adapter.edit(incoming.room, last, "The end, revised")
    assert [(e["via"], e["content"]) for e in fake.edits] == [
        ("original", "Paragraph 0, revised"),
        ("followup", "The end, revised"),
    ]


async def test_admin_command_reaches_the_router_whoever_sends_it(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    guild_id, channel_id = guild(fake)
    await fake.dispatch_interaction(
        "reload", user=fake.user("mallory"), channel_id=channel_id, guild_id=guild_id, admin=False
    )
    await fake.wait_for(lambda: len(events.events) == 1)
    assert events.events[0].text == "/reload"  # the router, not Discord, refuses non-admins


async def test_unanswered_command_removes_the_thinking_message(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    await fake.dispatch_interaction("help", user=fake.user("stranger"), channel_id="900")
    await fake.wait_for(lambda: len(fake.deleted) == 1)
    assert fake.sent == []


async def test_free_text_and_optional_arguments(
    fake: FakeDiscord, adapter: DiscordAdapter, events: Collector
) -> None:
    scott = fake.user("scott")
    await fake.dispatch_interaction("status", user=scott, channel_id="900")
    await fake.dispatch_interaction(
        "status", [{"name": "scope", "type": 3, "value": "all"}], user=scott, channel_id="900"
    )
    await fake.dispatch_interaction(
        "distill", [{"name": "layer", "type": 3, "value": "mid"}], user=scott, channel_id="900"
    )
    await fake.dispatch_interaction(
        "persona", [{"name": "args", "type": 3, "value": " kaylee "}], user=scott, channel_id="900"
    )
    await fake.dispatch_interaction("otr", user=scott, channel_id="900")
    await fake.wait_for(lambda: len(events.events) == 5)
    assert sorted(e.text for e in events.events) == [
        "/distill mid",
        "/otr",
        "/persona kaylee",
        "/status",
        "/status all",
    ]
