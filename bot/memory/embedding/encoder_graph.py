"""A BERT sentence encoder as an ONNX graph, built from its weights, for onnxruntime:
all-MiniLM-L6-v2 (from its safetensors) and multilingual-e5-small (from its packed 4-bit file,
:mod:`bot.memory.embedding.e5_file`).

The graph is BERT's forward pass and the sentence pooling: token + position + segment
embeddings and their LayerNorm; layers (six of MiniLM's, twelve of e5's) of 12-head
self-attention and a GELU feed-forward block, each followed by a residual LayerNorm; the mean
of the real tokens' rows, L2-normalised.
Inputs are the token ids and the attention mask (both ``int64``, batch x tokens); the output
is one normalised row per text. Attention and the GELU run as onnxruntime's own operators
(``MultiHeadAttention``, ``BiasGelu``), and each linear layer's bias is added by its product:
a layer is 11 steps, not 29, and e5's question takes 5-7% less time (docs/BENCHMARKS.md).

Nothing is exported or downloaded: the graph is written here, node by node, around the
package's own weights (in protobuf's wire form, by :mod:`bot.memory.embedding.onnx_proto`), and
handed to onnxruntime in memory. The word rows are kept as signed bytes and a scale a row
(12 MB instead of 47) and widened after they are gathered. The linear layers' matrices are
kept as bytes too, with a scale for each 32 weights of an output (11 MB instead of 42), and
multiplied by onnxruntime's ``MatMulNBits`` in integers (onnxruntime 1.22 or later). The large
weights are not copied into the serialised graph: it names them as external data, and
:func:`encoder_model` returns them beside it for ``SessionOptions.add_external_initializers``,
so the model exists once in the session's own memory (the session copies them in; the arrays
can go once it is built). A model whose matrices come in 4 bits already (:class:`Blocks4`:
e5's) keeps them so, multiplied by ``MatMulNBits`` of 4 bits with the same codes and scales,
and its word rows are widened to float32 a block of rows at a time and kept as bytes like
MiniLM's. MiniLM's vectors are those of a plain float32 forward pass at a cosine
of 0.997 or more (``tests/data/minilm_reference.json``; 0.9995 on average over set B's
texts), and recall@5 on each of the three conversation sets moved by 0.003 at most (one
held-out part by 0.013; docs/BENCHMARKS.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from bot.memory.embedding import onnx_proto as proto
from bot.memory.embedding.byte_rows import as_bytes
from bot.memory.embedding.e5_file import Blocks4

__all__ = ["EncoderModel", "encoder_model"]

#: LayerNormalization is an operator from opset 17 on; a Split of no ``split`` input into
#: equal parts, and ReduceL2's ``axes`` attribute, are opset 17's (18 changed both)
_OPSET = 17
#: weights with at least this many numbers are handed over beside the graph, not inside it
_EXTERNAL = 4096
_FLOAT = 1  # TensorProto.DataType.FLOAT, a Cast's target
_INT32 = 6  # TensorProto.DataType.INT32
_ORT = "com.microsoft"  # onnxruntime's own operators, MatMulNBits among them
#: a linear layer's weights share a scale in blocks of this many of one output's
_BLOCK = 32
_CODE_ZERO = 128  # MatMulNBits' codes are unsigned: a signed byte's code plus this
#: word rows widened to float32 this many at a time, to keep the loading's peak low
_WORD_ROWS_AT_ONCE = 4096

Matrix = npt.NDArray[Any] | Blocks4
"""A linear layer's weights (out x in): float32, or already in 4 bits."""


class EncoderModel(NamedTuple):
    """The serialised graph, and the weights it names as external data, by name."""

    graph: bytes
    weights: dict[str, npt.NDArray[Any]]


