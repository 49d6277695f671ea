"""The root of personad's exception tree.

Each layer raises its own subclass; a library's error is translated at the boundary with
``raise ... from exc`` so the user sees a clear sentence and the log keeps the cause::

    PersonadError
    ├── ConfigError          a configuration value is wrong (names the key)
    ├── NameRejected         a user or persona name would escape its folder
    ├── PersonaError         a persona is missing or one of its files cannot be read
    ├── StoreError           the daemon's SQLite state cannot be read or written
    ├── LLMError             the language model could not answer
    │   ├── LLMTransientError    worth another try (429, 5xx, overloaded, time-out)
    │   ├── ContextOverflow      the request was longer than the model's context window
    │   └── RequestRejected      the server refused the request as invalid (a 4xx): the
    │                            same message would be refused again
    ├── MemoryStoreError     a memory backend failed
    ├── MediaError           a picture, voice note or document cannot be used (too big, an
    │                        unsupported type, a download or a media server failed)
    └── AdapterError         a chat platform misbehaved
        ├── CredentialsRejected  the platform refused the bot's token or password: trying
        │                        again cannot help, the adapter is reported failed
        └── PermanentSendError   the platform refused a message for good (the bot was
                                 removed from the room or blocked, the room is gone):
                                 sending again cannot help, the outbox gives it up

Every ``PersonadError`` carries a ``user_message``: one sentence safe to show in a chat.
"""

from __future__ import annotations

__all__ = [
    "AdapterError",
    "ConfigError",
    "ContextOverflow",
    "CredentialsRejected",
    "LLMError",
    "LLMTransientError",
    "MediaError",
    "MemoryStoreError",
    "NameRejected",
    "PermanentSendError",
    "PersonaError",
    "PersonadError",
    "RequestRejected",
    "StoreError",
    "is_permanent",
]


class PersonadError(Exception):
    """Base of every error personad raises on purpose."""

    def __init__(self, message: str, *, user_message: str | None = None) -> None:
        super().__init__(message)
        self.user_message = user_message or message


class ConfigError(PersonadError):
    """A configuration value is missing or wrong."""


class NameRejected(PersonadError):
    """A user or persona name is not a safe folder name."""


class PersonaError(PersonadError):
    """A persona is missing, or one of its files cannot be read."""


class StoreError(PersonadError):
    """The daemon's own state database failed."""


class MediaError(PersonadError):
    """An attachment cannot be used, or a media server (transcription, speech) failed:
    ``user_message`` is the one sentence the user gets, below the answer to the rest of the
    message, or instead of an answer when nothing else of the message can be answered."""


class LLMError(PersonadError):
    """The language model could not give an answer."""


class LLMTransientError(LLMError):
    """A failure that may pass: rate limit, server error, overload or time-out."""

    def __init__(
        self, message: str, *, user_message: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, user_message=user_message)
        self.retry_after = retry_after


class MemoryStoreError(PersonadError):
    """A memory backend could not read or write."""


class AdapterError(PersonadError):
    """A chat platform connection failed or answered something unexpected."""


class CredentialsRejected(AdapterError):
    """The platform refused the bot's credentials (a wrong token, password or secret): the
    adapter cannot start until the configuration changes, so it is not retried."""


class PermanentSendError(AdapterError):
    """The platform answered a send or an edit with a refusal that holds for good: the bot
    was kicked from the room or blocked by the user, it lacks access, or the room does not
    exist. Rate limits, server errors and network failures are never this: they pass."""


def is_permanent(exc: BaseException) -> bool:
    """Whether an adapter that failed to start with ``exc`` can only start after someone
    changes its configuration (a missing secret, rejected credentials)."""
    return isinstance(exc, ConfigError | CredentialsRejected)


class ContextOverflow(LLMError):
    """The prompt and conversation did not fit the model's context window."""


class RequestRejected(LLMError):
    """The model server refused the request itself as invalid (HTTP 400, 422 ...): sending
    the same conversation again would be refused again."""
