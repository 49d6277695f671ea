"""The rule-based English and Portuguese parser that turns text into HRR roles.

A statement becomes its roles ("Scott prefers tea for breakfast" → subject=scott,
relation=prefer, object=tea, topic=breakfast) plus its content words; a question becomes the
partial roles it knows and the role it asks ("what does Scott prefer for breakfast" → the
object). Folded words and Portuguese nouns mapped to English (:mod:`bot.memory.holographic.lexicon`)
let a fact told in one language answer a question asked in the other. The roles are what
:class:`bot.memory.holographic.hrr.TraceIndex` encodes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.memory.holographic.lexicon import (
    AUXILIARIES,
    BOUNDARIES,
    COPULAS,
    FIRST_PERSON,
    FUNCTION_WORDS,
    NEGATIONS,
    OF,
    PARTICLES,
    PHRASES,
    POSSESSIVES,
    QUESTION_OPENERS,
    QUESTION_WORDS,
    SECOND_PERSON,
    TOPIC_PREPOSITIONS,
    TRANSLATIONS,
    VERBS,
    WORD,
    fold,
)

__all__ = ["Parsed", "parse"]


@dataclass(frozen=True, slots=True)
class Parsed:
    """What the parser read: role → words, the content words, and what a question asks."""

    roles: dict[str, tuple[str, ...]]
    keywords: tuple[str, ...]
    question: bool = False
    asked: str | None = None

    @property
    def structured(self) -> bool:
        return bool(self.roles.get("relation")) and bool(
            self.roles.get("subject") or self.roles.get("object")
        )


def _tokens(text: str) -> list[str]:
    lowered = text.lower().replace("’", "'").replace("‘", "'")
    lowered = re.sub(r"n't\b", " not", lowered)
    lowered = re.sub(r"\b(what|who|where|when|how)'s\b", r"\1 is", lowered)
    tokens = WORD.findall(lowered)
    merged: list[str] = []
    index = 0
    while index < len(tokens):
        for phrase, meaning in PHRASES.items():
            window = tuple(fold(t) for t in tokens[index : index + len(phrase)])
            if window == phrase:
                merged.append(meaning)
                index += len(phrase)
                break
        else:
            merged.append(tokens[index])
            index += 1
    return merged


def _content(tokens: Sequence[str], *, verbs: bool = False) -> tuple[str, ...]:
    """The words that carry meaning, folded and translated; ``verbs`` also maps inflected
    verbs to their relation ("prefers", "prefiro" → "prefer"), as the keyword role does."""
    words = []
    for token in tokens:
        word = fold(token)
        if word in FUNCTION_WORDS or token in COPULAS:
            continue
        word = TRANSLATIONS.get(word, word)
        words.append(VERBS.get(word, word) if verbs else word)
    return tuple(dict.fromkeys(words))


def _who(tokens: Sequence[str]) -> tuple[str, ...]:
    """A subject: its content words, or ``user`` / ``persona`` for a bare pronoun."""
    content = _content(tokens)
    if content:
        return content
    folded = {fold(t) for t in tokens}
    if folded & FIRST_PERSON:
        return ("user",)
    if folded & SECOND_PERSON:
        return ("persona",)
    return ()


def _owner(tokens: Sequence[str]) -> str | None:
    for token in tokens:
        word = fold(token)
        if word in FIRST_PERSON and word in POSSESSIVES:
            return "user"
        if word in SECOND_PERSON and word in POSSESSIVES:
            return "persona"
    return None


def _until_boundary(tokens: Sequence[str]) -> list[str]:
    for index, token in enumerate(tokens):
        if token in BOUNDARIES:
            return list(tokens[:index])
    return list(tokens)


def _verb_clause(tokens: list[str], at: int, question: bool) -> dict[str, tuple[str, ...]]:
    before, after = tokens[:at], _until_boundary(tokens[at + 1 :])
    relation = VERBS[fold(tokens[at])]
    if any(fold(t) in NEGATIONS for t in before):
        relation = f"not-{relation}"
    while after and fold(after[0]) in PARTICLES:
        after = after[1:]
    split = next((i for i, t in enumerate(after) if t in TOPIC_PREPOSITIONS), len(after))
    thing, topic = _content(after[:split]), _content(after[split + 1 :])
    if not thing and topic and not question:  # "Scott lives in Lisbon": the place is the object
        thing, topic = topic, ()
    return {"subject": _who(before), "relation": (relation,), "object": thing, "topic": topic}


def _copula_clause(tokens: list[str], at: int) -> dict[str, tuple[str, ...]]:
    before, after = tokens[:at], _until_boundary(tokens[at + 1 :])
    value = _content(after)
    if "'s" in before:  # Scott's birthday is March 3
        mark = before.index("'s")
        return {
            "subject": _who(before[:mark]),
            "relation": _content(before[mark + 1 :]),
            "object": value,
        }
    owner = _owner(before)
    if owner and _content(before):  # my wife is Holly
        return {"subject": (owner,), "relation": _content(before), "object": value}
    of = next((i for i, t in enumerate(before) if i > 0 and fold(t) in OF), None)
    if of is not None and _content(before[:of]) and _who(before[of + 1 :]):
        # o aniversário de Scott é 3 de março
        return {
            "subject": _who(before[of + 1 :]),
            "relation": _content(before[:of]),
            "object": value,
        }
    owner = _owner(after)
    if owner and value:  # Holly is my wife
        return {"subject": (owner,), "relation": value, "object": _content(before)}
    return {"subject": _who(before), "relation": ("be",), "object": value}


def _strip_question(tokens: list[str]) -> list[str]:
    folded = [fold(t) for t in tokens]
    start = 0
    if tuple(folded[:2]) in QUESTION_OPENERS:
        start = 2
    elif folded and folded[0] in QUESTION_WORDS:
        start = 1
    while start < len(tokens) and folded[start] in AUXILIARIES:
        start += 1
    rest = tokens[start:]
    if rest and rest[0] in COPULAS:  # "is Scott's birthday" reads as "Scott's birthday is"
        rest = [*rest[1:], rest[0]]
    return rest


def parse(text: str) -> Parsed:
    """Roles of a statement, or the partial roles of a question and the role it asks."""
    tokens = _tokens(text)
    keywords = _content(tokens, verbs=True)
    if not tokens:
        return Parsed({}, keywords)
    question = (
        text.rstrip().endswith("?")
        or fold(tokens[0]) in QUESTION_WORDS
        or tuple(fold(t) for t in tokens[:2]) in QUESTION_OPENERS
    )
    body = _strip_question(tokens) if question else tokens
    verb = next((i for i, t in enumerate(body) if fold(t) in VERBS), None)
    copula = next((i for i, t in enumerate(body) if t in COPULAS), None)
    roles: dict[str, tuple[str, ...]] = {}
    if verb is not None and (copula is None or verb < copula):
        roles = _verb_clause(body, verb, question)
    elif copula is not None:
        roles = _copula_clause(body, copula)
    roles = {role: words for role, words in roles.items() if words}
    asked = None
    if question and roles.get("relation"):
        asked = "subject" if not roles.get("subject") else None
        asked = asked or ("object" if not roles.get("object") else None)
    subject_words = set(roles.get("subject", ()))
    keywords = tuple(dict.fromkeys((*keywords, *subject_words & {"user", "persona"})))
    return Parsed(roles, keywords, question, asked)
