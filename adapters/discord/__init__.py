"""Discord: a bot account on the gateway, through discord.py.

::

    adapter.py   DiscordAdapter, Settings, create()
    settings.py  the ``[adapters.discord]`` section and discord.py's endpoints
    client.py    the discord.py client: gateway events in, health and reconnects out
    incoming.py  Discord events reduced to Incoming: messages and slash commands
    commands.py  slash commands from the command table, interactions awaiting a reply
    send.py      answers, their edits, voice messages and typing notices
    media.py     attachments in (fetched under a cap), voice messages out
"""

__all__: list[str] = []
