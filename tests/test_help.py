"""``/help`` is made from the command table for the asker's role: the persona's HELP.md adds
words, never commands, so no one is shown an admin command or a command twice."""

from __future__ import annotations

from pathlib import Path

from tests.harness import ScriptedLLM, make_config, make_persona
from tests.test_router import _world

OLD_HELP = """**Talking with Inara**

Just write. Commands:

- `/help`: this help
- `/otr on`, `/otr off`, `/otr`: Off The Record

Admins also have `/status all`, `/reload`, `/distill`, `/users`.
On Matrix you can type `!` instead of `/`.
"""


async def test_help_lists_the_commands_of_the_askers_role_once(tmp_path: Path) -> None:
    for user in ("scott", "holly"):
        folder = make_persona(tmp_path, user)
    (folder / "HELP.md").write_text(OLD_HELP)  # holly's persona has an older HELP.md
    daemon, adapter = await _world(make_config(tmp_path), tmp_path, ScriptedLLM())
    try:
        await adapter.deliver("/help", sender="holly", event_id="h1")
        await adapter.deliver("!help", sender="scott", event_id="s1")
    finally:
        await daemon.stop()
    user_help, admin_help = adapter.texts()
    assert "Talking with Inara" in user_help  # the persona's words stay
    for admin_only in ("/reload", "/distill", "/users"):
        assert admin_only not in user_help
        assert admin_help.count(f"`/{admin_only[1:]}") == 1
    for text in (user_help, admin_help):
        assert text.count("`/otr") == 1 and text.count("`/help") == 1
        assert "on every platform" in text and "On Matrix" not in text
