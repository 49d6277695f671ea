"""Rolling distillation of the session logs into MEMORY_SHORT, MEMORY_MID and MEMORY_LONG.

::

    distiller.py  Distiller: one level for one persona, every audience apart
    schedule.py   when each level is due, what ran last, catching up after downtime
"""

__all__: list[str] = []
