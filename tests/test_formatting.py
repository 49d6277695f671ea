"""Splitting long markdown answers and stripping markdown to plain text."""

from __future__ import annotations

import random
import re

import pytest

from bot.turn.formatting import split_markdown, strip_markdown

WORDS = (
    "the persona remembers what you said yesterday about the garden and the rain "
    "sqlite keeps state small ids flags offsets résumé naïve 😀 <tag> & a_b *x* "
    "supercalifragilisticexpialidocious"
).split()
LANGS = ["", "python", "js", "c++", "toml"]
FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 25))]
    if rng.random() < 0.05:
        words.append("x" * rng.randint(50, 300))  # a "word" longer than most limits
    return " ".join(words).capitalize() + rng.choice([".", "!", "?", ""])


def _paragraph(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 6)):
        prefix = rng.choice(["", "", "- ", "> ", "## ", "1. "])
        lines.append(prefix + " ".join(_sentence(rng) for _ in range(rng.randint(1, 4))))
    return "\n".join(lines)


def _code(rng: random.Random) -> str:
    lang = rng.choice(LANGS)
    lines = []
    for _ in range(rng.randint(0, 40)):
        indent = " " * rng.choice([0, 4, 8])
        lines.append(indent + " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))))
    return "\n".join([f"```{lang}", *lines, "```"])


def _document(rng: random.Random) -> str:
    blocks = [
        _code(rng) if rng.random() < 0.3 else _paragraph(rng) for _ in range(rng.randint(1, 12))
    ]
    return rng.choice(["\n\n", "\n\n\n", "\n"]).join(blocks)


def _fences_balanced(chunk: str) -> bool:
    open_fence: str | None = None
    for line in chunk.split("\n"):
        match = FENCE_LINE.match(line)
        if not match:
            continue
        fence = match.group(1)
        if open_fence is None:
            open_fence = fence
        elif (
            fence[0] == open_fence[0]
            and len(fence) >= len(open_fence)
            and not line.strip(fence[0] + " ")
        ):
            open_fence = None
    return open_fence is None


def _content(text: str) -> str:
    """Everything a reader sees except whitespace and fence lines."""
    kept = [line for line in text.split("\n") if not FENCE_LINE.match(line)]
    return "".join("".join(kept).split())


@pytest.mark.parametrize("seed", range(300))
def test_generated_documents_split_within_limit_without_loss(seed: int) -> None:
    rng = random.Random(seed)
    text = _document(rng)
    limit = rng.choice([40, 64, 100, 200, 500, 1000, 4096])
    chunks = split_markdown(text, limit)
    assert chunks, "a non-empty document gives at least one chunk"
    for chunk in chunks:
        assert 0 < len(chunk) <= limit
        assert chunk.strip()
        assert _fences_balanced(chunk), chunk
    assert _content("\n".join(chunks)) == _content(text)


@pytest.mark.parametrize("seed", range(100))
def test_code_lines_survive_in_order_with_their_language(seed: int) -> None:
    rng = random.Random(1000 + seed)
    lang = rng.choice(["python", "rust", "sh"])
    body = [f"line_{i} = {rng.randint(0, 10**6)}" for i in range(rng.randint(1, 200))]
    text = "Intro paragraph.\n\n" + "\n".join([f"```{lang}", *body, "```"]) + "\n\nThe end."
    chunks = split_markdown(text, rng.choice([60, 120, 400]))
    seen: list[str] = []
    for chunk in chunks:
        lines = chunk.split("\n")
        for index, line in enumerate(lines):
            if line.startswith("line_"):
                seen.append(line)
                opening = next(x for x in reversed(lines[:index]) if x.startswith("```"))
                assert opening == f"```{lang}"
    assert seen == body


def test_empty_and_blank_input_give_no_chunks() -> None:
    assert split_markdown("", 100) == []
    assert split_markdown("  \n\n \t\n", 100) == []


def test_short_text_is_one_chunk_unchanged() -> None:
    assert split_markdown("Hello **there**.\nSecond line.", 100) == [
        "Hello **there**.\nSecond line."
    ]


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="limit"):
        split_markdown("text", 0)


