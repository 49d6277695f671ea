"""Reading one message for style traits: explicit requests first, then inferred patterns.

:func:`detect` is pure: text in, :class:`~bot.persona.identity.traits.Trait` list out. Explicit
requests come from the pattern tables in :mod:`bot.persona.identity.traits`; when one kind has
several matches, a match inside a longer one is dropped ("use emojis" inside "don't use emojis") and
the last remaining one wins, so "be brief... no, be more detailed" asks for detail. A kind
asked for explicitly is not also inferred from the same message. Inferred sightings: code and
jargon (technical register, programming expertise), domain vocabulary (expertise), irony
markers, slang or letter formulas (formality), emojis, message length and language, and
greetings that address the persona by a nickname. Code blocks are left out of everything but
the technical signals. Evidence quotes the message as said; the changelog withholds any secret
in it, and shortens it, when an entry is written (:func:`bot.persona.identity.changelog.render`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from bot.memory.policy import FILLER_WORDS, guess_language, redact_secrets
from bot.memory.prefilter import PatternSet
from bot.persona.identity.traits import (
    DOMAIN_TERMS,
    EXPLICIT,
    FORMAL_MARKERS,
    JARGON,
    LANGUAGE_WORDS,
    NOT_NAMES,
    SARCASM_MARKERS,
    SLANG,
    VOCATIVE_OPENERS,
    Trait,
)

__all__ = ["LONG_WORDS", "SHORT_WORDS", "detect", "fold_with_offsets"]

#: a message of at most this many words (not all filler) is a sighting of "short"
SHORT_WORDS = 8
#: a message of at least this many words is a sighting of "detailed"
LONG_WORDS = 60
_MIN_LANGUAGE_WORDS = 4
#: how much of a message a trait's evidence holds (the changelog quotes less of it)
_EVIDENCE_CHARS = 400

_EXPLICIT_ROWS = [row for rows in EXPLICIT.values() for row in rows]
_EXPLICIT = PatternSet([pattern for pattern, _kind, _value in _EXPLICIT_ROWS])
_SARCASM = PatternSet([p for rows in SARCASM_MARKERS.values() for p in rows])
_SLANG = PatternSet(list(SLANG.values()))
_FORMAL = PatternSet(list(FORMAL_MARKERS.values()))
_NAME_CHARS = r"[^\W\d_][\w'\-]{1,19}"
_VOCATIVES = PatternSet(
    [
        rf"^{VOCATIVE_OPENERS},? (?P<name>{_NAME_CHARS})\s*(?:$|[!.,?:;])",
        r"\b(?:thanks|thank you|thx|obrigad[oa]|brigad[oa]|valeu)\b[^.!?]{0,20},\s*"
        rf"(?P<name>{_NAME_CHARS})\s*[!.?]*\s*$",
    ]
)
#: each vocabulary as (single words, multi-word terms), split once
_VOCABULARIES: dict[frozenset[str], tuple[frozenset[str], tuple[str, ...]]] = {
    vocabulary: (
        frozenset(t for t in vocabulary if " " not in t),
        tuple(sorted(t for t in vocabulary if " " in t)),
    )
    for vocabulary in (JARGON, *DOMAIN_TERMS.values())
}
_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s+at [\w.$]+\(", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")
_EMOJI = re.compile(
    "[\U0001f300-\U0001faff\U00002600-\U000027bf\U0001f000-\U0001f2ff]"
    r"|(?:^|\s)[:;]-?[)D(P](?=\s|$)"
)


def fold_with_offsets(text: str) -> tuple[str, Sequence[int]]:
    """``text`` folded (lower case, no accents, straight quotes, single spaces), and for each
    folded character the index of the original character it came from."""
    if text.isascii():
        return _fold_ascii(text)
    out: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                offsets.append(index)
            continue
        char = {"’": "'", "‘": "'", "“": '"', "”": '"'}.get(char, char)
        for part in unicodedata.normalize("NFKD", char):
            if unicodedata.combining(part):
                continue
            for lower in part.lower():
                out.append(lower)
                offsets.append(index)
    if out and out[-1] == " ":
        out.pop()
        offsets.pop()
    return "".join(out), offsets


_NON_SPACE = re.compile(r"\S+")


def _fold_ascii(text: str) -> tuple[str, Sequence[int]]:
    """The same folding for plain ASCII text (most messages), without the per-character walk:
    lower case is one character for one, and only runs of white space collapse."""
    if " ".join(text.split()) == text:  # single spaces only: every character maps to itself
        return text.lower(), range(len(text))
    out: list[str] = []
    offsets: list[int] = []
    previous_end = -1
    for match in _NON_SPACE.finditer(text):
        start, end = match.span()
        if previous_end >= 0:
            out.append(" ")
            offsets.append(previous_end)
        out.append(match.group().lower())
        offsets.extend(range(start, end))
        previous_end = end
    return "".join(out), offsets


class _Message:
    """One message, folded once, with a way back from folded spans to the original text."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.code = any(p.search(text) for p in (_CODE_BLOCK, _INLINE_CODE, _TRACEBACK))
        self.prose = _INLINE_CODE.sub(" ", _CODE_BLOCK.sub(" ", text))
        self.folded, self._offsets = fold_with_offsets(self.prose)
        self.words = _WORD.findall(self.folded)
        self.joined = " ".join(self.words)

    def original(self, start: int, end: int) -> str:
        if start >= end:
            return ""
        return self.prose[self._offsets[start] : self._offsets[end - 1] + 1]


