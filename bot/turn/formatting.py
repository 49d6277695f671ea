"""Platform-neutral helpers for markdown answers: splitting to a length limit, stripping.

Every chat platform caps the length of one message, so adapters cut long answers with
:func:`split_markdown`. It cuts where a reader expects a pause: between paragraphs first,
then between lines, then between sentences, then between words, and only as a last resort
in the middle of a word. A fenced code block that must be cut is closed at the end of one
chunk and reopened with the same fence and language tag at the start of the next, so every
chunk renders on its own.

:func:`strip_markdown` turns markdown into readable plain text, for platforms (or fallbacks)
that show no formatting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CodeBlock", "parse_blocks", "split_markdown", "strip_markdown", "well_formed"]

#: a UTF-16 surrogate: never a character of its own (JSON's ``"\\ud83d"`` alone decodes to one)
_SURROGATE = re.compile("[\ud800-\udfff]")
_OPEN_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CLOSE_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})\s*$")

# Each level splits a piece that is still too long; the captured group is the separator.
_LEVELS: tuple[re.Pattern[str], ...] = (
    re.compile(r"(\n)"),
    re.compile(r"(?<=[.!?…])(\s+)"),
    re.compile(r"(\s+)"),
)


@dataclass(slots=True)
class CodeBlock:
    """A fenced code block: ``fence`` is the run of backticks or tildes, ``info`` its tag."""

    fence: str
    info: str
    lines: list[str] = field(default_factory=list)

    @property
    def opening(self) -> str:
        return self.fence + self.info

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    def render(self, lines: list[str] | None = None) -> str:
        body = self.lines if lines is None else lines
        if not body:
            return f"{self.opening}\n{self.fence}"
        return "\n".join([self.opening, *body, self.fence])

    def overhead(self) -> int:
        """Characters a non-empty piece spends on its fences and their newlines."""
        return len(self.opening) + len(self.fence) + 2


Block = str | CodeBlock


def parse_blocks(text: str) -> list[Block]:
    """Cut markdown into paragraphs (``str``, no blank lines inside) and fenced code blocks.

    A fence left open runs to the end of the text, as CommonMark reads it.
    """
    blocks: list[Block] = []
    paragraph: list[str] = []
    code: CodeBlock | None = None

    def end_paragraph() -> None:
        if paragraph:
            blocks.append("\n".join(paragraph))
            paragraph.clear()

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if code is not None:
            closing = _CLOSE_FENCE.match(line)
            if (
                closing
                and closing["fence"][0] == code.fence[0]
                and len(closing["fence"]) >= len(code.fence)
            ):
                blocks.append(code)
                code = None
            else:
                code.lines.append(line)
            continue
        opening = _OPEN_FENCE.match(line)
        if opening and not (opening["fence"][0] == "`" and "`" in opening["info"]):
            end_paragraph()
            code = CodeBlock(opening["fence"], opening["info"].strip())
        elif line.strip():
            paragraph.append(line.rstrip())
        else:
            end_paragraph()
    end_paragraph()
    if code is not None:
        blocks.append(code)
    return blocks


def _pieces(text: str, limit: int, level: int = 0) -> list[tuple[str, str]]:
    """Cut ``text`` into ``(separator, piece)`` pairs, each piece at most ``limit`` long.

    Joining every pair as ``separator + piece`` (the first separator is "") gives back
    ``text``; a cut between two chunks drops the separator there.
    """
    if len(text) <= limit:
        return [("", text)]
    if level == len(_LEVELS):
        return [("", text[i : i + limit]) for i in range(0, len(text), limit)]
    parts = _LEVELS[level].split(text)
    if len(parts) == 1:
        return _pieces(text, limit, level + 1)
    out: list[tuple[str, str]] = []
    pending = ""
    for index in range(0, len(parts), 2):
        piece = parts[index]
        if index:
            pending += parts[index - 1]
        if not piece:
            continue
        sub = _pieces(piece, limit, level + 1)
        out.append((pending if out else "", sub[0][1]))
        out.extend(sub[1:])
        pending = ""
    return out


class _Packer:
    """Fills chunks greedily with pieces, each joined to the one before by its separator."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[str] = []
        self.current = ""

    def room(self, separator: str) -> int:
        if not self.current:
            return self.limit
        return self.limit - len(self.current) - len(separator)

    def add(self, separator: str, piece: str) -> None:
        if self.current and len(piece) <= self.room(separator):
            self.current += separator + piece
        else:
            self.flush()
            self.current = piece

    def flush(self) -> None:
        if self.current.strip():
            self.chunks.append(self.current)
        self.current = ""


