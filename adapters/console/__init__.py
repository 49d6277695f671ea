"""The local console: stdin in, stdout out (``personad chat``).

::

    adapter.py  ConsoleAdapter, Settings, create()
"""

__all__: list[str] = []
