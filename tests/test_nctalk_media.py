"""Files shared in Nextcloud Talk: they arrive as attachments with their caption, and the bot
says plainly that it cannot read them; it has no spoken answers."""

from __future__ import annotations

import pytest

from adapters.nctalk.adapter import NCTalkAdapter
from bot.daemon.errors import MediaError
from tests.test_nctalk import Rig, rig

__all__ = ["rig"]


async def test_shared_file_is_an_attachment_with_its_link(rig: Rig) -> None:
    delivery = await rig.talk.deliver_file(
        name="scan.pdf", mimetype="application/pdf", size=48213, message_id=31
    )
    assert delivery.status == 200
    incoming = await rig.next_incoming()
    assert (incoming.kind, incoming.text, incoming.event_id) == ("attachment", "", "31")
    [attachment] = incoming.attachments
    assert attachment.ref == f"{rig.talk.url}/f/881"
    assert (attachment.name, attachment.mime, attachment.size) == (
        "scan.pdf",
        "application/pdf",
        48213,
    )


async def test_a_caption_is_the_text_and_can_address_the_bot(rig: Rig) -> None:
    await rig.talk.deliver_file(room="grp", caption="@inara what is on this photo?", message_id=32)
    incoming = await rig.next_incoming()
    assert incoming.addressed and not incoming.is_direct
    assert (incoming.kind, incoming.text) == ("attachment", "what is on this photo?")
    assert [a.name for a in incoming.attachments] == ["holiday.jpg"]


async def test_download_says_talk_files_cannot_be_read(rig: Rig) -> None:
    await rig.talk.deliver_file(message_id=33)
    [attachment] = (await rig.next_incoming()).attachments
    with pytest.raises(MediaError) as caught:
        await rig.adapter.download(attachment, limit=10_000_000)
    sentence = caught.value.user_message
    assert "can't read files shared in Nextcloud Talk" in sentence
    assert "paste the text" in sentence
    assert rig.talk.requests == []  # nothing was asked of the server


def test_talk_bots_have_no_voice() -> None:
    assert not NCTalkAdapter.supports_voice