def test_prefers_paragraph_boundaries() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 30 for i in range(10)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    chunks = split_markdown(text, 400)
    for chunk in chunks:
        for part in chunk.split("\n\n"):
            assert part.startswith("Paragraph") and part.endswith("word")
    assert len(chunks) == 5


def test_then_line_boundaries() -> None:
    text = "\n".join(f"line {i} " + "x" * 20 for i in range(20))
    chunks = split_markdown(text, 100)
    assert all(line.startswith("line ") for chunk in chunks for line in chunk.split("\n"))


def test_then_sentence_boundaries() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(30))
    chunks = split_markdown(text, 100)
    assert all(chunk.endswith("ends here.") for chunk in chunks)
    assert " ".join(chunks) == text


def test_then_word_boundaries_and_hard_cut_last() -> None:
    text = " ".join(["word"] * 50)
    chunks = split_markdown(text, 23)
    assert all(chunk.strip("word ") == "" and not chunk.endswith(" ") for chunk in chunks)
    long_word = "a" * 95
    assert split_markdown(long_word, 30) == ["a" * 30, "a" * 30, "a" * 30, "a" * 5]


def test_code_block_is_closed_and_reopened_with_its_tag() -> None:
    code = "\n".join(f"print({i})" for i in range(40))
    text = f"```python\n{code}\n```"
    chunks = split_markdown(text, 120)
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.startswith("```python\n") and chunk.endswith("\n```")
    rejoined = [line for c in chunks for line in c.split("\n")[1:-1]]
    assert rejoined == code.split("\n")


def test_tilde_and_longer_fences_keep_their_fence() -> None:
    inner = "\n".join(["```js", "let a = 1;", "```"] * 10)
    text = f"````markdown\n{inner}\n````"
    chunks = split_markdown(text, 80)
    assert len(chunks) > 1
    assert all(c.startswith("````markdown\n") and c.endswith("\n````") for c in chunks)
    tilde = "~~~\n" + "\n".join(["abc def"] * 30) + "\n~~~"
    assert all(c.startswith("~~~\n") and c.endswith("\n~~~") for c in split_markdown(tilde, 50))


def test_unclosed_fence_is_closed_in_every_chunk() -> None:
    text = "Look:\n\n```sh\n" + "\n".join(["echo hi"] * 30)
    chunks = split_markdown(text, 60)
    assert all(_fences_balanced(c) for c in chunks)
    assert chunks[-1].endswith("```")


def test_text_between_code_blocks_stays_outside_code() -> None:
    text = "```\na\n```\nbetween\n```\nb\n```"
    assert split_markdown(text, 1000) == ["```\na\n```\n\nbetween\n\n```\nb\n```"]


def test_tiny_limit_still_bounds_every_chunk() -> None:
    text = "```python\nprint('hello world')\n```"
    chunks = split_markdown(text, 8)
    assert all(len(c) <= 8 for c in chunks)
    assert "".join("".join(chunks).split()).replace("`", "") == "pythonprint('helloworld')"


def test_strip_markdown() -> None:
    text = (
        "# Title\n**bold** and *it* and _em_ and ~~gone~~ and `a*b*c`\n"
        "[site](https://example.org) ![pic](https://example.org/p.png)\n"
        "- item one\n* item two\n> quoted\n\n```python\nx = **not bold**\n```"
    )
    assert strip_markdown(text) == (
        "Title\nbold and it and em and gone and a*b*c\n"
        "site (https://example.org) pic (https://example.org/p.png)\n"
        "• item one\n• item two\nquoted\n\nx = **not bold**"
    )


def test_strip_markdown_keeps_plain_text_and_identifiers() -> None:
    assert strip_markdown("snake_case_name and 2*3*4 stay") == "snake_case_name and 2*3*4 stay"
    assert strip_markdown("") == ""
