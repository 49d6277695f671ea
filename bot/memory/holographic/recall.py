"""The active facts of the holographic backend, held in memory, and recall over their traces.

:class:`ActiveFacts` keeps every active item with its role structure and its trace in one
:class:`~bot.memory.holographic.hrr.TraceIndex`, plus two lookups the writes need: by comparison
form (a sentence said again) and by subject/relation/topic (a functional fact that replaces an older
one). Recall comes in two kinds:

* structural: the query's known roles probe every trace in one matrix product; subject,
  relation and object must each be recognisably present, the weighted mean must clear
  ``STRUCTURE_MIN``, and the asked role is unbound and cleaned up into the answer (``hrr``
  score parts);
* lexical: the query's content words that some active item holds against each item's
  ``keywords`` role, i.e. word overlap, scaled down so it always ranks below a structural hit
  (``lexical`` score part). IDF weights were measured and did not help (see ``_lexical``).

A recall is given the turn's :class:`~bot.turn.audience.Audience`: only the items it sees are in the
candidate mask of both kinds, before the best are taken, so another room's items take no place.
A sentence said again is matched only among the items its writer reaches
(:func:`~bot.memory.reinforcement.twin_labels`: a shared room, what it sees); a functional fact
replaces an older one of its own audience only (what one room says never takes a fact from
another, nor from a direct room).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from bot.memory.base import Category, MemoryHit, MemoryItem, visible_in
from bot.memory.holographic.hrr import TraceIndex, Vector
from bot.memory.holographic.lexicon import FUNCTIONAL
from bot.memory.holographic.parse import Parsed, parse
from bot.memory.normal_form import normalise_text
from bot.memory.reinforcement import twin_labels
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = [
    "ANSWER_MIN",
    "LEXICAL_MIN",
    "LEXICAL_SCALE",
    "REQUIRED_MIN",
    "STRUCTURE_MIN",
    "WEIGHTS",
    "ActiveFacts",
    "Recalled",
    "fact_structure",
]

#: how much each probed role weighs in the structural score
WEIGHTS = {"subject": 1.5, "object": 1.5, "relation": 1.0, "topic": 0.75, "category": 0.5}
#: subject, relation and object, when the query names them, must each be recognisably in the
#: trace (not just outvoted by the others); topic and category only weigh in the score
REQUIRED_MIN = 0.35
_REQUIRED = ("subject", "relation", "object")
#: the weighted mean similarity a trace needs to count as a structural match
STRUCTURE_MIN = 0.55
#: keyword-role cosine a lexical hit needs; lexical scores are halved so they rank last
LEXICAL_MIN = 0.25
LEXICAL_SCALE = 0.5
#: a cleaned-up word is part of the answer if it is this close to the best one
ANSWER_MIN = 0.12


@dataclass(slots=True)
class Recalled:
    """One recall result: the hit, and the words the asked role unbound to (if any)."""

    hit: MemoryHit
    answer: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Scope:
    """Which items a recall may return: of one category (None: any), seen by an audience."""

    category: Category | None
    audience: Audience

    def admits(self, item: MemoryItem) -> bool:
        if self.category is not None and item.category != self.category:
            return False
        return visible_in(item, self.audience)


def fact_structure(parsed: Parsed, category: Category) -> dict[str, list[str]]:
    """The roles a stored sentence is encoded with: its parsed roles, category and keywords."""
    roles = {role: list(words) for role, words in parsed.roles.items() if words}
    roles["category"] = [f"category:{category}"]
    roles["keywords"] = list(parsed.keywords)
    return roles


def _best(scores: Vector, keep: npt.NDArray[np.bool_], limit: int) -> list[int]:
    """Positions of the ``limit`` highest ``scores`` among those kept, best first."""
    candidates = np.flatnonzero(keep)
    if candidates.size > limit:
        candidates = candidates[np.argpartition(-scores[candidates], limit - 1)[:limit]]
    return [int(i) for i in candidates[np.argsort(-scores[candidates], kind="stable")]]


def _key(structure: dict[str, list[str]]) -> tuple[tuple[str, ...], ...]:
    """What a functional fact is about: one value per subject, relation and topic."""
    return tuple(tuple(structure.get(role, ())) for role in ("subject", "relation", "topic"))


class ActiveFacts:
    """The active items, their structures and traces; what recall and the writes consult."""

    def __init__(self, dim: int) -> None:
        self.index = TraceIndex(dim)
        self.items: dict[str, MemoryItem] = {}
        self.structures: dict[str, dict[str, list[str]]] = {}
        #: the items that say a sentence, by its comparison form: one a label at most, as a
        #: shared room keeps its own copy of what another room said
        self._by_norm: dict[str, list[str]] = {}
        self._by_key: dict[tuple[tuple[str, ...], ...], set[str]] = {}
        #: how many active items hold each keyword (the lexical probe skips the absent ones)
        self._df: Counter[str] = Counter()

    @property
    def symbols(self) -> int:
        return len(self.index.cleanup)

    def load(self, facts: Iterable[tuple[MemoryItem, dict[str, list[str]], Vector]]) -> None:
        """Take in stored facts; a trace kept at another dimension is encoded again."""
        traces: list[tuple[str, Vector]] = []
        for item, structure, vector in facts:
            if vector.shape[0] != self.index.dim:
                vector = self.index.encode(structure)
            self.index.learn(structure)
            self._remember(item, structure)
            traces.append((item.id, vector))
        self.index.extend(traces)

    def duplicate(self, text: str, label: str) -> MemoryItem | None:
        """The active item that says ``text`` already (compared in normalised form), of those
        a statement recorded as ``label`` may repeat."""
        twins = twin_labels(label)
        for item_id in self._by_norm.get(normalise_text(text), ()):
            item = self.items[item_id]
            if twins is None or item.audience in twins:
                return item
        return None

    def conflicts(self, structure: dict[str, list[str]], label: str) -> list[str]:
        """Active items that say the same functional thing with another object: "Scott prefers
        tea for breakfast" replaces "Scott prefers coffee for breakfast"; only those of the
        audience ``label`` the new one is recorded with."""
        relation = structure.get("relation", [])
        if not relation or relation[-1] not in FUNCTIONAL or not structure.get("object"):
            return []
        return [
            item_id
            for item_id in self._by_key.get(_key(structure), ())
            if self.structures[item_id].get("object") not in (None, structure["object"])
            and self.items[item_id].audience == label
        ]

    def add(self, item: MemoryItem, structure: dict[str, list[str]], trace: Vector) -> None:
        self._remember(item, structure)
        self.index.add(item.id, trace)

    def _remember(self, item: MemoryItem, structure: dict[str, list[str]]) -> None:
        self.items[item.id] = item
        self.structures[item.id] = structure
        self._by_norm.setdefault(normalise_text(item.text), []).append(item.id)
        self._by_key.setdefault(_key(structure), set()).add(item.id)
        self._df.update(set(structure.get("keywords", ())))

    def remove(self, item_id: str) -> None:
        """Drop an item that is no longer active (superseded or forgotten)."""
        item = self.items.pop(item_id, None)
        if item is not None:
            norm = normalise_text(item.text)
            left = [other for other in self._by_norm.get(norm, ()) if other != item_id]
            if left:
                self._by_norm[norm] = left
            else:
                self._by_norm.pop(norm, None)
        structure = self.structures.pop(item_id, None)
        if structure is not None:
            self._by_key.get(_key(structure), set()).discard(item_id)
            self._df.subtract(set(structure.get("keywords", ())))
        self.index.remove(item_id)

    # -- recall ----------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        limit: int = 8,
        category: Category | None = None,
        audience: Audience = DIRECT_ROOM,
    ) -> list[Recalled]:
        """Structural matches first (``hrr``), then explicitly lexical ones (``lexical``), of
        the items ``audience`` sees."""
        parsed = parse(query)
        scope = _Scope(category, audience)
        found = self._structural(parsed, scope, limit) if parsed.structured else []
        if len(found) < limit:
            taken = {recalled.hit.item.id for recalled in found}
            found += self._lexical(parsed, scope, limit - len(found), taken)
        return found

    def _allowed(self, ids: list[str], scope: _Scope) -> npt.NDArray[np.bool_]:
        if scope.category is None and scope.audience.private:
            return np.ones(len(ids), dtype=bool)
        return np.array([scope.admits(self.items[item_id]) for item_id in ids], dtype=bool)

    def _structural(self, parsed: Parsed, scope: _Scope, limit: int) -> list[Recalled]:
        category = scope.category
        query = {role: list(words) for role, words in parsed.roles.items() if words}
        if category is not None:
            query["category"] = [f"category:{category}"]
        ids, roles, sims = self.index.probe(query)
        if not ids or not roles:
            return []
        weights = np.array([WEIGHTS[role] for role in roles])
        scores = sims @ weights / weights.sum()
        required = [j for j, role in enumerate(roles) if role in _REQUIRED]
        keep = (scores >= STRUCTURE_MIN) & self._allowed(ids, scope)
        if required:
            keep &= np.all(sims[:, required] >= REQUIRED_MIN, axis=1)
        found = []
        for position in _best(scores, keep, limit):
            item = self.items[ids[position]]
            parts = {"hrr": float(scores[position])}
            parts.update({f"hrr_{role}": float(sims[position, j]) for j, role in enumerate(roles)})
            answer = self.answer(item.id, parsed.asked)
            if answer:
                parts["answer"] = answer[0][1]
            hit = MemoryHit(item, float(scores[position]), parts)
            found.append(Recalled(hit, [word for word, _ in answer]))
        return found

    def answer(self, item_id: str, asked: str | None) -> list[tuple[str, float]]:
        """The words the item's ``asked`` role unbinds to, with their clean-up similarity."""
        if asked is None or not self.structures[item_id].get(asked):
            return []
        decoded = [(w, s) for w, s in self.index.decode(item_id, asked, k=4) if s >= ANSWER_MIN]
        if not decoded:
            return []
        best = decoded[0][1]
        return [(word, sim) for word, sim in decoded if sim >= best * 0.6]

    def _lexical(
        self, parsed: Parsed, scope: _Scope, limit: int, taken: set[str]
    ) -> list[Recalled]:
        if not parsed.keywords or limit <= 0:
            return []
        # A word no active item holds only adds noise to the probe: leaving those out lifted
        # recall@5 on the long-conversation set from .333 to .426. Weighing the rest by IDF
        # (log(1 + N/df) or log((N+1)/df)) measured .417 and .414 there, so they weigh alike.
        weights = dict.fromkeys((word for word in parsed.keywords if self._df[word] > 0), 1.0)
        ids, cosines = self.index.probe_weighted("keywords", weights)
        if not ids:
            return []
        keep = (cosines >= LEXICAL_MIN) & self._allowed(ids, scope)
        keep &= np.array([item_id not in taken for item_id in ids])
        found = []
        for position in _best(cosines, keep, limit):
            cosine = float(cosines[position])
            item = self.items[ids[position]]
            found.append(Recalled(MemoryHit(item, cosine * LEXICAL_SCALE, {"lexical": cosine})))
        return found
