"""The chat commands every platform shares: ``/help``, ``/otr``, ``/status``, ``/search``, ...

::

    table.py     Command, CommandContext, what a command may ask of the router, the table itself
    handlers.py  what each command does; importing it fills the table
    sharing.py   ``/shared``, ``/share``, ``/unshare``: what every room may know
"""

__all__: list[str] = []
