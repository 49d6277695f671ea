"""Telegram, through python-telegram-bot 22 and the Bot API.

::

    adapter.py     TelegramAdapter, Settings, create()
    polling.py     long polling ``getUpdates``, confirmed once a turn is done
    webhook.py     webhook mode on the daemon's own HTTP server
    updates.py     updates reduced to Incoming events, and the command menu
    dispatch.py    concurrent across chats, in order within one chat
    client.py      sending: rendered, cut to size, retried
    media.py       files in (getFile, under a cap) and voice messages out (sendVoice)
    format.py      markdown rendered as HTML or MarkdownV2
    sent_parts.py  how many parts of a long answer already went out
"""

__all__: list[str] = []
