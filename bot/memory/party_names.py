"""The names of the two who talk say whose side a question is about, not what it asks.

A persona's memory is one conversation between two parties: the person and the persona.
Asked about by name, as people do ("Inara, what did I say about the dentist?") and as public
long-conversation benchmarks do ("What did Caroline paint?", put by Caroline to Melanie's
memory), the name is no word of the answer: "I painted a lake at dawn" never says "Caroline".
Searched, it matches whatever else says the name (a friend's "Caroline's mum called", a
message the name opens) and takes a place from the message that answers. :func:`without_parties`
takes the parties' names out of a question before it is searched, with an English
possessive ("Caroline's") and the Portuguese "de", "do", "da" before them ("a irmã da Ana");
a question with nothing telling left but the name ("Who is Ana?") is searched as it was.
A name counts written with its capital letter, whole ("Ana Rita"), compared without accents
("Ines" is "Inês"): a persona called Rose leaves "the rose bush" alone; at the start of a
sentence only before a comma or a possessive ("Inara, ...", "Maya's ..."; not "Will I need a
coat?"); a one-word name that is a month, a weekday or a word the search drops anyway ("May",
"Will") never.

Measured with ``bench/recall_quality.py --named`` (questions naming the person and the
persona, as public benchmarks ask them), write path, recall@5: BM25 alone set D .462 -> .488
and set B .325 -> .358, about where the sets stand asked in the first person (.488, .362);
e5 set D .559 -> .624 (held-out .522 -> .606), set B .308 -> .563, set A .808 -> .932. Sets
asked in the first person do not move: their questions say "I" and "you".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.memory.episodes.time_words import MONTHS, WEEKDAYS
from bot.memory.normal_form import normalise_text
from bot.memory.sqlite.query import STOPWORDS, fold, telling

__all__ = ["without_parties"]

_WORD = re.compile(r"[^\W\d_]+")
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
# "de", "do", "da" and their plurals right before a name ("o emprego da Ana")
_OF = frozenset({"de", "do", "da", "dos", "das"})
#: a one-word name that is no name here: a word of the language or of the calendar
_NOT_A_NAME = frozenset(STOPWORDS | set(MONTHS) | set(WEEKDAYS))
# a space left before a mark where a name was cut ("o emprego ?")
_LOOSE_MARK = re.compile(r" ([?!.,;:…])")


def _names(parties: Iterable[str]) -> list[tuple[str, ...]]:
    """Each party's name as its folded words, the longest first; a one-word name that is a
    word of the language or of the calendar ("May", "Will", "Sunday") is left out: it says
    more often what it is than who."""
    names = {tuple(fold(word) for word in _WORD.findall(party)) for party in parties}
    return sorted(
        (name for name in names if name and not (len(name) == 1 and name[0] in _NOT_A_NAME)),
        key=len,
        reverse=True,
    )


def _opens_a_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?\n"


def _cuts(text: str, names: list[tuple[str, ...]]) -> list[tuple[int, int]]:
    """Where ``names`` stand in ``text``, each with its possessive or the "de" before it: a
    name with its capital letter, and one opening a sentence only when a comma or a
    possessive follows it ("Inara, ...", "Maya's ...", not "Will I need a coat?")."""
    words = list(_WORD.finditer(text))
    folded = [fold(word.group(0)) for word in words]
    cuts: list[tuple[int, int]] = []
    index = 0
    while index < len(words):
        name = next((n for n in names if tuple(folded[index : index + len(n)]) == n), None)
        if name is None or not words[index].group(0)[0].isupper():
            index += 1
            continue
        last = index + len(name) - 1
        end = words[last].end()
        possessive = _POSSESSIVE.match(text, end)
        if _opens_a_sentence(text, words[index].start()) and not (
            possessive or text.startswith(",", end)
        ):
            index = last + 1
            continue
        start = words[index - 1 if index and folded[index - 1] in _OF else index].start()
        cuts.append((start, possessive.end() if possessive else end))
        index = last + 1
    return cuts


def without_parties(text: str, parties: Iterable[str]) -> str:
    """``text`` without the names of ``parties`` (and their possessive or "de" before them),
    or ``text`` as it is when nothing telling would be left."""
    cuts = _cuts(text, _names(parties))
    if not cuts:
        return text
    kept, at = [], 0
    for start, end in cuts:
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    stripped = _LOOSE_MARK.sub(r"\1", " ".join("".join(kept).split())).lstrip(" ,;:")
    if not any(telling(word) for word in normalise_text(stripped).split()):
        return text
    return stripped
