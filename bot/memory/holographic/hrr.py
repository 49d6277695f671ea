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

The roles themselves come from text through :mod:`bot.memory.holographic.parse`; the parser's public
names (``parse``, ``Parsed``, ``FUNCTIONAL``) stay importable from here too.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from bot.memory.holographic.lexicon import FUNCTIONAL
from bot.memory.holographic.parse import Parsed, parse

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

    def probe_weighted(self, role: str, weights: Mapping[str, float]) -> tuple[list[str], Vector]:
        """Like :meth:`probe` for one role whose words may weigh unequally: item ids and one
        similarity each."""
        if not weights or not self._ids:
            return list(self._ids), np.zeros(len(self._ids))
        total = np.zeros(self.dim)
        for word, weight in weights.items():
            total = total + weight * symbol(word, self.dim)
        norm = float(np.linalg.norm(total))
        if norm == 0:
            return list(self._ids), np.zeros(len(self._ids))
        return list(self._ids), self._matrix @ bind(self._roles[role], total / norm)

    def decode(self, item_id: str, role: str, k: int = 3) -> list[tuple[str, float]]:
        """Unbind ``role`` from the item's trace and clean it up: the words it holds."""
        position = self._position.get(item_id)
        if position is None:
            return []
        noisy = unbind(self._matrix[position], self._roles[role])
        return self.cleanup.nearest(noisy, k)
