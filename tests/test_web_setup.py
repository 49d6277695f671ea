"""Onboarding in a real browser: a user without personas lands on /setup/persona, picks a
template, names it, answers a few questions that seed USER.md, and is chatting with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.persona.store import PERSONA_FILES, PersonaStore
from bot.persona.template import TEMPLATES_DIR, available_templates, create_persona
from tests.browser import (
    Console,
    browser_fixture,
    console_fixture,
    page_fixture,
    wait_for_answer,
)

SEED_PERSONAS = ("inara", "developer", "tina", "wintermute", "orac", "sage")


console = console_fixture("web-setup")
browser = browser_fixture()
page = page_fixture(viewport={"width": 390, "height": 844})  # a phone


@pytest.mark.asyncio(loop_scope="module")
async def test_a_new_user_creates_a_persona_and_lands_in_its_chat(
    console: Console, page: Any
) -> None:
    await console.sign_in(page, "holly")
    assert page.url == f"{console.base}/setup/persona"  # no persona yet: straight to setup
    assert "Your first persona" in await page.inner_text("h1")
    await console.shot(page, "setup")
    await page.check("#t-tina")
    await page.fill("#name", "tina")
    await page.fill("#call_me", "Holly")
    await page.fill("#days", "teaching and two kids")
    await page.click("#create")
    await page.wait_for_url(f"{console.base}/u/holly/tina/chat/*")
    user_md = (console.data / "holly/persona/tina/USER.md").read_text()
    assert "- Likes to be called: Holly" in user_md
    assert "- Days are filled with: teaching and two kids" in user_md
    assert (
        "I am Tina, holly's personal assistant"
        in (console.data / "holly/persona/tina/IDENTITY.md").read_text()
    )
    await page.fill("#text", "hello tina")
    await page.keyboard.press("Enter")
    await wait_for_answer(page, "echo: hello tina")
    await console.shot(page, "chat-phone")

    await page.goto(f"{console.base}/setup/persona")
    await page.check("#t-tina")
    await page.fill("#name", "tina")  # taken
    await page.click("#create")
    assert "already exists" in await page.inner_text("#problem")


@pytest.mark.parametrize("template", SEED_PERSONAS)
def test_every_seed_persona_ships_as_a_complete_template(template: str, tmp_path: Path) -> None:
    assert template in available_templates()
    shipped = {p.name for p in (TEMPLATES_DIR / template).iterdir()}
    assert shipped == set(PERSONA_FILES)
    directory = create_persona(PersonaStore(tmp_path), "sam", "aria", template=template)
    for name in PERSONA_FILES:
        assert "{{" not in (directory / name).read_text(), name
    identity = (directory / "IDENTITY.md").read_text()
    assert "sam" in identity


def test_each_template_has_its_own_voice() -> None:
    voices = {name: (TEMPLATES_DIR / name / "VOICE.md").read_text() for name in SEED_PERSONAS}
    assert len(set(voices.values())) == len(SEED_PERSONAS)