def _evidence(text: str) -> str:
    """``text`` on one line, its secrets withheld, up to :data:`_EVIDENCE_CHARS`. Withheld
    while its lines are still apart: joined, a value on the line after its keyword ("my
    password is below.\\nhunter2!") would read as the next sentence and stay."""
    return " ".join(redact_secrets(text).split())[:_EVIDENCE_CHARS]


def _clean_name(name: str) -> str | None:
    words = name.split()
    if not words or words[0].lower() in NOT_NAMES or fold_with_offsets(words[0])[0] in NOT_NAMES:
        return None
    if name.islower():
        name = " ".join(word[:1].upper() + word[1:] for word in words)
    return name


def _explicit(message: _Message) -> dict[str, Trait]:
    found: dict[str, list[tuple[int, int, Trait]]] = {}
    for index, match in _EXPLICIT.matches(message.folded):
        _pattern, kind, value = _EXPLICIT_ROWS[index]
        resolved: str | None = value
        if value == "{lang}":
            resolved = LANGUAGE_WORDS[next(g for g in match.groups("") if g in LANGUAGE_WORDS)]
        elif value == "{name}":
            resolved = _clean_name(message.original(*match.span("name")))
        if resolved is None:
            continue
        trait = Trait(kind, resolved, True, _evidence(message.original(*match.span())))
        found.setdefault(kind, []).append((match.start(), match.end(), trait))
    chosen: dict[str, Trait] = {}
    for kind, matches in found.items():
        outer = [
            m
            for m in matches
            if not any(
                o is not m and o[0] <= m[0] and m[1] <= o[1] and o[1] - o[0] > m[1] - m[0]
                for o in matches
            )
        ]
        chosen[kind] = max(outer, key=lambda m: m[0])[2]
    return chosen


def _nicknames(message: _Message, persona: str) -> list[Trait]:
    traits: list[Trait] = []
    for index in _VOCATIVES.candidates(message.folded):
        match = _VOCATIVES.regexes[index].search(message.folded)
        if match is None:
            continue
        name = message.original(*match.span("name"))
        folded = match.group("name")
        if not name[:1].isupper() or folded in NOT_NAMES or folded == persona.lower():
            continue
        traits.append(Trait("persona_nickname", name, False, _evidence(message.raw)))
        break
    return traits


def _terms(message: _Message, vocabulary: frozenset[str]) -> list[str]:
    singles, multis = _VOCABULARIES[vocabulary]
    found = set(singles.intersection(message.words))
    if multis:
        joined = message.joined
        found.update(t for t in multis if t in joined and re.search(rf"\b{re.escape(t)}\b", joined))
    return sorted(found)


def _inferred(message: _Message, persona: str) -> list[Trait]:
    traits: list[Trait] = []
    quote = _evidence(message.raw)
    jargon = _terms(message, JARGON)
    if message.code or len(jargon) >= 2:
        why = "code in the message" if message.code else "terms: " + ", ".join(jargon[:4])
        traits.append(Trait("register", "technical", False, why))
    for domain, vocabulary in DOMAIN_TERMS.items():
        terms = _terms(message, vocabulary)
        if len(terms) >= 2 or (domain == "programming" and message.code):
            why = "terms: " + ", ".join(terms[:4]) if terms else "code in the message"
            traits.append(Trait("expertise", domain, False, why))
    if _SARCASM.any_match(message.folded):
        traits.append(Trait("humour", "sarcastic", False, quote))
    if _FORMAL.any_match(message.folded):
        traits.append(Trait("formality", "formal", False, quote))
    elif _SLANG.any_match(message.folded):
        traits.append(Trait("formality", "casual", False, quote))
    if _EMOJI.search(message.prose):
        traits.append(Trait("emoji", "welcome", False, quote))
    count = len(message.words)
    if count >= LONG_WORDS:
        traits.append(Trait("length", "detailed", False, f"a message of {count} words"))
    elif 2 <= count <= SHORT_WORDS and not all(w in FILLER_WORDS for w in message.words):
        traits.append(Trait("length", "short", False, f"a message of {count} words: {quote}"))
    if count >= _MIN_LANGUAGE_WORDS:
        language = guess_language(message.words)
        if language is not None:
            traits.append(Trait("language", language, False, f"written in it: {quote}"))
    traits.extend(_nicknames(message, persona))
    return traits


def detect(text: str, *, persona: str = "") -> list[Trait]:
    """Every style trait ``text`` shows. ``persona`` is the persona's own name, which is not
    taken for a nickname."""
    message = _Message(text)
    if not message.folded and not message.code:
        return []
    explicit = _explicit(message)
    inferred = [t for t in _inferred(message, persona) if t.kind not in explicit]
    return [*explicit.values(), *inferred]
