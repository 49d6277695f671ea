"""What the ``honcho`` backend recalls: the server's answers minus what the ledger hides.

Honcho cannot forget, so everything it returns is checked against the ledger
(:mod:`bot.memory.honcho.ledger`): a conclusion or message marked forgotten or superseded there
is left out of a recall, and a line of the representation that says a hidden sentence is left
out of the injected text. Hits of conclusions personad wrote carry the ledger's item (category,
source, confidence); conclusions Honcho derived itself are trusted by their reasoning level.
Messages, the user's and the persona's, come back as episodes, cited with the day they were
said and where (``[episode · 2026-05-09 · dm]``): personad sends every message with its turn's
time to the day session of its audience, whose label the ledger keeps.

A recall is given the turn's :class:`~bot.turn.audience.Audience`. In a shared room the message
searches are held to the sessions of that room (the server filters, so no other audience's
message takes a place), and of the conclusions only those the ledger records with a label the
room sees are kept. Honcho's own conclusions are left out there: they may rest on what was
said in a direct conversation or another room.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

from honcho import Message

from bot.memory.base import MemoryHit, MemoryItem
from bot.memory.episodes.time_query import read_time
from bot.memory.honcho.client import HonchoClient
from bot.memory.honcho.ledger import HonchoLedger
from bot.memory.normal_form import normalise_text
from bot.memory.reinforcement import once_each
from bot.turn.audience import DIRECT, DIRECT_ROOM, Audience

__all__ = ["LEVEL_CONFIDENCE", "recall", "visible_representation"]

#: how much a Honcho-derived conclusion is trusted, by its reasoning level
LEVEL_CONFIDENCE = {"explicit": 0.7, "deductive": 0.6, "inductive": 0.5, "contradiction": 0.3}


async def recall(
    client: HonchoClient,
    ledger: HonchoLedger,
    query: str,
    limit: int,
    *,
    now: datetime,
    audience: Audience = DIRECT_ROOM,
) -> list[MemoryHit]:
    """Conclusions about the user first (ranked by Honcho), then past messages of this
    persona's sessions, both sides, as episodes with their date; asked *when*, the messages
    first (only they carry the date). Anything the ledger marks inactive is left out, and
    anything ``audience`` does not see, and, unless asked *when*, a text of one kind that a
    better hit of another audience says. Messages are dated on the day ``now``'s zone (the
    user's) counts."""
    query = query.strip()
    if not query:
        return []
    labels = await ledger.session_audiences()
    sessions = None
    if not audience.private:
        sessions = [session for session, label in labels.items() if audience.sees(label)]
    conclusions, said, replied = await client.search(query, min(100, 2 * limit), sessions=sessions)
    # the server filtered already; a session the ledger does not know (an older version's)
    # counts as direct
    said = [m for m in said if audience.sees(labels.get(m.session_id, DIRECT))]
    replied = [m for m in replied if audience.sees(labels.get(m.session_id, DIRECT))]
    ids = [c.id for c in conclusions] + [m.id for m in (*said, *replied)]
    hidden = await ledger.inactive(ids)
    known = await ledger.by_honcho(ids)
    if not audience.private:
        conclusions = [
            c for c in conclusions if c.id in known and audience.sees(known[c.id].audience)
        ]
    asks_when = read_time(query, now).asks_when
    conclusion_weight, message_weight = (0.5, 1.0) if asks_when else (1.0, 0.5)
    hits: list[MemoryHit] = []
    for rank, conclusion in enumerate(c for c in conclusions if c.id not in hidden):
        item = known.get(conclusion.id) or MemoryItem(
            id=f"honcho:{conclusion.id}",
            text=conclusion.content,
            category="fact",
            source=f"honcho {conclusion.level}",
            confidence=LEVEL_CONFIDENCE.get(conclusion.level, 0.5),
            created_at=conclusion.created_at,
        )
        score = conclusion_weight / (1 + rank)
        hits.append(MemoryHit(item, score, {"conclusion_rank": rank + 1.0}))
    for speaker, messages in (("user", said), ("persona", replied)):
        for rank, message in enumerate(m for m in messages if m.id not in hidden):
            label = labels.get(message.session_id, DIRECT)
            item = _episode(message, speaker, label, now.tzinfo or UTC)
            hits.append(MemoryHit(item, message_weight / (1 + rank), {"message_rank": rank + 1.0}))
    hits.sort(key=lambda hit: hit.score, reverse=True)
    if asks_when:  # each message with its own day
        return hits[:limit]
    # each audience keeps its own copy of what it was told: a text of one kind is shown once
    return once_each(hits, lambda hit: (hit.item.kind, hit.item.text.strip()))[:limit]


def _episode(message: Message, speaker: str, audience: str, zone: tzinfo) -> MemoryItem:
    """A recalled message as an episode: the time it was said (personad sends each message
    with its turn's time) and its session's ``audience``."""
    platform = str((message.metadata or {}).get("platform", ""))
    return MemoryItem(
        id=f"message:{message.id}",
        text=message.content,
        category="fact",
        source=f"{speaker} {platform}".strip(),
        confidence=1.0,
        created_at=_aware(message.created_at).astimezone(zone),
        audience=audience,
        kind="episode",
    )


def visible_representation(representation: str, hidden: set[str], user: str) -> str:
    """The representation without the lines that say a ``hidden`` sentence, nor a sentence
    a line above says (each audience's copy of one statement is a conclusion of its own),
    under a heading naming ``user``; empty when nothing but headings is left."""
    lines: list[str] = []
    said: set[str] = set()
    for line in representation.splitlines():
        sentence = line.split("] ", 1)[-1].strip()
        if normalise_text(sentence) in hidden:
            continue
        if sentence and not line.startswith("#"):
            if sentence in said:
                continue
            said.add(sentence)
        lines.append(line)
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return ""
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return f"What Honcho has learned about {user}:\n{body}"


def _aware(moment: datetime) -> datetime:
    """A server time without a zone is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
