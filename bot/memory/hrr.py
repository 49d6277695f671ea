"""Holographic reduced representations (Plate, 1995) in plain numpy.

A symbol is a random vector of dimension ``d`` whose entries are drawn from N(0, 1/d), so its
length is close to 1 and two different symbols are nearly orthogonal. The generator is seeded
from a hash of the symbol's name: the same name gives the same vector in every process, which
is why nothing but names has to be stored to rebuild the vocabulary after a restart.

* ``bind(a, b)``    circular convolution, computed as a product in the Fourier domain; the
  result looks like neither input (a role/filler pair).
* ``unbind(t, a)``  circular correlation with ``a``, i.e. convolution with its involution, the
  approximate inverse: ``unbind(bind(a, b), a) ≈ b`` plus noise.
* superposition     plain addition: a trace is the sum of its bound pairs.
* ``Cleanup``       nearest-neighbour clean-up memory: the noisy vector that comes out of an
  unbinding is compared with every known symbol in one matrix product.
* ``TraceIndex``    one memory item = one trace ``Σ role ⊛ filler`` over the roles in
  ``ROLES``; the active traces are the rows of one matrix, so probing a partial structure
  against all of them is one matrix product, and decoding a role is one unbinding followed by
  a clean-up.

A filler may hold several words ("green tea"): its vector is their normalised superposition,
so a probe for "tea" still meets it, at a cosine of about 0.7.

* ``parse(text)``   the small rule-based English and Portuguese parser that turns a sentence
  into those roles, and a question into the partial roles it knows plus the role it asks.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "DIM",
    "FUNCTIONAL",
    "ROLES",
    "Cleanup",
    "Parsed",
    "TraceIndex",
    "Vector",
    "bind",
    "bundle",
    "cosine",
    "involution",
    "normalize",
    "parse",
    "symbol",
    "unbind",
    "unbind_many",
]

DIM = 1024

Vector = npt.NDArray[np.float64]


@functools.lru_cache(maxsize=1 << 16)
def symbol(name: str, dim: int = DIM) -> Vector:
    """The vector of ``name``: deterministic, entries N(0, 1/dim). Read-only (it is cached)."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=16).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    vector = rng.normal(0.0, 1.0 / np.sqrt(dim), dim)
    vector.flags.writeable = False
    return vector


def bind(a: Vector, b: Vector) -> Vector:
    """Circular convolution ``a ⊛ b``."""
    n = a.shape[-1]
    return np.fft.irfft(np.fft.rfft(a) * np.fft.rfft(b), n=n)


def involution(a: Vector) -> Vector:
    """``a*`` with ``a*[i] = a[-i mod d]``: the approximate inverse under convolution."""
    return np.concatenate((a[..., :1], a[..., :0:-1]), axis=-1)


def unbind(trace: Vector, key: Vector) -> Vector:
    """Circular correlation: what ``key`` was bound to inside ``trace`` (noisy)."""
    return bind(trace, involution(key))


def unbind_many(traces: Vector, key: Vector) -> Vector:
    """``unbind`` applied to every row of ``traces`` at once."""
    n = traces.shape[-1]
    # The Fourier transform of the involution is the complex conjugate.
    return np.fft.irfft(np.fft.rfft(traces, axis=-1) * np.conj(np.fft.rfft(key)), n=n, axis=-1)


def bundle(vectors: Iterable[Vector], dim: int = DIM) -> Vector:
    """Superpose ``vectors`` and scale the sum back to unit length (zero if there are none)."""
    total = np.zeros(dim)
    for vector in vectors:
        total = total + vector
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else total


def cosine(a: Vector, b: Vector) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm > 0 else 0.0


class Cleanup:
    """The clean-up memory: every known symbol, one unit-length row each."""

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self._rows: list[Vector] = []
        self._matrix: Vector | None = None

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def vector(self, name: str) -> Vector:
        """The symbol's vector, learning the name on first use."""
        position = self._index.get(name)
        if position is None:
            position = len(self._names)
            self._names.append(name)
            self._index[name] = position
            self._rows.append(symbol(name, self.dim))
            self._matrix = None
        return self._rows[position]

    def nearest(self, noisy: Vector, k: int = 3) -> list[tuple[str, float]]:
        """The ``k`` known symbols closest to ``noisy`` by cosine, best first."""
        if not self._names:
            return []
        matrix = self._normalized()
        norm = float(np.linalg.norm(noisy))
        if norm == 0:
            return []
        sims = matrix @ (noisy / norm)
        k = min(k, len(self._names))
        top = np.argpartition(-sims, k - 1)[:k]
        ordered = top[np.argsort(-sims[top])]
        return [(self._names[i], float(sims[i])) for i in ordered]

    def _normalized(self) -> Vector:
        if self._matrix is None:
            stacked = np.vstack(self._rows)
            self._matrix = stacked / np.linalg.norm(stacked, axis=1, keepdims=True)
        return self._matrix


