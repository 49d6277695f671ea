"""Chat platform adapters: platform I/O and formatting only, no business logic.

::

    base.py      the seam: Incoming, Adapter, AdapterContext, AdapterSettings
    registry.py  a platform by name: its config section validated, its adapter created
    console/ matrix/ telegram/ discord/ nctalk/   one package a platform

Each platform's ``adapter`` module exposes ``Settings`` (a pydantic model of its
``[adapters.<name>]`` config section) and ``create(settings, context) -> Adapter``. The daemon
loads them by name through :func:`adapters.registry.load`. The web console's adapter lives
with the console, in :mod:`bot.web.adapter`.
"""

__all__: list[str] = []