class _Graph:
    """Nodes and weights appended in order; each node's output is named after its step."""

    def __init__(self) -> None:
        self.nodes: list[bytes] = []
        self.weights: list[bytes] = []
        self.external: dict[str, npt.NDArray[Any]] = {}

    def weight(self, name: str, value: npt.ArrayLike, dtype: type = np.float32) -> str:
        array: npt.NDArray[Any] = np.array(value, dtype=dtype, order="C")
        if array.size < _EXTERNAL:
            self.weights.append(proto.tensor(name, array))
        else:
            self.weights.append(proto.external_tensor(name, array.shape, array.dtype))
            self.external[name] = array
        return name

    def op(self, kind: str, inputs: list[str], name: str, **attributes: Any) -> str:
        self.nodes.append(proto.node(kind, inputs, name, **attributes))
        return name

    def ops(self, kind: str, inputs: list[str], names: list[str], **attributes: Any) -> list[str]:
        """A node of several outputs, named ``names``."""
        self.nodes.append(proto.node(kind, inputs, names, **attributes))
        return names

    def product(self, x: str, matrix: Matrix, name: str, bias: str = "") -> str:
        """``x`` times the linear layer ``matrix`` (out x in, as BERT stores it), plus the
        weight ``bias`` when one is named, by onnxruntime's ``MatMulNBits``, whose
        ``accuracy_level`` 4 multiplies in integers, ``x`` quantized in blocks as it goes: kept
        as signed bytes with a scale for each :data:`_BLOCK` weights of an output, or, a matrix
        in 4 bits, in its 4 bits (two codes a byte, the first in the low half; they count from
        8, as :class:`Blocks4`'s do)."""
        columns, rows = matrix.shape
        if isinstance(matrix, Blocks4):
            bits, scales = 4, matrix.scales.reshape(-1)
            codes = matrix.codes
            stored = (codes[:, :, 0::2] | (codes[:, :, 1::2] << 4)).astype(np.uint8)
            del codes
        else:
            bits = 8
            signed, scales = as_bytes(matrix.reshape(-1, _BLOCK))
            stored = (signed.astype(np.int16) + _CODE_ZERO).astype(np.uint8)
            stored = stored.reshape(columns, rows // _BLOCK, _BLOCK)
        return self.op(
            "MatMulNBits",
            [
                x,
                self.weight(f"{name}.codes", stored, np.uint8),
                self.weight(f"{name}.scales", scales),
                *(["", "", bias] if bias else []),  # no zero points, no group order
            ],
            name,
            domain=_ORT,
            K=rows,
            N=columns,
            bits=bits,
            block_size=_BLOCK,
            accuracy_level=4,
        )

    def words(self, rows: Matrix, dim: int) -> str:
        """The rows of ``ids``: a model's float32 word rows kept as signed bytes and a scale a
        row (MiniLM's: 12 MB instead of 47); rows in 4 bits kept in them, two codes a byte as
        the file packs them (e5's 47,284 rows: 9 MB, and 2 of scales), each byte's halves
        taken apart in float once gathered (a half is its code: the values are exact)."""
        if not isinstance(rows, Blocks4):
            signed, row_scales = as_bytes(rows)
            return self.op(
                "Mul",
                [
                    self.op(
                        "Cast",
                        [
                            self.op(
                                "Gather",
                                [self.weight("word_codes", signed, np.int8), "ids"],
                                "word_codes_of",
                            )
                        ],
                        "words8",
                        to=_FLOAT,
                    ),
                    self.op(
                        "Gather",
                        [self.weight("word_scales", row_scales[:, None]), "ids"],
                        "word_scales_of",
                    ),
                ],
                "words",
            )
        packed = self.op(
            "Gather", [self.weight("word_packed", rows.packed, np.uint8), "ids"], "word_packed_of"
        )
        bytes_ = self.op("Cast", [packed], "word_bytes", to=_FLOAT)
        sixteen = self.weight("sixteen", 16.0)
        high = self.op(
            "Floor",
            [self.op("Div", [bytes_, sixteen], "word_bytes/16")],
            "word_high",
        )
        low = self.op(
            "Sub",
            [bytes_, self.op("Mul", [high, sixteen], "word_high*16")],
            "word_low",
        )
        codes = self.op("Concat", [low, high], "word_codes4", axis=-1)  # numbers j, then j + 16
        centred = self.op("Sub", [codes, self.weight("eight", 8.0)], "word_centred")
        scales = self.op(
            "Gather",
            [self.weight("word_block_scales", rows.scales[:, :, None]), "ids"],
            "word_block_scales_of",
        )
        return self.op(
            "Reshape",
            [
                self.op("Mul", [centred, scales], "word_blocks"),
                self.weight("word_shape", [0, 0, dim], np.int64),
            ],
            "words",
        )

    def dense(self, x: str, w: Mapping[str, Any], prefix: str) -> str:
        """``x @ W.T + b`` of the linear layer ``prefix`` (weights stored out x in)."""
        return self.product(
            x, w[f"{prefix}.weight"], prefix, self.weight(f"{prefix}.b", w[f"{prefix}.bias"])
        )

    def layer_norm(self, x: str, w: Mapping[str, Any], prefix: str, eps: float) -> str:
        scale = self.weight(f"{prefix}.w", w[f"{prefix}.weight"])
        shift = self.weight(f"{prefix}.b", w[f"{prefix}.bias"])
        return self.op("LayerNormalization", [x, scale, shift], prefix, axis=-1, epsilon=eps)


def _stacked(parts: list[Matrix]) -> Matrix:
    """The rows of the query's, the key's and the value's matrices, one after another."""
    if all(isinstance(part, Blocks4) for part in parts):
        return Blocks4.stacked([part for part in parts if isinstance(part, Blocks4)])
    return np.concatenate([np.asarray(part) for part in parts])


def _times(matrix: Matrix, factor: np.float32) -> Matrix:
    return matrix.scaled(float(factor)) if isinstance(matrix, Blocks4) else matrix * factor


def encoder_model(
    weights: Mapping[str, Any], config: Mapping[str, Any], name: str = "all-MiniLM-L6-v2"
) -> EncoderModel:
    """The ONNX model of the sentence encoder described by ``config`` (the model's
    ``config.json``) with ``weights`` (names as BERT's; float32 arrays, the matrices either
    float32 or :class:`Blocks4`)."""
    dim = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    g = _Graph()
    w = weights

    # embeddings: the word rows, the rows of positions 0..T-1, segment 0's row; the word rows
    # kept small (below) and widened once gathered
    words = g.words(w["embeddings.word_embeddings.weight"], dim)
    length = g.op(
        "Gather", [g.op("Shape", ["ids"], "ids_shape"), g.weight("one_i", 1, np.int64)], "length"
    )
    positions = g.op(
        "Range",
        [g.weight("zero_i", 0, np.int64), length, g.weight("step_i", 1, np.int64)],
        "positions",
    )
    placed = g.op(
        "Gather",
        [g.weight("position_rows", w["embeddings.position_embeddings.weight"]), positions],
        "placed",
    )
    summed = g.op(
        "Add",
        [
            g.op("Add", [words, placed], "words+placed"),
            g.weight("segment_row", w["embeddings.token_type_embeddings.weight"][0]),
        ],
        "embedded",
    )
    x = g.layer_norm(summed, w, "embeddings.LayerNorm", eps)

    real = g.op("Cast", ["mask"], "real", to=_FLOAT)
    # attention may not look at padding: the mask as onnxruntime's attention reads it
    keys = g.op("Cast", ["mask"], "keys", to=_INT32)
    # the query's part of the product carries attention's 1/sqrt(head size)
    scale = np.float32(1.0 / math.sqrt(dim // heads))

    for layer in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{layer}"
        a = f"{p}.attention.self"
        qkv_w = _stacked(
            [_times(w[f"{a}.query.weight"], scale), w[f"{a}.key.weight"], w[f"{a}.value.weight"]]
        )
        qkv_b = np.concatenate(
            [w[f"{a}.query.bias"] * scale, w[f"{a}.key.bias"], w[f"{a}.value.bias"]]
        )
        # one product for the three, split; onnxruntime's attention adds their biases, and
        # does the heads' scores, the mask, the softmax and the weighted sum in one step
        q, k, v = g.ops(
            "Split", [g.product(x, qkv_w, f"{a}.qkv")], [f"{a}.q", f"{a}.k", f"{a}.v"], axis=-1
        )
        context = g.op(
            "MultiHeadAttention",
            [q, k, v, g.weight(f"{a}.qkv.b", qkv_b), keys],
            f"{a}.context",
            domain=_ORT,
            num_heads=heads,
            scale=1.0,  # carried by the query's weights
        )
        attended = g.dense(context, w, f"{p}.attention.output.dense")
        x = g.layer_norm(
            g.op("Add", [attended, x], f"{p}.attention.residual"),
            w,
            f"{p}.attention.output.LayerNorm",
            eps,
        )

        # GELU, exact (x * (1 + erf(x / sqrt 2)) / 2), of the product plus its bias
        inner = g.op(
            "BiasGelu",
            [
                g.product(x, w[f"{p}.intermediate.dense.weight"], f"{p}.intermediate.dense"),
                g.weight(f"{p}.intermediate.dense.b", w[f"{p}.intermediate.dense.bias"]),
            ],
            f"{p}.gelu",
            domain=_ORT,
        )
        fed = g.dense(inner, w, f"{p}.output.dense")
        x = g.layer_norm(
            g.op("Add", [fed, x], f"{p}.output.residual"), w, f"{p}.output.LayerNorm", eps
        )

    # mean of the real tokens' rows, then L2-normalised
    column = g.op("Unsqueeze", [real, g.weight("last_axis", [-1], np.int64)], "real_column")
    total = g.op(
        "ReduceSum",
        [g.op("Mul", [x, column], "kept"), g.weight("token_axis", [1], np.int64)],
        "total",
        keepdims=0,
    )
    count = g.op("ReduceSum", [real, g.weight("count_axis", [1], np.int64)], "count", keepdims=1)
    mean = g.op("Div", [total, g.op("Max", [count, g.weight("one_token", 1.0)], "count_1")], "mean")
    norm = g.op("ReduceL2", [mean], "norm", axes=[1], keepdims=1)  # opset 17: axes an attribute
    g.op("Div", [mean, g.op("Max", [norm, g.weight("tiny", 1e-12)], "norm_floor")], "vectors")

    body = proto.graph(
        name,
        g.nodes,
        g.weights,
        inputs=[("ids", np.int64, ["batch", "tokens"]), ("mask", np.int64, ["batch", "tokens"])],
        outputs=[("vectors", np.float32, ["batch", dim])],
    )
    return EncoderModel(proto.model(body, _OPSET, {_ORT: 1}), g.external)
