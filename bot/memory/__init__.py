"""Memory: the always-injected file layer and one active backend (:mod:`bot.memory.base`).

One package a backend (``sqlite/``, ``holographic/``, ``honcho/``), the episodes of a day
(``episodes/``), and the session logs distilled into the MEMORY_* files (``distill/``). The
write policy (``policy*.py``, ``sentences.py``, ``prefilter.py``) decides what may be kept,
and ``secrets/`` withholds every secret before anything is written.
"""

__all__: list[str] = []
