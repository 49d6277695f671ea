"""BERT's uncased WordPiece tokenizer, as the model package's ``tokenizer.json`` describes it.

The ``tokenizers`` library does the same in Rust, and keeps 13 MB resident for a vocabulary of
30,522 pieces; this keeps it in one dict (3.4 MB) and is fast enough for a model whose
forward pass takes milliseconds. The steps are those of ``BertNormalizer`` (control
characters dropped, whitespace made a space, CJK ideographs set apart, accents stripped,
lowercased), ``BertPreTokenizer`` (split at whitespace and around punctuation) and
``WordPiece`` (the longest piece in the vocabulary first, the rest continued with ``##``, a
word of more than 100 characters or with no split: ``[UNK]``), between ``[CLS]`` and ``[SEP]``.
The special tokens said as text (``[MASK]``) are those tokens. ``tests/test_memory_wordpiece.py``
checks the ids against ``tokenizers`` over thousands of English and Portuguese messages and
over every character: 503 of the 202,880 of planes 0 to 3 are read otherwise, combining marks
and punctuation newer than the library's own Unicode tables (Python's know them).
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

__all__ = ["WordPiece"]

_MAX_WORD_CHARS = 100
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),  # the library's range (BERT's own begins at 0x2B820)
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


#: the categories dropped as control characters: not "Cn", unassigned, since a character newer
#: than Python's tables (an emoji of Unicode 15 on Python 3.11) is kept by the library, as [UNK]
_CONTROL = frozenset({"Cc", "Cf", "Co", "Cs"})


def _is_cjk(code: int) -> bool:
    return any(low <= code <= high for low, high in _CJK)


def _normalised(text: str) -> str:
    """``BertNormalizer`` with lowercasing (and so accent stripping) on."""
    kept: list[str] = []
    for char in text:
        code = ord(char)
        if char in "\t\n\r" or (char.isspace() and unicodedata.category(char) not in _CONTROL):
            kept.append(" ")
        elif code == 0 or code == 0xFFFD or unicodedata.category(char) in _CONTROL:
            continue
        elif _is_cjk(code):
            kept.append(f" {char} ")
        else:
            kept.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(kept))
    # one character at a time, as the Rust library does ("ΟΔΟΣ": "οδοσ", no final sigma)
    return "".join(c.lower() for c in decomposed if unicodedata.category(c) != "Mn")


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _words(text: str) -> list[str]:
    """``BertPreTokenizer``: whitespace separates, each punctuation mark is a word alone."""
    words: list[str] = []
    for chunk in text.split():
        start = 0
        for at, char in enumerate(chunk):
            if _is_punctuation(char):
                if at > start:
                    words.append(chunk[start:at])
                words.append(char)
                start = at + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


class WordPiece:
    """Text to token ids for the vocabulary of one ``tokenizer.json`` (BERT's uncased)."""

    def __init__(self, tokenizer_file: Path, *, max_tokens: int) -> None:
        described = json.loads(tokenizer_file.read_text(encoding="utf-8"))
        model = described["model"]
        if model.get("type") != "WordPiece" or model.get("continuing_subword_prefix") != "##":
            raise ValueError(f"{tokenizer_file}: not a WordPiece vocabulary")
        self._ids: dict[str, int] = dict(model["vocab"])
        self._unknown = self._ids[model["unk_token"]]
        self._first, self._last = self._ids["[CLS]"], self._ids["[SEP]"]
        self._max_tokens = max_tokens
        special = sorted((token["content"] for token in described["added_tokens"]), key=len)
        # no added tokens: a pattern that never matches
        self._special = re.compile("|".join(re.escape(t) for t in reversed(special)) or "(?!)")
        del described, model

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text``, ``[CLS]`` first and ``[SEP]`` last, at most
        ``max_tokens`` of them (the text's last pieces dropped)."""
        pieces: list[int] = []
        start = 0
        for said in self._special.finditer(text):
            pieces += self._pieces(text[start : said.start()])
            pieces.append(self._ids[said.group()])
            start = said.end()
        pieces += self._pieces(text[start:])
        return [self._first, *pieces[: self._max_tokens - 2], self._last]

    def _pieces(self, text: str) -> list[int]:
        out: list[int] = []
        for word in _words(_normalised(text)):
            out += self._word(word)
        return out

    def _word(self, word: str) -> list[int]:
        if len(word) > _MAX_WORD_CHARS:
            return [self._unknown]
        found: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self._ids:
                    found.append(self._ids[piece])
                    break
                end -= 1
            else:
                return [self._unknown]
            start = end
        return found
