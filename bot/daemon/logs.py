"""Structured logs: JSON lines in the daemon, readable lines in a terminal, secrets redacted.

Every event is a name with fields (``log.info("turn.done", ms=812)``); request context (user,
persona, platform, event id) is bound once per turn through context variables. The
:func:`redact` processor runs last before rendering, so no secret reaches a log by accident:
fields whose names look secret are masked, known secret values (API keys, bot tokens read from
the environment at start) are replaced wherever they appear, and strings shaped like common
tokens are masked; the standard library's records (libraries' own lines, asyncio's tracebacks)
are masked the same way (:func:`mask_secrets`). While a turn is Off The Record (``otr=True``
bound in its context),
:func:`withhold_off_the_record` keeps only the fields that name things (user, persona, room,
counts, the error's kind) and replaces every other text, tracebacks and model error bodies
included, so nothing said Off The Record reaches a log line at any level.
"""

from __future__ import annotations

import contextvars
import logging
import re
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, Literal, TextIO

import structlog

__all__ = [
    "NOISY_LIBRARIES",
    "bound",
    "configure_logging",
    "mask_secrets",
    "redact",
    "register_secret",
    "register_secrets_from_env",
    "withhold_off_the_record",
]

#: libraries whose warnings are routine chatter: only their errors are logged above debug
NOISY_LIBRARIES = ("nio",)

_SECRET_KEYS = re.compile(r"(token|secret|password|passwd|api[_-]?key|authorization|cookie)", re.I)
_SECRET_SHAPES = re.compile(
    r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[baprs]-[A-Za-z0-9\-]{10,}|\d{6,12}:[A-Za-z0-9_\-]{30,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{16,})"
)
_MASK = "[redacted]"
_WITHHELD = "[withheld: off the record]"
# fmt: off
#: the text fields an Off The Record log line keeps: names and kinds, never what was said
_NAMING_FIELDS = frozenset(
    {
        "event", "level", "timestamp", "logger", "user", "persona", "platform", "room",
        "event_id", "adapter", "command", "kind", "reason", "file", "tool", "status",
    }
)
# fmt: on
_known_secrets: set[str] = set()
_longest_first: tuple[str, ...] = ()


class bound:  # named like the function it reads as: ``with bound(user=user):``
    """Bind request context for the code inside the block, then put back what was there.

    Like structlog's ``bound_contextvars``, without reading every context variable first
    (which a turn would do three times): the tokens from binding reset it exactly.
    """

    __slots__ = ("_tokens", "_values")

    def __init__(self, **values: Any) -> None:
        self._values = values
        self._tokens: Mapping[str, contextvars.Token[Any]] = {}

    def __enter__(self) -> None:
        self._tokens = structlog.contextvars.bind_contextvars(**self._values)

    def __exit__(self, *exc: object) -> None:
        structlog.contextvars.reset_contextvars(**self._tokens)


def register_secret(value: str | None) -> None:
    """Mask ``value`` wherever it would appear in a log (ignored when short)."""
    global _longest_first
    if value and len(value) >= 8 and value not in _known_secrets:
        _known_secrets.add(value)
        # a secret that holds another is masked whole, not around the shorter one
        _longest_first = tuple(sorted(_known_secrets, key=len, reverse=True))


def register_secrets_from_env(env: MutableMapping[str, str] | dict[str, str]) -> None:
    for name, value in env.items():
        if _SECRET_KEYS.search(name):
            register_secret(value)


def mask_secrets(text: str) -> str:
    """``text`` with every known secret value and every token-shaped string masked: what a
    log line gets, for a report printed elsewhere (``check-config --probe``)."""
    for secret in _longest_first:
        if secret in text:
            text = text.replace(secret, _MASK)
    return _SECRET_SHAPES.sub(_MASK, text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {k: (_MASK if _SECRET_KEYS.search(str(k)) else _clean(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_clean(v) for v in value)
    return value


def redact(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    for key in list(event_dict):
        if _SECRET_KEYS.search(key) and key != "event":
            event_dict[key] = _MASK
        else:
            event_dict[key] = _clean(event_dict[key])
    return event_dict


def withhold_off_the_record(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    if event_dict.get("otr") is not True:
        return event_dict
    for key, value in event_dict.items():
        if key not in _NAMING_FIELDS and not isinstance(value, (bool, int, float)):
            event_dict[key] = _WITHHELD
    return event_dict


class _OffTheRecordFilter(logging.Filter):
    """The same for the standard library's log records (libraries' own warnings)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if structlog.contextvars.get_contextvars().get("otr") is True:
            record.msg, record.args = _WITHHELD, ()
            record.exc_info = record.exc_text = None
        return True


class _MaskingFormatter(logging.Formatter):
    """The standard library's records, their tracebacks included, masked like structlog's."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_secrets(super().format(record))


class _Stderr:
    """Whatever ``sys.stderr`` is at the moment of writing (it may be replaced after setup)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def configure_logging(
    *,
    fmt: Literal["auto", "json", "console"] = "auto",
    level: str = "info",
    stream: TextIO | None = None,
) -> None:
    """Set up structlog (and route the standard library's logging through it)."""
    stream = stream or _Stderr()  # type: ignore[assignment]
    assert stream is not None
    if fmt == "auto":
        fmt = "console" if stream.isatty() else "json"
    shared: Iterable[Any] = (
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        withhold_off_the_record,
        redact,
    )
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    numeric = logging.getLevelName(level.upper())
    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_MaskingFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    handler.addFilter(_OffTheRecordFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(max(numeric, logging.WARNING))
    # nio warns of every long poll that ends empty ("Timed out, sleeping for 0s", every few
    # seconds) and of each retry it makes itself; the adapter logs what matters of those as its
    # own events, so above debug only nio's errors are let through
    quiet = logging.NOTSET if numeric <= logging.DEBUG else logging.ERROR
    for name in NOISY_LIBRARIES:
        logging.getLogger(name).setLevel(quiet)
