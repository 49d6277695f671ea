"""The embedding models: what turns a text into a vector of its meaning, run by onnxruntime
from weights that ship in a Python package (nothing is ever downloaded).

:mod:`bot.memory.embedding.models` picks and loads a model (multilingual-e5-small, else
all-MiniLM-L6-v2, else none); the rest are its parts: the model files' readers
(``e5_file``, ``tensor_file``), the tokenizers (``unigram``, ``wordpiece``), the graph
written around the weights (``encoder_graph`` in ``onnx_proto``'s wire form), numbers packed
into bytes and nibbles (``byte_rows``, the vector index's too), e5's centre (``e5_centre``)
and the model's turns between callers (``model_turns``). The index of the vectors and their
store are the memory backend's (:mod:`bot.memory.sqlite.vector_index`). This package imports
nothing on its own.
"""

__all__: list[str] = []
