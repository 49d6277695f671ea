"""The chat commands every platform shares: ``/help``, ``/otr``, ``/status``, ``/search``, ...

::

    table.py     Command, CommandContext, CommandHost (what a handler may use of the router),
                 the refusals, the table itself
    handlers.py  what each command does; importing it fills the table
    search.py    ``/search WORDS``: past conversations that mention them
    undo.py      ``/undo``: the persona's newest change to itself reverted
    sharing.py   ``/shared``, ``/share``, ``/unshare``: what every room may know
"""

__all__: list[str] = []
