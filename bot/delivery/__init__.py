"""Delivery: the daemon's durable state and how an answer gets out exactly once.

::

    state.py          StateStore: ``personad.db`` opened, its schema; the store's parts:
    claims.py           seen events, each claimed and handled once
    inbox.py            messages kept until answered, so a restart answers what it cut off
    ledger.py           which messages of an answer are already out; the outbox's rows
    user_settings.py    what users chose: Off The Record per room, tier, persona
    key_values.py       small values kept between runs, adapter state among them
    steps.py          one answer's steps and their idempotency keys
    parcel.py         one answer waiting in the outbox
    outbox.py         answers the platform did not take, retried until it does; its parts:
    refusals.py         answers a platform refused for good
    spoken_copies.py    spoken copies, best-effort, tried apart
    backoff.py        the jittered exponential backoff of the outbox and the watchdog
    batching.py       group commit for a busy database
    sqlite_db.py      opening a SQLite database the way every store does
    migrations.py     numbered schema migrations
"""

__all__: list[str] = []
