"""The console's chat in a real browser, with media: a picture chosen in the page reaches the
model as a picture, a voice note recorded with the page's microphone button is transcribed,
a spoken answer plays in the page, a file over its cap is refused with the reason while
the typed text stays, and Off The Record nothing of an upload reaches the disk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.web.chat import PERSONA_WITH_FILES
from tests.browser import Console, launch_browser, start_console, wait_for_answer
from tests.fakes.audio_api import FakeAudio
from tests.harness import make_persona
from tests.media_files import VOICE_OGG, base64_needle, files_holding, middle, pdf, picture

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: chromium's own stand-ins for a microphone: a beeping fake device, allowed without asking
FAKE_MICROPHONE = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def audio() -> AsyncIterator[FakeAudio]:
    async with FakeAudio() as fake:
        yield fake


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(
    tmp_path_factory: pytest.TempPathFactory, audio: FakeAudio
) -> AsyncIterator[Console]:
    server = {"kind": "openai_compat", "model": "whisper-1", "base_url": audio.base_url}
    extra = {
        "llm": {
            "backends": {
                "scripted": {
                    "kind": "openai_compat",
                    "model": "m",
                    "base_url": "http://127.0.0.1:9/v1",
                    "vision": True,
                },
                "whisper": server,
                "piper": {**server, "model": "piper"},
            },
            "roles": {
                "chat": {"backend": "scripted"},
                "distill_mid": {},
                "distill_long": {},
                "transcribe": {"backend": "whisper"},
                "speech": {"backend": "piper"},
            },
        },
        # the page takes files up to the largest cap (3 MB); each kind's own cap is the turn's
        "media": {
            "max_image_bytes": 3_000_000,
            "max_audio_bytes": 1_000_000,
            "max_document_bytes": 200_000,
        },
    }
    async for running in start_console(tmp_path_factory.mktemp("web-media"), extra=extra):
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def page(console: Console) -> AsyncIterator[Any]:
    async for browser in launch_browser(args=FAKE_MICROPHONE):
        context = await browser.new_context()
        opened = await context.new_page()
        await console.sign_in(opened, "scott")
        await opened.goto(f"{console.base}/u/scott/inara/chat/media1")
        yield opened
        await context.close()


async def test_a_picture_chosen_in_the_page_reaches_the_model(
    console: Console, page: Any, tmp_path: Path
) -> None:
    photo = tmp_path / "garden.jpg"
    photo.write_bytes(picture(2400, 1800, "JPEG"))
    await page.fill("#text", "what is growing here?")
    await page.set_input_files("#file", str(photo))
    await page.click("#send button[type=submit]")
    await wait_for_answer(page, "echo: [picture: what is growing here?]")
    call = console.llm.calls[-1]
    [shown] = call.messages[-1].pictures
    assert (shown.media_type, shown.width, shown.height) == ("image/jpeg", 1568, 1176)
    mine = page.locator(".msg.user").last
    assert "📎 garden.jpg" in await mine.inner_text()
    assert await page.input_value("#text") == ""
    await console.shot(page, "chat-picture")


async def test_a_voice_note_recorded_in_the_page_is_transcribed(
    console: Console, page: Any, audio: FakeAudio
) -> None:
    audio.transcript = "what should I cook tonight"
    await page.click("#record")
    await page.wait_for_function(
        "() => document.querySelector('#record').textContent === 'Stop recording'"
    )
    await asyncio.sleep(1.0)
    await page.click("#record")
    await page.wait_for_function(
        "() => document.querySelector('#recording').textContent.includes('ready')"
    )
    await page.click("#send button[type=submit]")
    await page.wait_for_function(
        "() => [...document.querySelectorAll('.msg.persona')]"
        ".some(m => m.textContent.includes('what should I cook tonight'))"
    )
    heard = audio.heard[-1]
    assert heard.audio.startswith(b"\x1a\x45\xdf\xa3")  # the browser's own WebM recording
    assert heard.content_type == "audio/webm"
    assert heard.filename == "voice.webm"
    assert len(heard.audio) > 1000
    said = console.llm.calls[-1].messages[-1].text
    assert "[voice note" in said and said.endswith("transcribed] what should I cook tonight")


async def test_a_spoken_answer_plays_in_the_page(
    console: Console, page: Any, audio: FakeAudio
) -> None:
    await page.fill("#text", "/voice on")
    await page.press("#text", "Enter")
    await wait_for_answer(
        page, "From now on I answer in this room in writing and as a voice message."
    )
    before = await page.locator(".msg.persona audio").count()
    await page.fill("#text", "say hello")
    await page.press("#text", "Enter")
    await wait_for_answer(page, "echo: say hello")
    await page.wait_for_function(
        f"() => document.querySelectorAll('.msg.persona audio').length > {before}"
    )
    source = await page.locator(".msg.persona audio").last.get_attribute("src")
    assert source is not None and source.startswith("data:audio/ogg;base64,")
    assert audio.spoken[-1]["input"] == "echo: say hello"
    await page.fill("#text", "/voice off")
    await page.press("#text", "Enter")
    await wait_for_answer(page, "From now on my answers in this room are written only.")


async def test_a_document_over_its_cap_is_answered_with_the_reason(
    console: Console, page: Any, tmp_path: Path
) -> None:
    big = tmp_path / "big.csv"
    big.write_bytes(b"a,b\n" * 100_000)  # 400 kB of text: over the 200 kB documents may be
    calls = len(console.llm.calls)
    said = (
        "“big.csv” is larger than the 200 kB I accept for that kind of file, so I did not open it."
    )
    assert await _send_and_see(page, "", big, said) == said  # nothing else: the model is not asked
    assert len(console.llm.calls) == calls


async def _send_and_see(page: Any, text: str, path: Path, said: str) -> str:
    """``text`` sent with the file at ``path``, until the page shows an answer that ends
    with ``said``; that answer."""
    before = await page.locator(".msg.persona").count()
    await page.fill("#text", text)
    await page.set_input_files("#file", str(path))
    await page.click("#send button[type=submit]")
    found = await page.wait_for_function(
        "([said, before]) => [...document.querySelectorAll('.msg.persona')].slice(before)"
        ".map(m => m.textContent.trim()).find(t => t.endsWith(said))",
        arg=[said, before],
    )
    answer: str = await found.json_value()
    return answer


async def test_an_empty_file_chosen_in_the_page_is_answered_not_dropped(
    console: Console, page: Any, tmp_path: Path
) -> None:
    """A file of no bytes (an export that failed) is answered as on every other platform,
    not left out so that the text goes alone as if no file had been chosen: the text is
    answered, and the answer says the file was empty."""
    empty = tmp_path / "export.csv"
    empty.write_bytes(b"")
    calls = len(console.llm.calls)
    said = "“export.csv” is empty, so there is nothing in it to read."
    answer = await _send_and_see(page, "what is in the export?", empty, said)
    assert answer.startswith("echo: what is in the export?")
    assert len(console.llm.calls) == calls + 1
    assert f"[not read: {said}]" in console.llm.calls[-1].messages[-1].text


async def test_files_chosen_together_are_answered_with_the_one_not_read_named(
    console: Console, page: Any, tmp_path: Path
) -> None:
    photo = tmp_path / "porch.jpg"
    photo.write_bytes(picture(640, 480, "JPEG"))
    empty = tmp_path / "export.csv"
    empty.write_bytes(b"")
    big = tmp_path / "big.csv"
    big.write_bytes(b"a,b\n" * 100_000)  # over the 200 kB documents may be, under the page's cap
    calls = len(console.llm.calls)
    await page.fill("#text", "what needs fixing?")
    await page.set_input_files("#file", [str(photo), str(empty), str(big)])
    await page.click("#send button[type=submit]")
    said = [
        "“export.csv” is empty, so there is nothing in it to read.",
        "“big.csv” is larger than the 200 kB I accept for that kind of file, so I did not open it.",
    ]
    await page.wait_for_function(
        "said => [...document.querySelectorAll('.msg.persona')].some("
        "m => m.textContent.startsWith('echo: [picture: what needs fixing?]')"
        " && m.textContent.includes(said[0]) && m.textContent.trim().endsWith(said[1]))",
        arg=said,
    )
    assert len(console.llm.calls) == calls + 1
    [shown] = console.llm.calls[-1].messages[-1].pictures
    assert shown.media_type == "image/jpeg"


async def test_a_file_the_page_cannot_take_is_refused_and_the_text_stays(
    console: Console, page: Any, tmp_path: Path
) -> None:
    huge = tmp_path / "huge.png"
    huge.write_bytes(picture(64, 64) + b"\x00" * 4_000_000)
    shown = await page.locator(".msg").count()
    await page.fill("#text", "and this one")
    await page.set_input_files("#file", str(huge))
    await page.click("#send button[type=submit]")
    await page.wait_for_function("() => !document.querySelector('#send-problem').hidden")
    problem = await page.inner_text("#send-problem")
    assert (
        problem == "Not sent: “huge.png” is larger than the 3 MB I accept for that kind of file,"
        " so I did not open it."
    )
    assert await page.input_value("#text") == "and this one"
    assert await page.locator(".msg").count() == shown


async def test_persona_sent_with_a_file_does_neither_and_keeps_both(
    console: Console, page: Any, tmp_path: Path
) -> None:
    make_persona(console.data, "scott", "tina")
    note = tmp_path / "note.txt"
    note.write_text("the plumber comes on Thursday")
    shown = await page.locator(".msg").count()
    calls = len(console.llm.calls)
    await page.fill("#text", "/persona tina")
    await page.set_input_files("#file", str(note))
    await page.click("#send button[type=submit]")
    await page.wait_for_function("() => !document.querySelector('#send-problem').hidden")
    assert await page.inner_text("#send-problem") == f"Not sent: {PERSONA_WITH_FILES}"
    assert page.url.endswith("/u/scott/inara/chat/media1")  # still here
    assert await page.input_value("#text") == "/persona tina"
    chosen = await page.eval_on_selector("#file", "input => [...input.files].map(f => f.name)")
    assert chosen == ["note.txt"]
    assert await page.locator(".msg").count() == shown
    assert len(console.llm.calls) == calls
    await page.set_input_files("#file", [])


async def test_off_the_record_uploads_leave_no_byte_anywhere(
    console: Console,
    page: Any,
    audio: FakeAudio,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))  # where a spooled upload would go
    picked = tmp_path / "picked"  # the files the person chooses: neither scanned folder
    picked.mkdir()
    photo = picture(900, 700, "PNG")
    document = pdf(["marzipanocelot is the name of the boat"])
    chosen = {"p.png": photo, "boat.pdf": document, "v.ogg": VOICE_OGG}
    for name, data in chosen.items():
        (picked / name).write_bytes(data)
    audio.transcript = "the persimmonwalrus code is in the drawer"
    await page.goto(f"{console.base}/u/scott/inara/chat/mediaotr")
    await page.click("#otr-toggle")
    await page.wait_for_selector("#mode-otr", state="visible")
    calls = len(console.llm.calls)
    await page.fill("#text", "zanzibarquokka")
    await page.set_input_files("#file", [str(picked / name) for name in chosen])
    await page.click("#send button[type=submit]")
    await page.wait_for_function(
        "() => [...document.querySelectorAll('.msg.persona')]"
        ".some(m => m.textContent.includes('persimmonwalrus'))"
    )
    assert len(console.llm.calls) == calls + 1
    said = console.llm.calls[-1].messages[-1]
    assert "marzipanocelot" in said.text and "[picture: zanzibarquokka]" in said.text
    shown = said.pictures[0].data  # the picture as the model got it
    assert len(said.pictures) == 1
    needles = [
        b"zanzibarquokka",
        b"persimmonwalrus",
        b"marzipanocelot",
        *(middle(data) for data in (photo, shown, VOICE_OGG, document)),
        base64_needle(photo),
        base64_needle(shown),
    ]
    assert not files_holding([console.data, scratch], needles)
    assert not any(scratch.iterdir())
