"""Whose turn the embedding model is: a question before a bulk embedding's next batch.

The model runs one batch at a time. A bulk embedding (the background fill of a store's older
messages, thousands of texts) takes its turn one batch at a time, and a short call (one batch
or less: a question) that is waiting goes first at the next batch: it waits for at most the
batch that is running, not for the whole fill.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ModelTurns"]


class ModelTurns:
    """One batch on the model at a time, short calls before bulk ones (thread-safe)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        #: short calls waiting for the model: while any is, no bulk batch starts
        self._short_waiting = 0

    @contextmanager
    def turn(self, *, short: bool) -> Iterator[None]:
        """Hold the model for one batch; ``short`` calls go before bulk ones that wait."""
        with self._changed:
            if short:
                self._short_waiting += 1
            try:
                while self._busy or (not short and self._short_waiting):
                    self._changed.wait()
            finally:
                if short:
                    self._short_waiting -= 1
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()
