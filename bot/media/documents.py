"""The text of a document: plain text, Markdown, CSV or PDF, within a budget.

The model reads a document as its name and its text (UTF-8, or UTF-16 and UTF-32 when a
byte-order mark says so, or Windows-1252 when the bytes are not UTF-8). Beyond ``chars``
characters the text is cut with a visible marker (as a persona file too long for the prompt
is); a PDF is read up to ``max_pages`` pages. A file of blanks only, or a PDF with pages but
no text (a scan), says so instead of answering from nothing.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.daemon.errors import MediaError
from bot.media.kinds import text_encoding

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["Document", "budget", "read_pdf", "read_text"]


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


def budget(text: str, chars: int) -> tuple[str, int]:
    """``text`` stripped and cut to at most ``chars`` characters (at a line's end where one
    is near), and how many characters were left out."""
    text = text.strip()
    if len(text) <= chars:
        return text, 0
    cut = text.rfind("\n", 0, chars)
    end = cut if cut > chars * 0.8 else chars
    return text[:end].rstrip(), len(text) - end


def read_text(data: bytes, *, name: str, chars: int) -> Document:
    """The text of ``data`` in its encoding (:func:`~bot.media.kinds.text_encoding`; a
    byte-order mark is not part of the text); :class:`MediaError` for a file of blanks
    only."""
    text = data.decode(text_encoding(data), errors="replace").replace("\r\n", "\n")
    kept, cut = budget(text, chars)
    if not kept:
        raise MediaError(
            "document without text", user_message=f"“{name}” has no text in it to read."
        )
    return Document(name, kept, cut_chars=cut)


def read_pdf(data: bytes, *, name: str, chars: int, max_pages: int) -> Document:
    """The text of a PDF's first ``max_pages`` pages; :class:`MediaError` for a file pypdf
    cannot read, one locked with a password, or one with no text at all. pypdf fed a damaged
    file raises more than its own errors (an ``AttributeError`` for a trailer that is not a
    dictionary): any of them is a file that cannot be read, said in one sentence, never
    "something went wrong"."""
    label = f"“{name}”" if name else "That PDF"
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings name the file's faults
    try:
        reader = _opened(data, label)
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
    except Exception as exc:  # whatever pypdf raises on bytes it cannot make sense of
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
    kept, cut = budget(text, chars)
    return Document(name, kept, pages=total, cut_chars=cut, pages_read=read)


def _opened(data: bytes, label: str) -> PdfReader:
    """pypdf's reader of ``data``, unlocked with the empty password where only the owner's
    is set; :class:`MediaError` for a PDF locked with a password, or in a way pypdf cannot
    open (for the holder of a certificate, or with a cipher whose library is missing)."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(io.BytesIO(data))
        if not reader.is_encrypted or reader.decrypt(""):
            return reader
    except (NotImplementedError, DependencyError) as exc:
        raise MediaError(
            f"PDF locked: {type(exc).__name__}",
            user_message=f"{label} is locked in a way I can't open, so I can't read it.",
        ) from exc
    raise MediaError(
        "PDF locked with a password",
        user_message=f"{label} is locked with a password, so I can't read it.",
    )
