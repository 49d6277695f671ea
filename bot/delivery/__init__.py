"""Delivery: the daemon's durable state and how an answer gets out exactly once.

::

    state.py      StateStore: seen events, settings, adapter state in ``personad.db``
    inbox.py      messages kept until answered, so a restart answers what it cut off
    ledger.py     which messages of an answer are already out
    steps.py      one answer's steps and their idempotency keys
    outbox.py     answers the platform did not take, retried until it does
    backoff.py    the jittered exponential backoff of the outbox and the watchdog
    batching.py   group commit for a busy database
    sqlite_db.py  opening a SQLite database the way every store does
    migrations.py numbered schema migrations
"""

__all__: list[str] = []