def _add_code(packer: _Packer, block: CodeBlock, separator: str) -> None:
    whole = block.render()
    if len(whole) <= packer.limit:
        packer.add(separator, whole)
        return
    budget = packer.limit - block.overhead()
    if budget < 1:  # the fences alone do not fit: only plain cuts are left
        for index, (sep, piece) in enumerate(_pieces(whole, packer.limit)):
            packer.add(separator if index == 0 else sep, piece)
        return
    lines: list[str] = []
    for line in block.lines:
        lines.extend(line[i : i + budget] for i in range(0, len(line), budget))
        if not line:
            lines.append("")
    capacity = packer.room(separator) - block.overhead()
    if capacity < max(1, packer.limit // 4):
        packer.flush()
        capacity = budget
    body: list[str] = []
    size = 0
    for line in lines:
        extra = len(line) + (1 if body else 0)
        if body and size + extra > capacity:
            packer.add(separator, block.render(body))
            separator, body, size, capacity = "\n", [], 0, budget
            extra = len(line)
        body.append(line)
        size += extra
    packer.add(separator, block.render(body))


def split_markdown(text: str, limit: int) -> list[str]:
    """Split markdown ``text`` into chunks of at most ``limit`` characters each.

    Cuts prefer paragraph boundaries, then line, sentence and word boundaries; a word is cut
    only when it alone is longer than ``limit``. A fenced code block that must be cut is
    closed and reopened with the same fence and language tag, provided ``limit`` leaves room
    for both fences; otherwise it is cut like plain text. Blank lines between blocks become
    exactly one blank line. No chunk is empty; an empty or blank ``text`` gives ``[]``.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    packer = _Packer(limit)
    for block in parse_blocks(text):
        separator = "\n\n"
        if isinstance(block, CodeBlock):
            _add_code(packer, block, separator)
            continue
        if len(block) <= limit:
            packer.add(separator, block)
            continue
        if packer.room(separator) < limit // 4:
            packer.flush()
        for index, (sep, piece) in enumerate(_pieces(block, limit)):
            packer.add(separator if index == 0 else sep, piece)
    packer.flush()
    return packer.chunks


_INLINE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"!\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)"), r"\1 (\2)"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)"), r"\1 (\2)"),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<!\w)_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)"), r"\1"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
)
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINE_PREFIX = re.compile(r"^(?P<indent>\s*)(?:#{1,6}\s+|>\s?|[*+-]\s+(?=\S))")


def _strip_inline(text: str) -> str:
    out: list[str] = []
    last = 0
    for match in _INLINE_CODE.finditer(text):
        out.append(_strip_spans(text[last : match.start()]))
        out.append(match[2].strip() or match[2])
        last = match.end()
    out.append(_strip_spans(text[last:]))
    return "".join(out)


def _strip_spans(text: str) -> str:
    for pattern, replacement in _INLINE_RULES:
        text = pattern.sub(replacement, text)
    return text


def strip_markdown(text: str) -> str:
    """Render markdown as plain text: no emphasis marks, fences or heading hashes.

    Links become ``text (url)``, list bullets become ``•``, code keeps its lines as written.
    """
    parts: list[str] = []
    for block in parse_blocks(text):
        if isinstance(block, CodeBlock):
            parts.append("\n".join(block.lines))
            continue
        lines = []
        for line in block.split("\n"):
            prefix = _LINE_PREFIX.match(line)
            if prefix:
                marker = prefix.group(0).strip()
                bullet = "• " if marker and marker[0] in "*+-" else ""
                line = prefix["indent"] + bullet + line[prefix.end() :]
            lines.append(_strip_inline(line))
        parts.append("\n".join(lines))
    return "\n\n".join(part for part in parts if part.strip())


def well_formed(text: str) -> str:
    """``text`` as characters: a surrogate pair joined into the one it stands for (a model
    server that streams an emoji in halves), a lone one (half an emoji cut off by a client, a
    model server or a hostile sender: ``"\\ud83d"`` in JSON) made U+FFFD. Text with a
    surrogate cannot be encoded as UTF-8, so no file, database or request could hold it."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
