"""Chat messages as HTML: markdown rendered to a safe subset, never raw HTML from the model.

The console shows what the persona wrote as formatted text (paragraphs, emphasis, lists,
code, tables, links), with the same markdown library and extensions the Matrix adapter uses.
Anything that could run or load something in the user's browser is kept out:

- raw HTML in the text (``<script>``, ``<img onerror=…>``) is not parsed as HTML at all, so it
  is shown as the characters that were written;
- a link keeps its target only when it is ``http``, ``https`` or ``mailto`` (a
  ``javascript:`` link becomes plain text) and opens without telling the target where from;
- an image becomes a link to it, so a message cannot make the browser fetch anything.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

__all__ = ["SAFE_SCHEMES", "render_message"]

#: link targets a message may carry
SAFE_SCHEMES = ("http://", "https://", "mailto:")
_EXTENSIONS: list[str | Extension] = ["fenced_code", "tables", "sane_lists", "nl2br"]


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


class _NoRawHtml(Extension):  # type: ignore[misc]  # the library has no types
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_SafeLinks(md), "safe_links", 0)


def render_message(text: str) -> str:
    """``text`` (markdown) as HTML that is safe to put in the page as it is."""
    # a fresh instance per message: a Markdown object keeps state between conversions
    md = markdown.Markdown(extensions=[*_EXTENSIONS, _NoRawHtml()], output_format="html")
    html: str = md.convert(text)
    return html.strip()