ROLES = ("subject", "relation", "object", "topic", "category", "keywords")


class TraceIndex:
    """The traces of the active items and the clean-up memory of every filler word."""

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.cleanup = Cleanup(dim)
        self._roles = {role: symbol(f"role:{role}", dim) for role in ROLES}
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        # Rows beyond len(self._ids) are spare capacity, so adding a trace is amortised O(d).
        self._buffer = np.zeros((64, dim))

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._position

    def role(self, name: str) -> Vector:
        return self._roles[name]

    def filler(self, words: Sequence[str], *, learn: bool) -> Vector:
        """The superposed vector of ``words``; ``learn`` adds them to the clean-up memory
        (item words do, query words must not, or every question would grow the vocabulary)."""
        if learn:
            return bundle((self.cleanup.vector(word) for word in words), self.dim)
        return bundle((symbol(word, self.dim) for word in words), self.dim)

    def encode(self, structure: Mapping[str, Sequence[str]]) -> Vector:
        """``Σ role ⊛ filler`` over the roles present in ``structure``."""
        trace = np.zeros(self.dim)
        for role, words in structure.items():
            if words:
                trace = trace + bind(self._roles[role], self.filler(words, learn=True))
        return trace

    def learn(self, structure: Mapping[str, Sequence[str]]) -> None:
        """Teach the clean-up memory the words of a stored structure (after a reload)."""
        for words in structure.values():
            for word in words:
                self.cleanup.vector(word)

    @property
    def _matrix(self) -> Vector:
        return self._buffer[: len(self._ids)]

    def add(self, item_id: str, trace: Vector) -> None:
        self.extend([(item_id, trace)])

    def extend(self, items: Sequence[tuple[str, Vector]]) -> None:
        """Add (or replace) traces, growing the matrix at most once."""
        needed = len(self._ids) + len(items)
        if needed > self._buffer.shape[0]:
            grown = np.zeros((max(needed, 2 * self._buffer.shape[0]), self.dim))
            grown[: len(self._ids)] = self._matrix
            self._buffer = grown
        for item_id, trace in items:
            position = self._position.get(item_id)
            if position is None:
                position = self._position[item_id] = len(self._ids)
                self._ids.append(item_id)
            self._buffer[position] = trace

    def remove(self, item_id: str) -> None:
        position = self._position.pop(item_id, None)
        if position is None:
            return
        count = len(self._ids)
        self._buffer[position : count - 1] = self._buffer[position + 1 : count]
        self._ids.pop(position)
        for index in range(position, len(self._ids)):
            self._position[self._ids[index]] = index

    def probe(self, query: Mapping[str, Sequence[str]]) -> tuple[list[str], list[str], Vector]:
        """How well each active trace holds each known role of ``query``.

        Returns the item ids, the probed roles and an ``items × roles`` matrix of
        similarities (about 1 for the same filler, about 0 for an unrelated one). The probe
        for a role is ``role ⊛ filler``: by the adjointness of convolution and correlation,
        ``trace · (role ⊛ filler)`` equals ``unbind(trace, role) · filler``, so all roles
        of all items come out of a single matrix product.
        """
        roles = [role for role, words in query.items() if words]
        if not roles or not self._ids:
            return list(self._ids), roles, np.zeros((len(self._ids), len(roles)))
        probes = np.column_stack(
            [bind(self._roles[role], self.filler(query[role], learn=False)) for role in roles]
        )
        return list(self._ids), roles, self._matrix @ probes

    def decode(self, item_id: str, role: str, k: int = 3) -> list[tuple[str, float]]:
        """Unbind ``role`` from the item's trace and clean it up: the words it holds."""
        position = self._position.get(item_id)
        if position is None:
            return []
        noisy = unbind(self._matrix[position], self._roles[role])
        return self.cleanup.nearest(noisy, k)


