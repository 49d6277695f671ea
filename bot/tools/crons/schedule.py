"""Cron schedules of CRONS.json: five crontab fields read in the user's time zone.

:func:`parse_schedule` turns ``minute hour day-of-month month day-of-week`` into an
APScheduler trigger, weekdays counted as in crontab (0 or 7 is Sunday, 1 Monday); when both
day-of-month and day-of-week are restricted, both must match. A schedule that cannot be read
raises :class:`ValueError` with a sentence saying what is wrong. :func:`check_schedule` also
refuses schedules the model may not add (more often than :data:`MIN_INTERVAL`), and
:func:`fire_due` finds the latest fire time a job has not run for yet.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo

from apscheduler.triggers.cron import CronTrigger

__all__ = ["MIN_INTERVAL", "check_schedule", "fire_due", "parse_schedule"]

#: the shortest gap allowed between two runs of a job added through the tools
MIN_INTERVAL = timedelta(minutes=10)
_ONE_SECOND = timedelta(seconds=1)
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_FULL_DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
#: usual shortenings that are no beginning of the day's name
_DAY_ALIASES = {"weds": 3}


def _day(token: str) -> int:
    if token.isdigit() and 0 <= int(token) <= 7:
        return int(token)
    if token in _DAY_ALIASES:
        return _DAY_ALIASES[token]
    # a name or a shortening of one ("mon", "thurs", "monday"); a word that only starts like
    # one ("monxyz", "sunshine") is a mistake, not a day
    for day, name in enumerate(_FULL_DAY_NAMES):
        if len(token) >= 3 and name.startswith(token):
            return day
    raise ValueError(f"{token!r} is not a weekday (0-7, sun-sat or a day's name)")


def _weekdays(field: str) -> str:
    """A crontab day-of-week field as APScheduler day names (APScheduler 3 counts 0 as
    Monday, crontab as Sunday, so numbers are never passed through)."""
    if field in ("*", "?"):
        return "*"
    days: set[int] = set()
    for part in field.lower().split(","):
        span, _, step_text = part.partition("/")
        if not step_text.isdigit() and step_text:
            raise ValueError(f"{part!r}: the step must be a number")
        step = int(step_text) if step_text else 1
        if step < 1:
            raise ValueError(f"{part!r}: the step must be at least 1")
        if span == "*":
            low, high = 0, 6
        elif "-" in span:
            first, last = span.split("-", 1)
            low, high = _day(first), _day(last)
        else:
            low = _day(span)
            high = 6 if step_text else low
        if low > high:
            raise ValueError(f"{part!r}: the range runs backwards")
        days.update(day % 7 for day in range(low, high + 1, step))
    return ",".join(_DAY_NAMES[day] for day in sorted(days))


def parse_schedule(expr: str, zone: tzinfo) -> CronTrigger:
    """A five-field crontab expression as a trigger in ``zone``; ValueError says what is wrong."""
    fields = expr.split()
    if len(fields) != 5:
        raise ValueError(
            f"{expr!r} has {len(fields)} field(s); a schedule has five: minute hour "
            "day-of-month month day-of-week, e.g. '0 7 * * *' for 07:00 every day"
        )
    try:
        fields[4] = _weekdays(fields[4])
        return CronTrigger.from_crontab(" ".join(fields), timezone=zone)
    except ValueError as exc:
        raise ValueError(f"{expr!r} is not a valid schedule: {exc}") from None


def _repeated(trigger: CronTrigger, fire: datetime) -> bool:
    """Whether ``fire`` is the second pass of a wall time the clocks go back over, for a job
    at fixed hours ("30 1 * * *", "0 1,13 * * *"): as in cron, such a job runs once that
    night, not twice; one whose hours start with "*" runs in every real hour it names."""
    if fire.replace(fold=0).utcoffset() == fire.utcoffset():
        return False  # not the second of two equal local times
    hours = next(field for field in trigger.fields if field.name == "hour")
    return not str(hours).startswith("*")  # "*", "*/2": every so many real hours


def fire_due(trigger: CronTrigger, since: datetime, now: datetime) -> datetime | None:
    """The latest fire time after ``since`` and not after ``now``, or None.

    Times are compared as instants: two local times of one zone compare by their clock face
    alone, so on the night clocks go back 01:30 of the second pass would count as passed at
    01:31 of the first. The second pass of a fixed-hour job's time is skipped
    (:func:`_repeated`)."""
    limit = now.astimezone(UTC)
    latest: datetime | None = None
    fire: datetime | None = trigger.get_next_fire_time(None, since.astimezone(UTC) + _ONE_SECOND)
    for _ in range(10_000):
        if fire is None or fire.astimezone(UTC) > limit:
            break
        if not _repeated(trigger, fire):
            latest = fire
        fire = trigger.get_next_fire_time(None, fire.astimezone(UTC) + _ONE_SECOND)
    return latest


def check_schedule(expr: str, zone: tzinfo, now: datetime) -> CronTrigger:
    """:func:`parse_schedule`, also refusing schedules that would run more often than
    :data:`MIN_INTERVAL` (each run is a paid model call)."""
    trigger = parse_schedule(expr, zone)
    fire = trigger.get_next_fire_time(None, now)
    if fire is None:
        raise ValueError(f"{expr!r} never runs")
    for _ in range(60):
        following = trigger.get_next_fire_time(None, fire + _ONE_SECOND)
        if following is None:
            break
        if following - fire < MIN_INTERVAL:
            minutes = int(MIN_INTERVAL.total_seconds() // 60)
            raise ValueError(f"{expr!r} runs more often than every {minutes} minutes")
        fire = following
    return trigger
