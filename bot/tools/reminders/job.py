"""The minute job of REMINDERS.md: each due reminder is sent once, then ticked.

Every minute the daemon calls :func:`surface_due` for each persona: each due reminder is sent
once (a private one, from REMINDERS.md, to the user's notification room; a shared room's own,
from ``rooms/<room>/REMINDERS.md``, into that room), then marked done, or moved to its next
time when it recurs. A notice that could not be sent leaves the reminder pending, so it is
tried again the next minute. A reminder is ticked as soon as its notice went out, before the
next one is sent, so a daemon stopped half-way sends none of them twice. The file must take a
write first: when it cannot be saved the persona's reminders wait with a growing pause and the
user gets one notice (:mod:`bot.tools.backoff`), instead of the same reminder every minute.
"""

from __future__ import annotations

from datetime import datetime

import structlog

from bot.daemon.notify import Notifier
from bot.daemon.scheduler import to_the_end
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.setup.config_users import UserConfig
from bot.tools.backoff import backoff_for
from bot.tools.reminders.checklist import (
    FILENAME,
    Reminder,
    UnreadableFile,
    advance,
    due,
    edit_reminders,
    format_notice,
    mark_done,
    parse_reminders,
    replace_lines,
    reschedule,
)
from bot.turn.audience import Audience

__all__ = ["surface_due"]

log = structlog.get_logger(__name__)


async def surface_due(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    user: str,
    persona: str,
    now: datetime,
) -> int:
    """Send each due reminder of one persona: the private ones (REMINDERS.md) to the user's
    notification room, each shared room's own into that room; returns how many were sent.
    Sent ones are ticked (or moved on, when recurring); the rest wait."""
    sent = 0
    for audience in store.audiences(user, persona):
        sent += await _surface(store, notifier, config, user, persona, now, audience)
    return sent


async def _surface(
    store: PersonaStore,
    notifier: Notifier,
    config: Config,
    user: str,
    persona: str,
    now: datetime,
    audience: Audience,
) -> int:
    path = audience.own(FILENAME)
    zone = (config.users.get(user) or UserConfig()).zone
    local = now.astimezone(zone)
    holds = backoff_for(store)
    if holds.waiting(user, persona, path, now):
        return 0
    file = store.read(user, persona, path)
    if file.problem:
        log.warning("reminders.unreadable", user=user, persona=persona, problem=file.problem)
        return 0
    pending = due(parse_reminders(file.text), local)
    if not pending:
        return 0
    try:
        # a sent reminder is ticked afterwards; a file that cannot take that write would
        # have it sent again every minute, so the file proves it can be saved first
        await edit_reminders(store, user, persona, lambda lines: lines, path)
    except OSError as exc:
        await holds.failed(notifier, user, persona, path, exc, now)
        return 0
    except UnreadableFile:
        return 0
    sent = 0
    for reminder in pending:
        notice = format_notice(reminder, persona, local)
        # the same name on every try: a platform that took it but answered an error gets
        # the reminder once (the line holds its time, so each occurrence has its own)
        key = f"reminder:{user}/{persona}:{audience.label}:{reminder.raw}"
        if not await notifier.notify_audience(user, audience, notice, key=key):
            log.info("reminder.deferred", user=user, persona=persona, line=reminder.line)
            continue
        sent += 1
        try:
            await _tick(store, user, persona, path, reminder, local)
        except UnreadableFile as exc:
            log.warning("reminders.unreadable", user=user, persona=persona, problem=str(exc))
        except OSError as exc:
            await holds.failed(notifier, user, persona, path, exc, now)
            return sent
    if sent:
        log.info("reminders.surfaced", user=user, persona=persona, sent=sent)
    holds.succeeded(user, persona, path)
    return sent


async def _tick(
    store: PersonaStore, user: str, persona: str, path: str, reminder: Reminder, local: datetime
) -> None:
    """Tick a reminder whose notice went out (or move it on, when it recurs), at once and
    to the end: a daemon stopped or killed while the next notice goes out must not send
    this one again after its restart."""
    if reminder.every is None:
        new = mark_done(reminder.raw)
    else:
        new = reschedule(reminder.raw, advance(reminder, local))
    change = edit_reminders(
        store, user, persona, lambda lines: replace_lines(lines, [(reminder, new)]), path
    )
    await to_the_end(change)