# -- text to roles ---------------------------------------------------------------------------
# A deliberately small parser: it knows the shapes people use to state durable facts about
# someone ("X prefers Y for Z", "I love Y", "X's birthday is Y", "my wife is Y", "eu prefiro
# Y", "o aniversário de X é Y") and the questions that ask them back. Words are folded to
# lower-case ASCII and a few Portuguese nouns are mapped to English, so a fact told in one
# language answers a question asked in the other.

_WORD = re.compile(r"'s\b|,|[^\W_]+")

_FIRST_PERSON = frozenset("i me my mine myself eu meu minha meus minhas mim comigo".split())
_SECOND_PERSON = frozenset("you your yours yourself voce seu sua seus suas tu teu tua".split())
_POSSESSIVES = frozenset(
    "my your his her their our meu minha meus minhas seu sua seus suas teu tua nosso nossa".split()
)
_NEGATIONS = frozenset("not never nao nunca jamais".split())
_AUXILIARIES = frozenset("do does did will would can could should".split())
_COPULAS = frozenset(["is", "are", "am", "was", "were", "é", "sou", "são", "somos", "era", "foi"])
_QUESTION_WORDS = frozenset(
    "what who whom when where which whose how que quem quando onde qual quais".split()
)
_QUESTION_OPENERS = (("o", "que"), ("do", "que"), ("de", "que"), ("com", "quem"))
_TOPIC_PREPOSITIONS = frozenset(
    "for at during in on no na nos nas em para pra pro durante ao".split()
)
_BOUNDARIES = frozenset([",", "because", "when", "but", "while", "porque", "quando", "mas"])
_PARTICLES = frozenset("de do da dos das to".split())
_OF = frozenset("de do da dos das".split())
_STOPWORDS = frozenset(
    (
        "a an the o a os as um uma uns umas of to de do da dos das that this these those some "
        "any very really so just also too muito muita mais bem tambem isso esse essa este "
        "esta and e or ou with com 's , it its his her their our nosso nossa he she they "
        "ele ela eles elas"
    ).split()
)
_TRANSLATIONS = {
    "aniversario": "birthday",
    "esposa": "wife",
    "mulher": "wife",
    "marido": "husband",
    "filho": "son",
    "filha": "daughter",
    "mae": "mother",
    "pai": "father",
    "irmao": "brother",
    "irma": "sister",
    "cachorro": "dog",
    "cao": "dog",
    "gato": "cat",
    "nome": "name",
    "cidade": "city",
    "idade": "age",
    "chefe": "boss",
    "namorada": "girlfriend",
    "namorado": "boyfriend",
    "almoco": "lunch",
    "jantar": "dinner",
    "favorita": "favorite",
    "favorito": "favorite",
    "favourite": "favorite",
    "cor": "color",
    "colour": "color",
    "telefone": "phone",
}
_PHRASES = {("cafe", "da", "manha"): "breakfast"}

_EN_VERBS = {
    "prefer": "prefer", "like": "like", "enjoy": "like", "love": "love", "adore": "love",
    "hate": "hate", "detest": "hate", "dislike": "dislike", "use": "use", "live": "live",
    "work": "work", "drink": "drink", "eat": "eat", "play": "play", "need": "need",
    "want": "want", "speak": "speak", "own": "own", "know": "know", "study": "study",
    "watch": "watch", "read": "read", "drive": "drive", "wear": "wear", "cook": "cook",
    "miss": "miss", "trust": "trust", "support": "support", "collect": "collect",
}  # fmt: skip
_PT_VERBS = {
    "prefer": "prefiro prefere preferem preferimos preferia preferiu",
    "like": "gosto gosta gostam gostamos gostava curto curte",
    "love": "amo ama amam adoro adora adoram",
    "hate": "odeio odeia odeiam detesto detesta",
    "use": "uso usa usam",
    "live": "moro mora moram vivo vive",
    "work": "trabalho trabalha trabalham",
    "drink": "bebo bebe bebem tomo toma",
    "play": "toco toca jogo joga",
    "need": "preciso precisa",
    "want": "quero quer querem",
    "speak": "falo fala falam",
    "own": "tenho tem",
    "know": "conheco conhece sei sabe",
    "study": "estudo estuda",
}
#: relations that hold one value at a time: a new object replaces the old one
FUNCTIONAL = frozenset(
    "prefer live work birthday wife husband name age city boss girlfriend boyfriend".split()
)


