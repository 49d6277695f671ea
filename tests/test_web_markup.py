"""Chat messages rendered as markdown in a safe subset: formatting shows, nothing runs."""

from __future__ import annotations

from bot.web.markup import render_message


def test_markdown_is_formatted() -> None:
    html = render_message("**tea** at *four*\n\n- milk\n- sugar\n\n```\nkettle()\n```")
    assert "<strong>tea</strong>" in html and "<em>four</em>" in html
    assert "<li>milk</li>" in html
    assert "<pre><code>kettle()" in html


def test_raw_html_from_the_model_is_shown_as_text() -> None:
    html = render_message('<script>alert(1)</script> and <img src=x onerror="alert(2)">')
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html


def test_only_safe_links_keep_their_target() -> None:
    html = render_message("[docs](https://example.org/a) and [run](javascript:alert(1))")
    assert '<a href="https://example.org/a" rel="noopener noreferrer nofollow"' in html
    assert "javascript" not in html
    assert "<span>run</span>" in html


def test_an_image_becomes_a_link_and_is_not_loaded() -> None:
    html = render_message("![a cat](https://example.org/cat.png)")
    assert "<img" not in html
    assert 'href="https://example.org/cat.png"' in html and "[image: a cat]" in html
