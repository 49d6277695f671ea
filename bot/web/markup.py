"""Chat messages as HTML: markdown rendered to a safe subset, never raw HTML from the model.

The console shows what the persona wrote as formatted text (paragraphs, emphasis, lists,
code, tables, links), with the same markdown library and extensions the Matrix adapter uses.
Anything that could run or load something in the user's browser is kept out:

- raw HTML in the text (``<script>``, ``<img onerror=…>``) is not parsed as HTML at all, so it
  is shown as the characters that were written;
- a link keeps its target only when it is ``http``, ``https`` or ``mailto`` (a
  ``javascript:`` link becomes plain text) and opens without telling the target where from;
- an image becomes a link to it, so a message cannot make the browser fetch anything.

Formatting must stay quick whatever the text, since it holds the whole daemon while it runs
(a user can type a hostile text; a model can repeat one from a web page). The library looks
for a link's closing ``)`` up to the end of the text, for every ``[text](`` it meets, and
other constructs slow down with the square of their length: so a link's target is looked for
in the :data:`TARGET_CHARS` characters after it, for the first :data:`MAX_LINKS` links of a
message (past them the text shows as written), and a message longer than
:data:`MARKDOWN_CHARS` is shown as plain text, its lines kept.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as etree

import markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import (
    IMAGE_LINK_RE,
    LINK_RE,
    ImageInlineProcessor,
    LinkInlineProcessor,
)
from markdown.treeprocessors import Treeprocessor

__all__ = ["MARKDOWN_CHARS", "MAX_LINKS", "SAFE_SCHEMES", "TARGET_CHARS", "render_message"]

#: link targets a message may carry
SAFE_SCHEMES = ("http://", "https://", "mailto:")
_EXTENSIONS: list[str | Extension] = ["fenced_code", "tables", "sane_lists", "nl2br"]
#: the characters after ``[text](`` in which a link's target and title must end
TARGET_CHARS = 2048
#: the links (and images) of one message formatted as such
MAX_LINKS = 500
#: the longest message formatted as markdown; a longer one is shown as plain text
MARKDOWN_CHARS = 32_000


def _safe_target(url: str | None) -> str | None:
    url = (url or "").strip()
    return url if url.lower().startswith(SAFE_SCHEMES) else None


class _SafeLinks(Treeprocessor):  # type: ignore[misc]  # the library has no types
    """Links keep only safe targets; images turn into links."""

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            if element.tag == "img":
                target = _safe_target(element.get("src"))
                label = element.get("alt") or element.get("src") or ""
                element.attrib.clear()
                element.tag = "a"
                element.text = f"[image: {label}]" if label else "[image]"
                if target:
                    element.set("href", target)
            if element.tag == "a":
                target = _safe_target(element.get("href"))
                element.attrib.clear()
                if target is None:
                    element.tag = "span"
                    continue
                element.set("href", target)
                element.set("rel", "noopener noreferrer nofollow")
                element.set("target", "_blank")


class _BoundedLink(LinkInlineProcessor):  # type: ignore[misc]  # the library has no types
    """A link whose target is looked for within :data:`TARGET_CHARS`, for the first
    :data:`MAX_LINKS` links of a message (one instance formats one message)."""

    tries = 0

    def getLink(self, data: str, index: int) -> tuple[str, str | None, int, bool]:
        self.tries += 1
        if self.tries > MAX_LINKS:
            return "", None, index, False
        found: tuple[str, str | None, int, bool] = super().getLink(
            data[: index + TARGET_CHARS], index
        )
        return found


class _BoundedImage(_BoundedLink, ImageInlineProcessor):  # type: ignore[misc]
    """An image (then made a link by :class:`_SafeLinks`), bounded as links are."""


class _NoRawHtml(Extension):  # type: ignore[misc]  # the library has no types
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.inlinePatterns.register(_BoundedLink(LINK_RE, md), "link", 160)
        md.inlinePatterns.register(_BoundedImage(IMAGE_LINK_RE, md), "image_link", 150)
        md.treeprocessors.register(_SafeLinks(md), "safe_links", 0)


def render_message(text: str) -> str:
    """``text`` (markdown) as HTML that is safe to put in the page as it is."""
    if len(text) > MARKDOWN_CHARS:
        return "<p>" + html.escape(text.strip()).replace("\n", "<br>\n") + "</p>"
    # a fresh instance per message: a Markdown object keeps state between conversions
    md = markdown.Markdown(extensions=[*_EXTENSIONS, _NoRawHtml()], output_format="html")
    formatted: str = md.convert(text)
    return formatted.strip()
