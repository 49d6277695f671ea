"""Once started, the daemon freezes what start-up made and collects cycles less often."""

from __future__ import annotations

import gc

from bot.daemon.gc_settings import THRESHOLDS, settle_collector


def test_settling_freezes_the_start_up_objects_and_raises_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        settle_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == THRESHOLDS
        # cycles made afterwards are still collected
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
