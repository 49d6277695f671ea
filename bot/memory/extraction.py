"""Extract at the end of a session: the model reads the on-record turns and proposes facts.

When a session ends (``/new``, idle, shutdown) the ``distill_extract`` model role (by default
the chat backend) reads the session's on-record turns and answers with a JSON list of durable
facts, each with a category and a confidence. Each proposal then goes through the same gate as
every write: proposals below :data:`MIN_CONFIDENCE` or in no known category are dropped, a
proposal holding a secret is dropped whole, and the rest are stored through the backend's
``add`` (the write policy decides again; a duplicate reinforces). A new item keeps the model's
confidence (clamped to 0..1), not the sentence rules' guess, so its citation and
``personad memory explain`` show how sure the model was. The turns of each audience (a direct
room, each shared room: :attr:`TurnRecord.audience`) are read separately, so a fact keeps the
label of where it was said and the model never reads one room's words beside another's. When the
model fails or answers nothing usable, the backend's own rule-based ``extract`` runs instead,
so a session end always stores what it can. Off The Record turns are never queued for
extraction, so the model never sees them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from bot.daemon.errors import LLMError
from bot.llm.base import LLMBackend, Message, SystemPrompt
from bot.memory.base import (
    CATEGORIES,
    Category,
    MemoryBackend,
    TurnRecord,
    clamp_confidence,
)
from bot.memory.policy import find_secrets, redact_secrets

__all__ = ["EXTRACT_ROLE", "MIN_CONFIDENCE", "FactExtractor", "Proposal", "parse_proposals"]

log = structlog.get_logger(__name__)

EXTRACT_ROLE = "distill_extract"
MIN_CONFIDENCE = 0.5
_MAX_FACTS = 20

_PROMPT = """Below is a conversation between {user} and me, {persona}. List the durable facts
worth remembering about {user} or their world: stable facts, preferences, decisions, skills,
mistakes to avoid. Leave out small talk, one-off moods and anything secret (passwords, keys,
card or account numbers). Answer with only a JSON list, each item
{{"fact": "one short sentence", "category": "fact|preference|decision|skill|error",
"confidence": 0.0-1.0}}. Answer [] when there is nothing durable.

{transcript}"""


@dataclass(frozen=True, slots=True)
class Proposal:
    text: str
    category: Category
    confidence: float


def parse_proposals(answer: str) -> list[Proposal]:
    """The usable proposals of the model's answer (a JSON list, possibly in prose or a code
    fence); anything malformed is skipped, never raised."""
    start, end = answer.find("["), answer.rfind("]")
    if start < 0 or end <= start:
        return []
    try:
        items = json.loads(answer[start : end + 1])
    except ValueError:
        return []
    proposals: list[Proposal] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        text, category, confidence = item.get("fact"), item.get("category"), item.get("confidence")
        if not isinstance(text, str) or not text.strip() or category not in CATEGORIES:
            continue
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            continue
        if not math.isfinite(confidence) or confidence < MIN_CONFIDENCE:
            continue
        if find_secrets(text):
            continue
        proposals.append(Proposal(" ".join(text.split()), category, clamp_confidence(confidence)))
    return proposals[:_MAX_FACTS]


def _transcript(turns: Sequence[TurnRecord]) -> str:
    lines = []
    for turn in turns:
        lines.append(f"[{turn.at:%Y-%m-%d %H:%M}] {turn.user}: {turn.user_text.strip()}")
        lines.append(f"[{turn.at:%Y-%m-%d %H:%M}] {turn.persona}: {turn.reply_text.strip()}")
    return redact_secrets("\n".join(lines))


class FactExtractor:
    """Asks the ``distill_extract`` model for a finished session's durable facts."""

    def __init__(self, llm: LLMBackend) -> None:
        self.llm = llm

    async def propose(self, turns: Sequence[TurnRecord]) -> list[Proposal]:
        first = turns[0]
        prompt = _PROMPT.format(
            user=first.user, persona=first.persona, transcript=_transcript(turns)
        )
        completion = await self.llm.complete(
            system=SystemPrompt(stable="You extract durable memories. Answer only JSON."),
            messages=[Message("user", prompt)],
        )
        return parse_proposals(completion.text)

    async def extract(self, memory: MemoryBackend, turns: Sequence[TurnRecord]) -> int:
        """Store the session's proposed facts; the backend's own ``extract`` when the model
        fails. Returns how many new memories were stored."""
        stored = 0
        fallback: list[TurnRecord] = []
        audiences: dict[str, list[TurnRecord]] = {}
        for turn in turns:
            audiences.setdefault(turn.audience, []).append(turn)
        for audience, group in audiences.items():
            try:
                proposals = await self.propose(group)
            except LLMError as exc:
                log.warning("memory.extract_model_failed", error=str(exc), turns=len(group))
                fallback += group
                continue
            source = f"extract {group[-1].platform} {group[-1].at:%Y-%m-%d}"
            for proposal in proposals:
                result = await memory.add(
                    proposal.text,
                    source=source,
                    category=proposal.category,
                    audience=audience,
                    confidence=proposal.confidence,
                )
                stored += int(result.stored)
            log.info("memory.extract_proposed", audience=audience, proposed=len(proposals))
        if fallback:
            stored += await memory.extract(fallback)
        return stored
