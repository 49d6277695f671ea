"""The persona's tools: what the model may call during a turn, and the background jobs that
share their files.

The import graph runs one way, from the bottom up::

    registry       Tool, ToolRegistry, CallLimits (nothing of this package)
    clock, jsonlist, backoff
    gate           which tools a turn may use (TurnMode)
    loop           the bounded tool loop
    scratch, tasks, reminders/, crons/   each feature's file, tools and minute job
    catalog        every persona tool of a turn, through the gate
    jobs           the every-minute jobs the daemon schedules
"""

__all__: list[str] = []
