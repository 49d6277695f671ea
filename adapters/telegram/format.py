"""Markdown answers rendered for Telegram: HTML or MarkdownV2, and cut to Telegram's limit.

Telegram understands only a few HTML tags (``b i u s code pre a blockquote``) and rejects a
message whose markup it cannot parse, so answers are not fed through a general markdown
library: a small parser reads the markdown a language model writes (paragraphs, fenced code,
headings, lists, quotes, ``**bold**``, ``*italic*``, ``~~strike~~``, ``code``, links) into
spans, and one emitter per parse mode writes them out. Everything else is text and is
escaped, so ``<script>`` arrives as the characters ``<script>``.

Telegram measures a message in UTF-16 code units; :func:`fit_chunks` splits the markdown
first and splits again any chunk whose rendered form is still too long.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.turn.formatting import CodeBlock, parse_blocks, split_markdown

__all__ = [
    "MAX_MESSAGE_UTF16",
    "Span",
    "fit_chunks",
    "parse_inline",
    "render_html",
    "render_markdown_v2",
    "utf16_len",
]

#: Telegram's limit for one text message, in UTF-16 code units
MAX_MESSAGE_UTF16 = 4096

SpanKind = Literal["text", "code", "bold", "italic", "strike", "link"]

_INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+)(?P<code_body>.+?)(?<!`)(?P=ticks)(?!`))"
    r"|(?P<link>\[(?P<link_text>[^\]\n]+)\]"
    r"\((?P<link_url>(?:[^()\s]|\([^()\s]*\))+)(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<auto><(?P<auto_url>(?:https?|mailto|tg):[^>\s]+)>)"
    r"|(?P<bold>\*\*(?=\S)(?P<bold_body>.+?)(?<=\S)\*\*"
    r"|(?<!\w)__(?=\S)(?P<bold_body2>.+?)(?<=\S)__(?!\w))"
    r"|(?P<strike>~~(?=\S)(?P<strike_body>.+?)(?<=\S)~~)"
    r"|(?P<italic>(?<![\w*])\*(?=[^\s*])(?P<italic_body>.+?)(?<=[^\s*])\*(?![\w*])"
    r"|(?<![\w_])_(?=[^\s_])(?P<italic_body2>.+?)(?<=[^\s_])_(?![\w_]))"
)
_SAFE_SCHEMES = ("http://", "https://", "mailto:", "tg://")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<body>.*?)(?:\s+#+)?\s*$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(?P<body>.*)$")
_BULLET = re.compile(r"^(?P<indent>\s*)[*+-]\s+(?P<body>\S.*)$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_V2_SPECIAL = re.compile(r"([_*\[\]()~`>#+\-=|{}.!\\])")
_V2_CODE = re.compile(r"([`\\])")
_V2_URL = re.compile(r"([)\\])")
_BACKSLASHED = r"\\\1"


@dataclass(frozen=True, slots=True)
class Span:
    """One piece of inline markdown: plain text, code, or formatting around child spans."""

    kind: SpanKind
    text: str = ""
    children: tuple[Span, ...] = ()
    url: str = ""


def parse_inline(text: str, *, in_link: bool = False) -> list[Span]:
    """Read inline markdown into spans; anything that is not markup stays text."""
    spans: list[Span] = []
    last = 0
    for match in _INLINE.finditer(text):
        if in_link and (match["link"] or match["auto"] or match["code"]):
            continue  # a link cannot hold another link or code
        if match.start() > last:
            spans.append(Span("text", text[last : match.start()]))
        spans.append(_span(match, in_link))
        last = match.end()
    if last < len(text):
        spans.append(Span("text", text[last:]))
    return spans


def _span(match: re.Match[str], in_link: bool) -> Span:
    if match["code"]:
        body = match["code_body"]
        if body.startswith(" ") and body.endswith(" ") and body.strip():
            body = body[1:-1]
        return Span("code", body)
    if match["link"] or match["auto"]:
        url = match["link_url"] or match["auto_url"]
        label = match["link_text"] or url
        if not url.lower().startswith(_SAFE_SCHEMES):
            return Span("text", match.group(0))
        return Span("link", children=tuple(parse_inline(label, in_link=True)), url=url)
    for kind, groups in (
        ("bold", ("bold_body", "bold_body2")),
        ("strike", ("strike_body",)),
        ("italic", ("italic_body", "italic_body2")),
    ):
        body = next((match[g] for g in groups if match[g] is not None), None)
        if body is not None:
            return Span(kind, children=tuple(parse_inline(body, in_link=in_link)))  # type: ignore[arg-type]
    return Span("text", match.group(0))


_HTML_TAGS = {"bold": "b", "italic": "i", "strike": "s"}


def _html_spans(spans: list[Span] | tuple[Span, ...]) -> str:
    out: list[str] = []
    for span in spans:
        if span.kind == "text":
            out.append(html.escape(span.text, quote=False))
        elif span.kind == "code":
            out.append(f"<code>{html.escape(span.text, quote=False)}</code>")
        elif span.kind == "link":
            href = html.escape(span.url, quote=True)
            out.append(f'<a href="{href}">{_html_spans(span.children)}</a>')
        else:
            tag = _HTML_TAGS[span.kind]
            out.append(f"<{tag}>{_html_spans(span.children)}</{tag}>")
    return "".join(out)


def _v2_spans(spans: list[Span] | tuple[Span, ...]) -> str:
    marks = {"bold": "*", "italic": "_", "strike": "~"}
    out: list[str] = []
    for span in spans:
        if span.kind == "text":
            out.append(_V2_SPECIAL.sub(_BACKSLASHED, span.text))
        elif span.kind == "code":
            out.append("`" + _V2_CODE.sub(_BACKSLASHED, span.text) + "`")
        elif span.kind == "link":
            url = _V2_URL.sub(_BACKSLASHED, span.url)
            out.append(f"[{_v2_spans(span.children)}]({url})")
        else:
            mark = marks[span.kind]
            out.append(f"{mark}{_v2_spans(span.children)}{mark}")
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Dialect:
    inline: Callable[[list[Span]], str]
    bold: Callable[[str], str]
    code_block: Callable[[CodeBlock], str]
    quote: Callable[[list[str]], str]
    bullet: str


def _html_code(block: CodeBlock) -> str:
    body = html.escape("\n".join(block.lines), quote=False)
    if block.language:
        lang = html.escape(block.language, quote=True)
        return f'<pre><code class="language-{lang}">{body}</code></pre>'
    return f"<pre>{body}</pre>"


def _v2_code(block: CodeBlock) -> str:
    body = _V2_CODE.sub(_BACKSLASHED, "\n".join(block.lines))
    lang = re.sub(r"[^\w+#.-]", "", block.language)
    return f"```{lang}\n{body}\n```"


_HTML = _Dialect(
    inline=_html_spans,
    bold=lambda s: f"<b>{s}</b>",
    code_block=_html_code,
    quote=lambda lines: "<blockquote>" + "\n".join(lines) + "</blockquote>",
    bullet="• ",
)
_MARKDOWN_V2 = _Dialect(
    inline=_v2_spans,
    bold=lambda s: f"*{s}*",
    code_block=_v2_code,
    quote=lambda lines: "\n".join(">" + line for line in lines),
    bullet="• ",
)


def _render(markdown: str, dialect: _Dialect) -> str:
    parts: list[str] = []
    for block in parse_blocks(markdown):
        if isinstance(block, CodeBlock):
            parts.append(dialect.code_block(block))
            continue
        lines: list[str] = []
        quoted: list[str] = []
        for line in block.split("\n"):
            quote = _QUOTE.match(line)
            if quote:
                quoted.append(_render_line(quote["body"], dialect))
                continue
            if quoted:
                lines.append(dialect.quote(quoted))
                quoted = []
            lines.append(_render_line(line, dialect))
        if quoted:
            lines.append(dialect.quote(quoted))
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _render_line(line: str, dialect: _Dialect) -> str:
    if _RULE.match(line):
        return "──────────"
    heading = _HEADING.match(line)
    if heading:
        return dialect.bold(dialect.inline(parse_inline(heading["body"])))
    bullet = _BULLET.match(line)
    if bullet:
        body = dialect.inline(parse_inline(bullet["body"]))
        return bullet["indent"] + dialect.bullet + body
    return dialect.inline(parse_inline(line))


def render_html(markdown: str) -> str:
    """Markdown as Telegram HTML (``parse_mode="HTML"``), every other character escaped."""
    return _render(markdown, _HTML)


def render_markdown_v2(markdown: str) -> str:
    """Markdown as Telegram MarkdownV2 (``parse_mode="MarkdownV2"``), specials escaped."""
    return _render(markdown, _MARKDOWN_V2)


def utf16_len(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji is often two)."""
    return len(text.encode("utf-16-le")) // 2


def fit_chunks(
    markdown: str, render: Callable[[str], str], limit: int = MAX_MESSAGE_UTF16
) -> list[tuple[str, str]]:
    """Split ``markdown`` into ``(markdown_chunk, rendered_chunk)`` pairs that each fit.

    The markdown is split at ``limit`` characters first; a chunk whose rendered form is
    longer than ``limit`` UTF-16 units (escaping and tags add length) is split again, smaller.
    """
    out: list[tuple[str, str]] = []
    for chunk in split_markdown(markdown, limit):
        out.extend(_fit(chunk, render, limit))
    return out


def _fit(chunk: str, render: Callable[[str], str], limit: int) -> list[tuple[str, str]]:
    rendered = render(chunk)
    size = utf16_len(rendered)
    if size <= limit or len(chunk) <= 1:
        return [(chunk, rendered)]
    smaller = max(1, min(len(chunk) - 1, len(chunk) * limit // size - 32))
    out: list[tuple[str, str]] = []
    for piece in split_markdown(chunk, smaller):
        out.extend(_fit(piece, render, limit))
    return out
