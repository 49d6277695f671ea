"""A safetensors file read one tensor at a time, for building the encoder without its whole
file in memory.

``safetensors``' ``load_file`` reads the file whole and makes arrays of all of it: 90 MB of
float32 for MiniLM, on top of what the graph keeps of them (25 MB as bytes), so loading the
model raised the process's peak by 181 MB. :class:`TensorFile` maps the file only while one
tensor is copied out, and the pages go with the mapping: loading raises the peak by 94 MB
(``bench/recall_resident.py``; ``tests/test_memory_embeddings.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy.typing as npt

__all__ = ["TensorFile"]


class TensorFile(Mapping[str, npt.NDArray[Any]]):
    """The tensors of the safetensors file ``path`` by name, each read as it is asked for."""

    def __init__(self, path: Path) -> None:
        self._path = path
        with self._opened() as tensors:
            self._names: tuple[str, ...] = tuple(tensors.keys())

    def _opened(self) -> Any:
        from safetensors import safe_open

        return safe_open(str(self._path), framework="numpy")

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        if name not in self._names:
            raise KeyError(name)
        with self._opened() as tensors:
            array: npt.NDArray[Any] = tensors.get_tensor(name)
        return array

    def __contains__(self, name: object) -> bool:  # without reading the tensor
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
