"""The few ONNX messages a hand-written graph needs, written straight to protobuf's wire form.

:mod:`bot.memory.embedding.encoder_graph` writes the encoder node by node; onnxruntime reads the
bytes. The ``onnx`` package would write them too, but importing it keeps 12 MB resident for
the life of the daemon, for a graph built once at start. The messages and their field numbers
are those of ``onnx.proto`` (proto2: a repeated number is written as one field per value,
which every reader accepts); ``tests/test_memory_onnx_proto.py`` checks the bytes against the
``onnx`` package itself.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["IR_VERSION", "attribute", "external_tensor", "graph", "model", "node", "tensor"]

IR_VERSION = 8
"""The ONNX file format of opset 17's time, read by every onnxruntime since 1.12."""

#: ``TensorProto.DataType`` by numpy type
_ELEMENT = {
    np.dtype(np.float32): 1,
    np.dtype(np.uint8): 2,
    np.dtype(np.int8): 3,
    np.dtype(np.int64): 7,
}
_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL
_ATTRIBUTE_FLOAT, _ATTRIBUTE_INT, _ATTRIBUTE_INTS = 1, 2, 7

_VARINT, _FIXED32, _BYTES = 0, 5, 2


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 is written as its two's complement
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _key(number, _VARINT) + _varint(value)


def _ints(number: int, values: Iterable[int]) -> bytes:
    return b"".join(_int(number, value) for value in values)


def _message(number: int, body: bytes) -> bytes:
    return _key(number, _BYTES) + _varint(len(body)) + body


def _text(number: int, value: str) -> bytes:
    return _message(number, value.encode("utf-8"))


def _element(dtype: npt.DTypeLike) -> int:
    return _ELEMENT[np.dtype(dtype)]


def tensor(name: str, array: npt.NDArray[Any]) -> bytes:
    """A ``TensorProto`` holding ``array``'s numbers (little-endian, row-major)."""
    data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False)
    return (
        _ints(1, array.shape)
        + _int(2, _element(array.dtype))
        + _text(8, name)
        + _message(9, data.tobytes())
    )


def external_tensor(name: str, shape: Sequence[int], dtype: npt.DTypeLike) -> bytes:
    """A ``TensorProto`` whose numbers are handed to the session beside the graph
    (``SessionOptions.add_external_initializers``), not written into it."""
    place = _text(1, "location") + _text(2, "memory")  # StringStringEntryProto
    return (
        _ints(1, shape)
        + _int(2, _element(dtype))
        + _text(8, name)
        + _message(13, place)
        + _int(14, _EXTERNAL)
    )


def attribute(name: str, value: float | int | Sequence[int]) -> bytes:
    """An ``AttributeProto``: a float, an int or a list of ints."""
    if isinstance(value, float):
        return (
            _text(1, name)
            + _key(2, _FIXED32)
            + struct.pack("<f", value)
            + _int(20, _ATTRIBUTE_FLOAT)
        )
    if isinstance(value, int):
        return _text(1, name) + _int(3, value) + _int(20, _ATTRIBUTE_INT)
    return _text(1, name) + _ints(8, value) + _int(20, _ATTRIBUTE_INTS)


def node(
    op_type: str,
    inputs: Sequence[str],
    output: str | Sequence[str],
    domain: str = "",
    **attributes: Any,
) -> bytes:
    """A ``NodeProto`` of one output (or several), named after its (first) output; an operator
    of the default set unless ``domain`` names another (``"com.microsoft"``: onnxruntime's
    own). An optional input left out is an empty name."""
    outputs = [output] if isinstance(output, str) else list(output)
    return (
        b"".join(_text(1, name) for name in inputs)
        + b"".join(_text(2, name) for name in outputs)
        + _text(3, outputs[0])
        + _text(4, op_type)
        + b"".join(_message(5, attribute(key, value)) for key, value in attributes.items())
        + (_text(7, domain) if domain else b"")
    )


def _value_info(name: str, dtype: npt.DTypeLike, dims: Sequence[str | int]) -> bytes:
    """A ``ValueInfoProto``: a tensor of ``dtype`` whose dimensions are named or fixed."""
    shape = b"".join(
        _message(1, _text(2, dim) if isinstance(dim, str) else _int(1, dim)) for dim in dims
    )
    tensor_type = _int(1, _element(dtype)) + _message(2, shape)
    return _text(1, name) + _message(2, _message(1, tensor_type))


def graph(
    name: str,
    nodes: Sequence[bytes],
    initializers: Sequence[bytes],
    inputs: Sequence[tuple[str, npt.DTypeLike, Sequence[str | int]]],
    outputs: Sequence[tuple[str, npt.DTypeLike, Sequence[str | int]]],
) -> bytes:
    """A ``GraphProto``: its nodes in order, its weights, its inputs and outputs."""
    return (
        b"".join(_message(1, n) for n in nodes)
        + _text(2, name)
        + b"".join(_message(5, t) for t in initializers)
        + b"".join(_message(11, _value_info(*value)) for value in inputs)
        + b"".join(_message(12, _value_info(*value)) for value in outputs)
    )


def model(body: bytes, opset: int, domains: Mapping[str, int] | None = None) -> bytes:
    """A ``ModelProto`` around a graph, importing the default operator set ``opset`` and
    each of ``domains`` at its version."""
    imports = {"": opset, **(domains or {})}
    return (
        _int(1, IR_VERSION)
        + _message(7, body)
        + b"".join(
            _message(8, _text(1, name) + _int(2, version)) for name, version in imports.items()
        )
    )
