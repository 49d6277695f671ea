"""Chat platform adapters: platform I/O and formatting only, no business logic.

Each platform module exposes ``Settings`` (a pydantic model of its config section) and
``create(settings, context) -> Adapter``. The daemon loads them by name through
:func:`adapters.registry.load`.
"""

__all__: list[str] = []
