"""Reminders, tasks and scheduled jobs in a real browser: listed with their next time,
added, edited and deleted through the same checks as the persona's tools."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser import Console, browser_fixture, console_fixture, page_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")


console = console_fixture("web-schedule")
browser = browser_fixture()
page = page_fixture("scott", path="/u/scott/inara/schedule")


async def _edit(page: Any, row: str, fields: dict[str, str], answer: str) -> None:
    """Open a row's Edit form, fill ``fields``, save, and wait for ``answer``."""
    form = page.locator(row)
    await form.locator("summary").click()
    for name, value in fields.items():
        await form.locator(f"input[name={name}]").fill(value)
    await form.get_by_role("button", name="Save").click()
    await page.wait_for_selector(f"text={answer}")


async def test_reminders_are_added_edited_and_deleted(console: Console, page: Any) -> None:
    await page.fill("#r-when", "2030-03-04T09:30")
    await page.fill("#r-text", "Call the dentist")
    await page.select_option("#r-every", "week")
    await page.click("#add-reminder button")
    await page.wait_for_selector("#note")
    row = page.locator("#reminders tr.reminder").first
    assert "2030-03-04 09:30 · every week" in await row.inner_text()
    assert (
        "- [ ] 2030-03-04 09:30 every week Call the dentist"
        in (console.data / "scott/persona/inara/REMINDERS.md").read_text()
    )
    await row.locator("summary").click()
    await row.locator("input[name=text]").fill("Call the dentist about the crown")
    await row.get_by_role("button", name="Save").click()
    await page.wait_for_selector("text=Changed.")
    assert await page.locator("#reminders tr.reminder").count() == 1
    assert "about the crown" in await page.inner_text("#reminders")
    await console.shot(page, "schedule")
    await page.locator("#reminders tr.reminder").get_by_role("button", name="Delete").click()
    await page.wait_for_selector("text=No reminders pending.")
    assert "dentist" not in (console.data / "scott/persona/inara/REMINDERS.md").read_text()


async def test_an_edited_monthly_reminder_keeps_the_day_its_line_names(
    console: Console, page: Any
) -> None:
    """A reminder due on the 28th of February that stands for the 31st: an edit of its text
    or time kept it monthly but saved it as plain ``every month``, on the 28th for good. A
    new date's day is the new day."""
    path = console.data / "scott/persona/inara/REMINDERS.md"
    path.write_text("# Reminders\n\n- [ ] 2035-02-28 09:00 every month on the 31st Pay rent\n")
    await page.goto(console.base + "/u/scott/inara/schedule")
    row = "#reminders tr.reminder:has-text('Pay rent')"
    assert "2035-02-28 09:00 · every month on the 31st" in await page.inner_text(row)
    fields = {"text": "Pay the rent", "when": "2035-02-28T10:00"}
    await _edit(page, row, fields, "Reminder set: Wed 2035-02-28 10:00 every month on the 31st")
    pending = [line for line in path.read_text().splitlines() if line.startswith("- [ ]")]
    assert pending == ["- [ ] 2035-02-28 10:00 every month on the 31st Pay the rent"]
    await _edit(
        page,
        "#reminders tr.reminder:has-text('Pay the rent')",
        {"when": "2035-03-15T10:00"},
        "Reminder set: Thu 2035-03-15 10:00 every month —",
    )
    pending = [line for line in path.read_text().splitlines() if line.startswith("- [ ]")]
    assert pending == ["- [ ] 2035-03-15 10:00 every month Pay the rent"]
    await page.locator("#reminders tr.reminder").get_by_role("button", name="Delete").click()
    await page.wait_for_selector("text=No reminders pending.")


async def test_a_task_is_added_and_deleted_but_kept_in_its_file(
    console: Console, page: Any
) -> None:
    await page.fill("#t-title", "Renew the passport")
    await page.fill("#t-due", "2030-12-15")
    await page.click("#add-task button")
    await page.wait_for_selector("#tasks tr.task")
    assert "2030-12-15" in await page.inner_text("#tasks")
    fields = {"title": "Renew the passport and the ID card", "due": "2030-12-20"}
    await _edit(page, "#tasks tr.task", fields, "Task changed")
    [task] = json.loads((console.data / "scott/persona/inara/TASKS.json").read_text())
    # changed in place: the same task, its number and creation time kept
    assert (task["id"], task["title"], task["due"]) == (
        1,
        "Renew the passport and the ID card",
        "2030-12-20",
    )
    assert task["status"] == "open" and task["created"]
    await page.locator("#tasks tr.task").get_by_role("button", name="Delete").click()
    await page.wait_for_selector("text=No open tasks.")
    [task] = json.loads((console.data / "scott/persona/inara/TASKS.json").read_text())
    assert (task["id"], task["status"]) == (1, "removed")


async def test_a_job_shows_its_next_run_and_a_bad_schedule_changes_nothing(
    console: Console, page: Any
) -> None:
    await page.fill("#c-schedule", "0 7 * * 1-5")
    await page.fill("#c-prompt", "Give me a short morning briefing.")
    await page.click("#add-cron button")
    await page.wait_for_selector("#jobs tr.job")
    cells = await page.locator("#jobs tr.job td").all_inner_texts()
    assert cells[0].endswith("07:00") and cells[1] == "0 7 * * 1-5"
    await page.fill("#c-schedule", "every minute")
    await page.fill("#c-prompt", "Spam me.")
    await page.click("#add-cron button")
    await page.wait_for_selector("#note")
    assert (await page.inner_text("#note")).startswith("Nothing was changed")
    jobs = json.loads((console.data / "scott/persona/inara/CRONS.json").read_text())
    assert [job["prompt"] for job in jobs] == ["Give me a short morning briefing."]

    fields = {"schedule": "30 6 * * *", "prompt": "Give me the weather."}
    await _edit(page, "#jobs tr.job", fields, "Job changed")
    cells = await page.locator("#jobs tr.job td").all_inner_texts()
    assert cells[0].endswith("06:30") and cells[1] == "30 6 * * *"
    [job] = json.loads((console.data / "scott/persona/inara/CRONS.json").read_text())
    assert (job["id"], job["schedule"], job["prompt"]) == (1, "30 6 * * *", "Give me the weather.")
    assert job["enabled"] is True


UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter(e => e.type !== 'hidden')
    .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                 && !(e.tagName === 'BUTTON' && e.textContent.trim()))
    .map(e => e.outerHTML)"""


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/u/scott/inara/chat/abc123",
        "/u/scott/inara/files",
        "/u/scott/inara/files/USER.md",
        "/u/scott/inara/search?q=x",
        "/u/scott/inara/schedule",
        "/setup/persona",
        "/admin",
    ],
)
async def test_every_control_of_every_page_has_a_label(
    console: Console, page: Any, path: str
) -> None:
    response = await page.goto(console.base + path)
    assert response.status == 200
    assert await page.evaluate(UNLABELLED) == []
