"""The text of a document: plain text, Markdown, CSV or PDF, within a budget.

The model reads a document as its name and its text (UTF-8, or UTF-16 and UTF-32 when a
byte-order mark says so). Beyond ``chars`` characters the text is cut with a visible marker
(as a persona file too long for the prompt is); a PDF is read up to ``max_pages`` pages, and
one with pages but no text (a scan) says so instead of answering from nothing.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from bot.daemon.errors import MediaError
from bot.media.kinds import text_encoding

__all__ = ["Document", "read_pdf", "read_text"]


@dataclass(frozen=True, slots=True)
class Document:
    name: str
    text: str
    #: pages in the file (PDF), 0 for text
    pages: int = 0
    #: characters of the pages read left out past the budget
    cut_chars: int = 0
    #: pages read (a PDF stops at its page cap, or once the budget is full)
    pages_read: int = 0

    def note(self) -> str:
        """How the session log and the prompt name it: ``[document name.pdf, 12 pages]``."""
        label = self.name or "untitled"
        if self.pages:
            unit = "page" if self.pages == 1 else "pages"
            return f"[document {label}, {self.pages} {unit}]"
        return f"[document {label}]"

    def for_model(self) -> str:
        """The note, then the text, then a visible marker where it was cut."""
        left_out = []
        if self.cut_chars:
            left_out.append(f"{self.cut_chars:,} more characters not shown")
        if self.pages_read < self.pages:
            left_out.append(f"pages {self.pages_read + 1}-{self.pages} not read")
        marker = f"\n[… {self.name} cut here: {'; '.join(left_out)}]" if left_out else ""
        return f"{self.note()}\n{self.text}{marker}"


def _budget(text: str, chars: int) -> tuple[str, int]:
    text = text.strip()
    if len(text) <= chars:
        return text, 0
    cut = text.rfind("\n", 0, chars)
    end = cut if cut > chars * 0.8 else chars
    return text[:end].rstrip(), len(text) - end


def read_text(data: bytes, *, name: str, chars: int) -> Document:
    """The text of ``data``, read as UTF-8, or as UTF-16 or UTF-32 when its byte-order mark
    says so (the mark itself is not part of the text)."""
    text = data.decode(text_encoding(data), errors="replace").replace("\r\n", "\n")
    kept, cut = _budget(text, chars)
    return Document(name, kept, cut_chars=cut)


def read_pdf(data: bytes, *, name: str, chars: int, max_pages: int) -> Document:
    """The text of a PDF's first ``max_pages`` pages; :class:`MediaError` for a file pypdf
    cannot read, one locked with a password, or one with no text at all."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    label = f"“{name}”" if name else "That PDF"
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings name the file's faults
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise MediaError(
                "PDF locked with a password",
                user_message=f"{label} is locked with a password, so I can't read it.",
            )
        total = len(reader.pages)
        texts: list[str] = []
        read = 0
        for page in reader.pages[:max_pages]:
            texts.append(page.extract_text() or "")
            read += 1
            if sum(map(len, texts)) > chars:
                break
    except MediaError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise MediaError(
            f"PDF unreadable: {type(exc).__name__}",
            user_message=f"{label} could not be read as a PDF.",
        ) from exc
    text = "\n\n".join(part.strip() for part in texts if part.strip())
    if not text:
        raise MediaError(
            "PDF without text",
            user_message=f"{label} has no text I can read (it may be scanned pages);"
            " please send the pages as pictures.",
        )
    kept, cut = _budget(text, chars)
    return Document(name, kept, pages=total, cut_chars=cut, pages_read=read)