def _inflections(base: str) -> list[str]:
    if base.endswith("y"):
        return [base, base[:-1] + "ies", base[:-1] + "ied"]
    if base.endswith(("s", "sh", "ch", "x")):
        return [base, base + "es", base + "ed"]
    if base.endswith("e"):
        return [base, base + "s", base + "d"]
    return [base, base + "s", base + "ed", base + base[-1] + "ed"]


def _verb_table() -> dict[str, str]:
    table = {form: canon for base, canon in _EN_VERBS.items() for form in _inflections(base)}
    table.update({form: canon for canon, forms in _PT_VERBS.items() for form in forms.split()})
    return table


_VERBS = _verb_table()
_FUNCTION_WORDS = (
    _STOPWORDS
    | _POSSESSIVES
    | _NEGATIONS
    | _FIRST_PERSON
    | _SECOND_PERSON
    | _AUXILIARIES
    | _QUESTION_WORDS
    | _TOPIC_PREPOSITIONS
)


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def normalize(text: str) -> str:
    """The comparison form of a sentence: folded words, no punctuation."""
    lowered = text.lower().replace("’", "'").replace("‘", "'")
    return " ".join(_fold(word) for word in _WORD.findall(lowered) if word != ",")


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
    tokens = _WORD.findall(lowered)
    merged: list[str] = []
    index = 0
    while index < len(tokens):
        for phrase, meaning in _PHRASES.items():
            window = tuple(_fold(t) for t in tokens[index : index + len(phrase)])
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
        word = _fold(token)
        if word in _FUNCTION_WORDS or token in _COPULAS:
            continue
        word = _TRANSLATIONS.get(word, word)
        words.append(_VERBS.get(word, word) if verbs else word)
    return tuple(dict.fromkeys(words))


def _who(tokens: Sequence[str]) -> tuple[str, ...]:
    """A subject: its content words, or ``user`` / ``persona`` for a bare pronoun."""
    content = _content(tokens)
    if content:
        return content
    folded = {_fold(t) for t in tokens}
    if folded & _FIRST_PERSON:
        return ("user",)
    if folded & _SECOND_PERSON:
        return ("persona",)
    return ()


def _owner(tokens: Sequence[str]) -> str | None:
    for token in tokens:
        word = _fold(token)
        if word in _FIRST_PERSON and word in _POSSESSIVES:
            return "user"
        if word in _SECOND_PERSON and word in _POSSESSIVES:
            return "persona"
    return None


def _until_boundary(tokens: Sequence[str]) -> list[str]:
    for index, token in enumerate(tokens):
        if token in _BOUNDARIES:
            return list(tokens[:index])
    return list(tokens)


def _verb_clause(tokens: list[str], at: int, question: bool) -> dict[str, tuple[str, ...]]:
    before, after = tokens[:at], _until_boundary(tokens[at + 1 :])
    relation = _VERBS[_fold(tokens[at])]
    if any(_fold(t) in _NEGATIONS for t in before):
        relation = f"not-{relation}"
    while after and _fold(after[0]) in _PARTICLES:
        after = after[1:]
    split = next((i for i, t in enumerate(after) if t in _TOPIC_PREPOSITIONS), len(after))
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
    of = next((i for i, t in enumerate(before) if i > 0 and _fold(t) in _OF), None)
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
    folded = [_fold(t) for t in tokens]
    start = 0
    if tuple(folded[:2]) in _QUESTION_OPENERS:
        start = 2
    elif folded and folded[0] in _QUESTION_WORDS:
        start = 1
    while start < len(tokens) and folded[start] in _AUXILIARIES:
        start += 1
    rest = tokens[start:]
    if rest and rest[0] in _COPULAS:  # "is Scott's birthday" reads as "Scott's birthday is"
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
        or _fold(tokens[0]) in _QUESTION_WORDS
        or tuple(_fold(t) for t in tokens[:2]) in _QUESTION_OPENERS
    )
    body = _strip_question(tokens) if question else tokens
    verb = next((i for i, t in enumerate(body) if _fold(t) in _VERBS), None)
    copula = next((i for i, t in enumerate(body) if t in _COPULAS), None)
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
