"""What the identity observer can learn: each trait kind, where it is written, and its wording.

A kind names the file its bullet goes to (VOICE.md for tone, style, lexicon, language and
names; PERSONA.md for the self-model: initiative and the expertise the user relies on), how many
sightings an *inferred* trait needs before it is applied, and whether its values compete.
Competing ("exclusive") values share one bullet: a new length preference replaces the old one.
Non-exclusive kinds (expertise, nicknames for the persona) get one bullet per value.
Explicit requests are always applied at the first sighting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.persona.identity.traits import Trait

__all__ = [
    "DEFAULT_THRESHOLDS",
    "EXPLICIT_THRESHOLD",
    "KINDS",
    "LANGUAGE_NAMES",
    "KindSpec",
    "bullet_text",
    "resolve_thresholds",
    "slot_key",
]

#: explicit requests are applied the first time they are seen
EXPLICIT_THRESHOLD = 1


@dataclass(frozen=True, slots=True)
class KindSpec:
    kind: str
    file: str
    threshold: int
    exclusive: bool = True


KINDS: dict[str, KindSpec] = {
    spec.kind: spec
    for spec in (
        KindSpec("length", "VOICE.md", 5),
        KindSpec("language", "VOICE.md", 3),
        KindSpec("emoji", "VOICE.md", 3),
        KindSpec("user_name", "VOICE.md", 2),
        KindSpec("persona_nickname", "VOICE.md", 2, exclusive=False),
        KindSpec("register", "VOICE.md", 2),
        KindSpec("humour", "VOICE.md", 2),
        KindSpec("formality", "VOICE.md", 3),
        KindSpec("format", "VOICE.md", 2),
        KindSpec("initiative", "PERSONA.md", 2),
        KindSpec("expertise", "PERSONA.md", 3, exclusive=False),
    )
}

#: sightings an inferred trait needs, per kind (explicit requests need one)
DEFAULT_THRESHOLDS: dict[str, int] = {kind: spec.threshold for kind, spec in KINDS.items()}

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "pt": "Portuguese",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
}

_EXPERTISE: dict[str, str] = {
    "programming": "programming and technical questions: code, debugging, tools",
    "cooking": "cooking: recipes, techniques, what to make with what is at hand",
    "money": "money matters: budgets, bills, taxes, saving",
    "fitness": "training and fitness: workouts, running, what to eat around them",
    "travel": "travel: flights, bookings, itineraries, documents",
    "writing": "writing: drafting, rewriting and proofreading texts",
    "gardening": "gardening: plants, soil, watering, pruning",
}

_LINES: dict[tuple[str, str], str] = {
    ("length", "short"): "Keep answers short and direct: lead with the answer, no preamble.",
    ("length", "detailed"): "{user} likes thorough answers: explain the reasoning and details.",
    ("emoji", "none"): "No emojis with {user}.",
    ("emoji", "welcome"): "Emojis are welcome with {user}, used sparingly.",
    ("register", "technical"): (
        "Technical register is fine with {user}: precise terms, code blocks with a language tag."
    ),
    ("register", "plain"): "Plain words with {user}: no jargon; explain technical terms simply.",
    ("humour", "sarcastic"): (
        "{user} enjoys dry humour and irony; sarcasm is welcome when the moment fits."
    ),
    ("humour", "serious"): "Keep a serious tone with {user}: no sarcasm, no jokes.",
    ("humour", "playful"): "Be playful with {user}: light jokes are welcome.",
    ("formality", "casual"): "Casual with {user}: relaxed, everyday wording.",
    ("formality", "formal"): "Formal with {user}: polite, complete sentences, no slang.",
    ("format", "lists"): "Use bullet points when listing things for {user}.",
    ("format", "prose"): "Write prose for {user}; avoid bullet lists.",
    ("initiative", "proactive"): (
        "{user} likes me to take initiative: I suggest next steps and ideas unprompted."
    ),
    ("initiative", "reactive"): (
        "I answer what {user} asks and keep suggestions and follow-up questions to a minimum."
    ),
}


def bullet_text(kind: str, value: str, user: str) -> str:
    """The sentence written into the persona file for ``kind`` = ``value``."""
    if kind == "language":
        name = LANGUAGE_NAMES[value]
        return f"Answer {user} in {name} unless they ask otherwise."
    if kind == "user_name":
        return f"Call {user} “{value}”."
    if kind == "persona_nickname":
        return f"{user} calls me “{value}”; I answer to it happily."
    if kind == "expertise":
        return f"{user} relies on me for {_EXPERTISE[value]}."
    return _LINES[(kind, value)].format(user=user)


_SLOT_UNSAFE = re.compile(r"[^a-z0-9]+")


def slot_key(trait: Trait) -> str:
    """The bullet a trait owns: its kind, plus its value for non-exclusive kinds."""
    if KINDS[trait.kind].exclusive:
        return trait.kind
    safe = _SLOT_UNSAFE.sub("-", trait.value.lower()).strip("-") or "x"
    return f"{trait.kind}:{safe}"


def resolve_thresholds(overrides: Mapping[str, int] | None) -> dict[str, int]:
    """The default thresholds with ``overrides`` applied; unknown kinds and values below 1
    are refused with a message naming the key."""
    thresholds = dict(DEFAULT_THRESHOLDS)
    for kind, value in (overrides or {}).items():
        if kind not in KINDS:
            raise ValueError(f"unknown identity trait kind {kind!r}; known: {', '.join(KINDS)}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"identity threshold for {kind!r} must be a whole number >= 1")
        thresholds[kind] = value
    return thresholds
