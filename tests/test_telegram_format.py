"""Markdown rendered as Telegram HTML and MarkdownV2, checked by the fake's markup parser."""

from __future__ import annotations

import random

import pytest

from adapters.telegram.format import (
    fit_chunks,
    parse_inline,
    render_html,
    render_markdown_v2,
    utf16_len,
)
from tests.fakes.telegram_api import parse_markup
from tests.test_formatting import _document

NASTY = [
    "<script>alert(1)</script>",
    "a < b > c & d",
    "&amp; &lt; &#39;",
    "**unclosed bold",
    "*a **b* c**",
    "_under_score_ snake_case",
    "`code with <tags> & *stars*`",
    "[link](javascript:alert(1))",
    '[link](https://example.org/?q=<x>&y="z")',
    "1. a. b! c? (d) {e} [f] #g +h -i =j |k ~l .",
    "> quoted <b>\n> more",
    "~~strike~~ and ~single~",
    "back\\slash \\* and \\_",
    "emoji 😀 and ZWJ 👩‍👩‍👧",
    "```\nunterminated code <b>",
    "``` js\nlet a = `x` + '<y>';\n```",
    "    indented code & stuff",
    "***",
    "# Heading with **bold** and `code`",
]


@pytest.mark.parametrize("text", NASTY)
def test_nasty_inputs_render_to_valid_markup(text: str) -> None:
    parse_markup(render_html(text), "html")
    parse_markup(render_markdown_v2(text), "markdownv2")


@pytest.mark.parametrize("seed", range(150))
def test_generated_documents_render_to_valid_markup_keeping_every_word(seed: int) -> None:
    rng = random.Random(seed)
    text = _document(rng)
    for render, mode in ((render_html, "html"), (render_markdown_v2, "markdownv2")):
        visible = parse_markup(render(text), mode)
        for word in ("persona", "sqlite", "garden", "résumé", "😀", "<tag>", "&"):
            assert text.count(word) <= visible.count(word) + text.count(f"`{word}`"), (word, mode)


def test_only_telegram_tags_are_produced() -> None:
    html = render_html("# T\n**b** *i* ~~s~~ `c` [a](https://x.org)\n> q\n\n```py\nx\n```\n- item")
    assert html == (
        "<b>T</b>\n<b>b</b> <i>i</i> <s>s</s> <code>c</code> "
        '<a href="https://x.org">a</a>\n<blockquote>q</blockquote>\n\n'
        '<pre><code class="language-py">x</code></pre>\n\n• item'
    )


def test_html_escapes_text_attributes_and_code() -> None:
    assert render_html("<script>&") == "&lt;script&gt;&amp;"
    assert render_html("`<b>&`") == "<code>&lt;b&gt;&amp;</code>"
    assert render_html('[x](https://e.org/?a="1"&b=2)') == (
        '<a href="https://e.org/?a=&quot;1&quot;&amp;b=2">x</a>'
    )
    assert render_html("```\n</pre><b>\n```") == "<pre>&lt;/pre&gt;&lt;b&gt;</pre>"


def test_unsafe_link_schemes_stay_text() -> None:
    assert "<a" not in render_html("[click](javascript:alert(1))")
    assert "<a" not in render_html("[click](file:///etc/passwd)")


def test_identifiers_and_arithmetic_are_not_emphasis() -> None:
    assert render_html("snake_case_name and 2*3*4") == "snake_case_name and 2*3*4"
    assert render_markdown_v2("snake_case_name") == "snake\\_case\\_name"


def test_markdown_v2_escapes_every_reserved_character() -> None:
    specials = "_*[]()~`>#+-=|{}.!\\"
    rendered = render_markdown_v2(f"x {' '.join(specials)} y")
    assert parse_markup(rendered, "markdownv2") == f"x {' '.join(specials)} y"


def test_parse_inline_nests_spans() -> None:
    (bold,) = parse_inline("**a *b* `c`**")
    assert bold.kind == "bold"
    assert [s.kind for s in bold.children] == ["text", "italic", "text", "code"]


def test_utf16_length_counts_astral_characters_twice() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("😀") == 2
    assert utf16_len("é") == 1


@pytest.mark.parametrize("seed", range(40))
def test_fit_chunks_bounds_the_rendered_length(seed: int) -> None:
    rng = random.Random(seed)
    text = "\n\n".join(_document(rng) for _ in range(8)) + " <&>😀" * rng.randint(0, 2000)
    limit = rng.choice([200, 1000, 4096])
    chunks = fit_chunks(text, render_html, limit)
    for markdown, rendered in chunks:
        assert utf16_len(rendered) <= limit
        assert rendered == render_html(markdown)
        parse_markup(rendered, "html")
