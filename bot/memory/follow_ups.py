"""A message that refers back to the live conversation, resolved before memory is searched.

"Where is he living now?" right after "Tomasz rang this morning" names nobody: the words that
say whom it is about are in the room's last messages, not in the question, so a search with
the question alone misses. :func:`resolve` adds the most telling words of those messages (the
names first, then the longest words) to what is searched, when the message refers back: it
holds a word that points at something said (a third-person pronoun, a demonstrative, "there",
"lá", "the same", "o mesmo"), or it is a short follow-up with few words of its own. Any other
message is searched as it is. :func:`recall` searches the resolved query and leaves out the
hits that are those last messages themselves: the prompt holds them already.

The caller hands over plain texts: the last on-record messages of the turn's own room (what
its audience saw), never another room's and never anything said Off The Record. Memory code
never sees the conversation's types.

Measured on set C of ``bench/recall_quality.py`` (follow-ups after a live exchange, recall@5);
the figures are in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.memory.base import MemoryBackend, MemoryHit
from bot.memory.normal_form import normalise_text
from bot.memory.party_names import without_parties
from bot.memory.sqlite.query import STOPWORDS, fold, folded_words, telling
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["RECENT_MESSAGES", "WORDS_ADDED", "Resolved", "recall", "refers_back", "resolve"]

#: how many of the room's last on-record messages lend their words (four exchanges: set C
#: with small talk between the subject and its follow-up kept its recall while the subject
#: stood among them, and lost it past them) ...
RECENT_MESSAGES = 8
#: ... and how many of their words are added at most
WORDS_ADDED = 4
#: a message with a definite article and this many words of its own or fewer is a follow-up
#: on something just said ("what was the present in the end?")
SHORT_FOLLOW_UP = 3

# lower case, accents kept: "esta" (this) points back, "está" (is) does not
_REFERRING = frozenset(
    """
    he she it they him her them his hers its their theirs this that these those there same
    ele ela eles elas dele dela deles delas lhe lhes isso isto aquilo esse essa esses essas
    este esta estes estas aquele aquela aqueles aquelas disso disto daquilo desse dessa
    desses dessas deste desta destes destas daquele daquela daqueles daquelas nisso nisto
    naquilo nesse nessa neste nesta naquele naquela lá ali aí mesmo mesma
    """.split()
)
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"[.!?]\s*$")


@dataclass(frozen=True, slots=True)
class Resolved:
    """What to search for a message: ``query``, and the live messages it took words from."""

    query: str
    drawn_from: tuple[str, ...] = ()


def _own_words(text: str) -> list[str]:
    """The folded words of ``text`` that are not stopwords."""
    return [word for word in folded_words(text) if word not in STOPWORDS]


def refers_back(text: str) -> bool:
    """Whether ``text`` points at something it does not name: a referring word, or a short
    question about "the" something, which only the conversation can say."""
    words = _WORD.findall(text.lower())
    if any(word in _REFERRING for word in words):
        return True
    return "the" in words and len(_own_words(text)) <= SHORT_FOLLOW_UP


def _telling(text: str, age: int) -> list[tuple[bool, int, int, str]]:
    """Each candidate word of ``text`` once, with the key it is chosen by: (not a name, the
    message's ``age``, minus its length, the word). A name is capitalised where a sentence
    does not begin."""
    found: dict[str, tuple[bool, int, int, str]] = {}
    for match in _WORD.finditer(text):
        word = match.group()
        folded = fold(word)
        if not telling(folded) or folded in found:
            continue
        start = match.start() == 0 or bool(_SENTENCE_END.search(text[: match.start()]))
        name = word[0].isupper() and not start
        found[folded] = (not name, age, -len(folded), folded)
    return list(found.values())


def resolve(text: str, recent: Sequence[str], *, newest_names: bool = False) -> Resolved:
    """``text`` with the most telling words of ``recent`` (the room's last on-record messages,
    oldest first) added when it refers back; ``text`` alone when it does not, or when there
    is nothing to draw on. With ``newest_names``, only the newest exchange (two messages) that
    names someone or something lends names; older names count as plain words, so a subject
    that changed does not bring the old one's names back."""
    drawn = tuple(message for message in recent[-RECENT_MESSAGES:] if message.strip())
    if not drawn or not refers_back(text):
        return Resolved(text)
    own = set(folded_words(text))
    candidates: dict[str, tuple[bool, int, int, str]] = {}
    named_exchange: int | None = None
    # names first, the newest first; then the newest message's longest words
    for age, message in enumerate(reversed(drawn)):
        keys = _telling(message, age)
        if newest_names:
            if named_exchange is None and any(not key[0] for key in keys):
                named_exchange = age // 2
            if named_exchange is not None and age // 2 > named_exchange:
                keys = [(True, *key[1:]) for key in keys]
        for key in keys:
            if key[-1] not in own:
                candidates.setdefault(key[-1], key)
    added = [key[-1] for key in sorted(candidates.values())[:WORDS_ADDED]]
    if not added:
        return Resolved(text)
    return Resolved(f"{text} {' '.join(added)}", drawn)


def _without(hits: Sequence[MemoryHit], drawn_from: Sequence[str]) -> list[MemoryHit]:
    """``hits`` less those that are one of ``drawn_from`` (or a fact told in one); the other
    side of a left-out hit's exchange, joined to it, is a hit of its own again."""
    live = {normalise_text(message) for message in drawn_from}

    def is_live(hit: MemoryHit) -> bool:
        return normalise_text(hit.item.text) in live or bool(
            hit.item.context and normalise_text(hit.item.context) in live
        )

    kept = []
    for hit in hits:
        other = hit.reply or hit.replying_to
        if not is_live(hit):
            kept.append(hit)
        elif other is not None and not is_live(other):
            kept.append(other)
    return kept


async def recall(
    memory: MemoryBackend,
    text: str,
    recent: Sequence[str],
    *,
    limit: int,
    audience: Audience = DIRECT_ROOM,
    parties: Sequence[str] = (),
) -> list[MemoryHit]:
    """What ``memory`` recalls for ``text`` said after ``recent``: the resolved query's
    ``limit`` best hits that ``audience`` sees, the live messages it drew on left out. The
    names of ``parties`` (the person and the persona) are not searched
    (:mod:`bot.memory.party_names`)."""
    text = without_parties(text, parties)
    # newest names first only for a search by meaning: under a change of subject the old
    # subject's names pulled the question's vector away (set C with MiniLM .702 -> .717,
    # both parts), while BM25's held-out part lost .021 (docs/BENCHMARKS.md)
    resolved = resolve(text, recent, newest_names=memory.searches_meaning)
    if not resolved.drawn_from:
        return await memory.prefetch(text, limit=limit, audience=audience)
    hits = await memory.prefetch(
        resolved.query, limit=limit + len(resolved.drawn_from), audience=audience
    )
    return _without(hits, resolved.drawn_from)[:limit]
