"""Chat messages rendered as markdown in a safe subset: formatting shows, nothing runs."""

from __future__ import annotations

from bot.web.markup import MARKDOWN_CHARS, render_message


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


def test_hostile_links_keep_no_target_that_could_run() -> None:
    for text in (
        "[x](JaVaScRiPt:alert(1))",
        "[x]( javascript:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "![x](javascript:alert(1))",
        "<javascript:alert(1)>",
    ):
        html = render_message(text)
        assert "href" not in html and "<img" not in html, text
    html = render_message('<http://a" onmouseover="alert(1)>')  # the quote stays in the address
    assert 'href="http://a&quot; onmouseover=&quot;alert(1)"' in html


def test_a_message_built_to_be_slow_to_format_is_shown_without_a_scan_to_its_end() -> None:
    # every "[a](" left open made the formatter look for its ")" to the end of the text: a
    # message of 30,000 such characters held the whole daemon for half a minute
    for unit in ("[a](", "![a](", "[[a](", "[a](<"):
        text = unit * (MARKDOWN_CHARS // len(unit))
        assert "href" not in render_message(text)
    many = " ".join(f"[link {n}](https://example.org/{n})" for n in range(100))
    assert render_message(many).count('href="https://example.org/') == 100
    # a text the router will refuse is still shown in the page as sent: a long one, as written
    for text in ("a\n" * 500_000, "*_" * 500_000, "`a" * 500_000, "&#1;" * 250_000):
        assert "<em>" not in render_message(text)  # shown as written, not formatted
    shown = render_message("<script>alert(1)</script>\n" * 5_000)
    assert (
        "<script" not in shown and shown.count("&lt;script&gt;alert(1)&lt;/script&gt;<br>") > 4_000
    )
