"""Media through the whole daemon on Telegram's and Discord's wire: an album seen by the
model in one turn, a recorded voice note transcribed from the bytes the platform served, and
a spoken answer posted as the platform's voice message."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.daemon.daemon import Daemon
from bot.media.kinds import SUPPORTED
from bot.setup.config import Config
from tests.fakes.audio_api import FakeAudio
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram
from tests.harness import ScriptedLLM, make_persona
from tests.media_files import VOICE_OGG, picture
from tests.test_media_turns import SPEAK, TRANSCRIBE, audio
from tests.test_media_turns import _config as media_config
from tests.test_telegram import until

__all__ = ["audio"]

pytestmark = [
    pytest.mark.filterwarnings("ignore:Please use 'Bot.getUpdates'"),
    pytest.mark.filterwarnings("ignore:Deprecated since version v22.2"),
]

SCOTT = 4242


def _config(tmp: Path, audio: FakeAudio, identity: str, adapters: dict[str, Any]) -> Config:
    """The media test config (both audio servers on), with ``identity`` as scott's only one."""
    make_persona(tmp, "scott")
    return media_config(
        tmp,
        audio,
        models={"roles": {**TRANSCRIBE["roles"], **SPEAK["roles"]}},
        users={"scott": {"identities": [identity], "admin": True, "timezone": "UTC"}},
        adapters=adapters,
    )


# -- Telegram ---------------------------------------------------------------------------------


@pytest.fixture
async def telegram(
    tmp_path: Path, audio: FakeAudio
) -> AsyncIterator[tuple[FakeTelegram, ScriptedLLM]]:
    async with FakeTelegram() as fake:
        section = {
            "enabled": True,
            "token": fake.token,
            "base_url": fake.base_url,
            "poll_timeout": 1,
            "retry_base_seconds": 0.01,
        }
        config = _config(tmp_path, audio, f"telegram:{SCOTT}", {"telegram": section})
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, http=False, jobs=False):
            yield fake, llm


def _answers(fake: FakeTelegram) -> list[str]:
    return [fake.messages[(s["chat_id"], s["message_id"])]["text"] for s in fake.sent]


async def test_a_telegram_album_is_one_turn_with_both_pictures(
    telegram: tuple[FakeTelegram, ScriptedLLM],
) -> None:
    fake, llm = telegram
    first, second = picture(320, 240), picture(240, 320)
    fake.push_file(SCOTT, "photo", fake.photo(first, 320, 240), caption="which?", album="77")
    fake.push_file(SCOTT, "photo", fake.photo(second, 240, 320), album="77")
    await until(lambda: any(a.startswith("echo: ") for a in _answers(fake)), "the answer")
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 2
    assert "which?" in call.messages[-1].text


async def test_a_telegram_album_with_a_damaged_photo_is_answered_about_the_others(
    telegram: tuple[FakeTelegram, ScriptedLLM],
) -> None:
    fake, llm = telegram
    first, damaged, third = picture(320, 240), picture(240, 320)[:600], picture(300, 200)
    fake.push_file(SCOTT, "photo", fake.photo(first, 320, 240), caption="which?", album="78")
    fake.push_file(SCOTT, "photo", fake.photo(damaged, 240, 320), album="78")
    fake.push_file(SCOTT, "photo", fake.photo(third, 300, 200), album="78")
    said = "\n\nFile 2 of 3: That picture could not be opened as a picture."
    await until(lambda: any(a.endswith(said) for a in _answers(fake)), "the whole answer")
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 2
    assert "[2 pictures: which?]" in call.messages[-1].text
    [answer] = _answers(fake)
    assert answer.startswith("echo: [2 pictures: which?]")


async def test_a_telegram_album_in_a_group_is_seen_whole_when_its_caption_names_the_persona(
    telegram: tuple[FakeTelegram, ScriptedLLM],
) -> None:
    """Telegram puts an album's caption, and so its mention of the bot, on one of its
    messages: the others come unaddressed, and are part of what was asked all the same. An
    album that names no one is not the persona's to answer."""
    fake, llm = telegram
    group = -100200300
    pictures = [picture(320, 240), picture(240, 320), picture(300, 200)]
    for photo in pictures:  # an album for the group, that asks nothing of the persona
        fake.push_file(group, "photo", fake.photo(photo, 320, 240), album="90", chat_type="group")
    fake.push_file(
        group,
        "photo",
        fake.photo(pictures[0], 320, 240),
        caption="@persona_bot which of these is the garden?",
        album="91",
        chat_type="group",
    )
    for photo in pictures[1:]:
        fake.push_file(group, "photo", fake.photo(photo, 240, 320), album="91", chat_type="group")
    await until(lambda: any(a.startswith("echo: ") for a in _answers(fake)), "the answer")
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 3
    assert "which of these is the garden?" in call.messages[-1].text
    assert [s["chat_id"] for s in fake.sent] == [str(group)]


