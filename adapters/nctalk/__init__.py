"""Nextcloud Talk, as a webhook bot.

::

    adapter.py  NCTalkAdapter, Settings, create()
    webhook.py  the HTTP endpoint Talk delivers webhooks to
    payload.py  a webhook payload (Activity Streams 2.0) read into an Incoming
    signing.py  the shared-secret signatures, both directions
    client.py   posting messages through the OCS bot API
"""

__all__: list[str] = []
