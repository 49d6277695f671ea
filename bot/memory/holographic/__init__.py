"""The ``holographic`` memory backend: facts bound into HRR vectors in ``holographic.db``.

The backend class is :class:`bot.memory.holographic.backend.HolographicMemory`.
"""

__all__: list[str] = []