async def test_a_telegram_voice_note_is_heard_as_sent(
    telegram: tuple[FakeTelegram, ScriptedLLM], audio: FakeAudio
) -> None:
    fake, _llm = telegram
    fake.push_file(SCOTT, "voice", fake.file(VOICE_OGG, duration=3, mime_type="audio/ogg"))
    await until(lambda: any(audio.transcript in a for a in _answers(fake)), "the answer")
    [heard] = audio.heard
    assert heard.audio == VOICE_OGG


async def test_telegram_speaks_the_answer_with_send_voice(
    telegram: tuple[FakeTelegram, ScriptedLLM], audio: FakeAudio
) -> None:
    fake, _llm = telegram
    fake.push_message(SCOTT, "/voice on")
    await until(lambda: len(fake.sent) == 1, "the command's reply")
    fake.push_message(SCOTT, "say hello")
    await until(lambda: len(fake.voices) == 1, "the voice message")
    [voice] = fake.voices
    assert voice["chat_id"] == str(SCOTT) and voice["upload"].data == audio.speech_audio
    assert voice["duration"] == 3  # the speech server's Ogg Opus, 2.9 s
    assert [body["input"] for body in audio.spoken] == ["echo: say hello"]


# -- Discord ----------------------------------------------------------------------------------


@pytest.fixture
async def discord(
    tmp_path: Path, audio: FakeAudio
) -> AsyncIterator[tuple[FakeDiscord, dict[str, Any], ScriptedLLM]]:
    async with FakeDiscord(heartbeat_ms=200) as fake:
        scott = fake.user("scott")
        section = {
            "enabled": True,
            "token": fake.token,
            "token_env": None,
            "api_base": fake.api_base,
            "gateway_url": fake.gateway_url,
            "connect_timeout": 10,
        }
        config = _config(tmp_path, audio, f"discord:{scott['id']}", {"discord": section})
        llm = ScriptedLLM()
        async with Daemon(config, backends={"scripted": llm}, http=False, jobs=False):
            yield fake, scott, llm


async def test_discord_files_of_one_message_are_one_turn(
    discord: tuple[FakeDiscord, dict[str, Any], ScriptedLLM],
) -> None:
    fake, scott, llm = discord
    files = (
        fake.attachment(picture(200, 150), "a.png", content_type="image/png"),
        fake.attachment(picture(150, 200, "JPEG"), "b.jpg", content_type="image/jpeg"),
    )
    await fake.dispatch_message("compare", author=scott, channel_id="900", attachments=files)
    await fake.wait_for(lambda: any(m["content"].startswith("echo: ") for m in fake.sent))
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 2


async def test_discord_speaks_the_answer_as_a_voice_message(
    discord: tuple[FakeDiscord, dict[str, Any], ScriptedLLM], audio: FakeAudio
) -> None:
    fake, scott, _llm = discord
    await fake.dispatch_message("/voice on", author=scott, channel_id="900")
    await fake.wait_for(lambda: len(fake.sent) == 1)
    await fake.dispatch_message("say hello", author=scott, channel_id="900")
    await fake.wait_for(lambda: any(m["uploads"] for m in fake.sent))
    [voice] = [m for m in fake.sent if m["uploads"]]
    assert voice["flags"] == 8192 and voice["uploads"][0].data == audio.speech_audio
    assert 2.5 < voice["attachments"][0]["duration_secs"] < 3.5


async def test_a_discord_attachment_that_cannot_be_read_leaves_the_others_answered(
    discord: tuple[FakeDiscord, dict[str, Any], ScriptedLLM],
) -> None:
    fake, scott, llm = discord
    files = (
        fake.attachment(picture(200, 150), "a.png", content_type="image/png"),
        fake.attachment(b"PK\x03\x04" + b"\x01\x02" * 200, "notes.zip"),
        fake.attachment(b"", "empty.txt", content_type="text/plain"),
    )
    said = (
        f"\n\n{SUPPORTED}; “notes.zip” is none of those.\n"
        "“empty.txt” is empty, so there is nothing in it to read."
    )

    def answers() -> list[str]:  # each message as it reads now (the answer streams by edits)
        return [fake.messages[m["id"]]["content"] for m in fake.sent]

    await fake.dispatch_message("what is this?", author=scott, channel_id="900", attachments=files)
    await fake.wait_for(lambda: any(answer.endswith(said) for answer in answers()))
    [call] = llm.calls
    assert len(call.messages[-1].pictures) == 1
    assert "[picture: what is this?]" in call.messages[-1].text
    [answer] = answers()
    assert answer.startswith("echo: [picture: what is this?]")
