"""What a session is given and what its turn gives back, named by the session and each of
its parts (:mod:`bot.turn.session_memory`, :mod:`bot.turn.session_prompt`,
:mod:`bot.turn.unanswered`).

:class:`SessionDeps` is what every session shares: the settings, the stores, the chat model,
the clock, the identity observer and the fact extractor. :class:`TurnOutcome` is one turn's
exchange: the reply as it was said, and the two entries the conversation and the session log
keep of it, their secrets withheld.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.delivery.state import StateStore
from bot.llm.base import LLMBackend
from bot.memory.extraction import FactExtractor
from bot.persona.identity.observer import IdentityObserver
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.tools.clock import Clock, utc_now
from bot.turn.conversation import Entry
from bot.turn.rooms import Room

__all__ = ["SessionDeps", "TurnOutcome"]


@dataclass(slots=True)
class SessionDeps:
    """What every session shares."""

    config: Config
    store: PersonaStore
    state: StateStore
    chat_llm: LLMBackend
    context_window: int
    clock: Clock = utc_now
    identity: IdentityObserver | None = None
    #: the model that proposes a finished session's facts (None: the backend's own rules)
    extractor: FactExtractor | None = None


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    reply: str
    user_entry: Entry
    reply_entry: Entry
    otr: bool
    room: Room
    #: the secret values the user's message carried: whatever keeps the reply on disk (the
    #: outbox) withholds them as the session log did
    secrets: tuple[tuple[str, str], ...] = ()
