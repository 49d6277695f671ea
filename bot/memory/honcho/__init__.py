"""The ``honcho`` memory backend: a Honcho server with a local ledger in ``honcho.db``.

The backend class is :class:`bot.memory.honcho.backend.HonchoMemory`; it needs the optional
``honcho-ai`` package (``pip install 'personad[honcho]'``).
"""

__all__: list[str] = []
