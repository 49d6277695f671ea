"""The daemon: the wiring of one asyncio process, its command line and its HTTP surfaces.

::

    cli.py           the ``personad`` command line (``run``, ``chat``, ``init``, ...)
    daemon.py        Daemon: the process and its parts; drain, stop, signals, reload
    start_up.py      the start: everything built and wired together in order
    scheduled_jobs.py
                     what runs on a schedule: idle sessions, pruning, minute jobs, distillation
    api.py           the bearer-token HTTP API (``/healthz``, ``/status``, ``/distill``, ...)
    api_input.py     strict reading of the API's query strings and JSON bodies
    health.py        whether each adapter does its job, and why not
    model_health.py  whether the chat model answers
    healthcmd.py     ``personad health``: ask a running daemon's ``/healthz``
    watchdog.py      restart an adapter whose connection went silent
    scheduler.py     background jobs behind one small API
    notify.py        notices to a user outside a conversation
    logs.py          structured logs, bound per request, secrets redacted
    errors.py        the root of personad's exception tree
    disk.py          threads for the blocking file work of a turn
    invocation.py    how to run personad again, as this process was run (printed commands)
    connection_reason.py
                     why a connection to a server failed, in words a person can act on
"""

__all__: list[str] = []
