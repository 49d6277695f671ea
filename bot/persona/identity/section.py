"""The learned section of a persona file: found, edited one bullet at a time, nothing else touched.

The section starts at its heading line (``## Learned from {user}``) and runs to the next
heading of level one or two, or to the end of the file. Each bullet the observer owns ends
with a marker naming its slot, ``<!-- trait:length -->``, invisible once rendered; lines
without a marker (written by hand) are kept as they are. A file without the section gets it
appended after one blank line; the exact separator is remembered so an undo can take it off
again and give back the file byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import takewhile

__all__ = [
    "SectionEdit",
    "bullet_line",
    "bullet_sentence",
    "bullet_slot",
    "find_bullet",
    "heading_for",
    "replace_block",
    "restore_block",
    "set_bullet",
    "split_section",
    "without_learned",
]

_MARKER = re.compile(r"<!-- trait:(?P<slot>[a-z_]+(?::[a-z0-9-]+)?) -->\s*$")
_HEADING = re.compile(r"^#{1,2} ", re.MULTILINE)
_LEARNED_HEADING = re.compile(r"## Learned from \S")


def heading_for(user: str) -> str:
    return f"## Learned from {user}"


def bullet_line(slot: str, text: str) -> str:
    return f"- {text} <!-- trait:{slot} -->"


def bullet_sentence(line: str) -> str:
    """The readable part of a bullet line: no dash, no marker."""
    return _MARKER.sub("", line).removeprefix("- ").strip()


def bullet_slot(line: str) -> str | None:
    """The slot a bullet line's marker names; None for a line written by hand."""
    match = _MARKER.search(line)
    return match.group("slot") if match else None


def split_section(text: str, heading: str) -> tuple[str, str, str]:
    """``(before, section, after)`` with ``before + section + after == text``; the section is
    empty when the file has none (then ``before`` is the whole file)."""
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.rstrip() == heading:
            rest = text[offset + len(line) :]
            found = _HEADING.search(rest)
            end = offset + len(line) + (found.start() if found else len(rest))
            return text[:offset], text[offset:end], text[end:]
        offset += len(line)
    return text, "", ""


def find_bullet(section: str, slot: str) -> str | None:
    """The bullet line owning ``slot`` in ``section``, without its line end."""
    for line in section.splitlines():
        match = _MARKER.search(line)
        if match and match.group("slot") == slot:
            return line
    return None


def set_bullet(section: str, heading: str, slot: str, line: str | None) -> str:
    """``section`` with the bullet of ``slot`` replaced by ``line`` (added at the end of the
    section's text when absent, removed when ``line`` is None). Returns "" when removing the
    last line under the heading leaves nothing of substance."""
    if not section:
        return "" if line is None else f"{heading}\n\n{line}\n"
    body = section.rstrip("\n")
    trailing = section[len(body) :] or "\n"
    lines = body.split("\n")
    kept: list[str] = []
    placed = False
    for current in lines:
        match = _MARKER.search(current)
        if match and match.group("slot") == slot:
            if line is not None and not placed:
                kept.append(line)
                placed = True
            continue
        kept.append(current)
    if line is not None and not placed:
        kept.append(line)
    if not any(part.strip() for part in kept[1:]):
        return ""
    return "\n".join(kept) + trailing


@dataclass(frozen=True, slots=True)
class SectionEdit:
    """One change of a file's learned section, with what an undo needs to reverse it."""

    text: str
    section_before: str
    section_after: str
    separator: str


def replace_block(text: str, heading: str, slot: str, line: str | None) -> SectionEdit:
    """Set one bullet in ``text``'s learned section and return the whole new file text."""
    before, section, after = split_section(text, heading)
    new_section = set_bullet(section, heading, slot, line)
    separator = ""
    if not section and new_section:
        if before and not before.endswith("\n"):
            separator = "\n\n"
        elif before and not before.endswith("\n\n"):
            separator = "\n"
        return SectionEdit(before + separator + new_section, "", new_section, separator)
    return SectionEdit(before + new_section + after, section, new_section, "")


def restore_block(text: str, heading: str, section_before: str, separator: str) -> str:
    """``text`` with its learned section set back to ``section_before`` (taking the section,
    and the separator it was appended with, off entirely when that is empty)."""
    before, section, after = split_section(text, heading)
    if not section_before:
        if not section:
            return text
        if separator and before.endswith(separator) and not after:
            before = before[: -len(separator)]
        return before + after
    if not section:
        separator = (
            ""
            if not before or before.endswith("\n\n")
            else ("\n" if before.endswith("\n") else "\n\n")
        )
        return before + separator + section_before
    return before + section_before + after


def without_learned(text: str) -> str:
    """``text`` without the bullets the observer wrote (each ends with its slot's marker), and
    without a learned section's heading once nothing else stands under it. What is learned
    comes from the user's direct rooms (the names they go by, what they rely on the persona
    for), so a shared room reads VOICE.md and PERSONA.md without it; a line written by hand
    stays wherever it is."""
    if "<!-- trait:" not in text:
        return text
    lines = [line for line in text.split("\n") if not _MARKER.search(line)]
    kept: list[str] = []
    for at, line in enumerate(lines):
        if _LEARNED_HEADING.match(line):
            under = takewhile(lambda rest: not _HEADING.match(rest), lines[at + 1 :])
            if not any(rest.strip() for rest in under):
                continue
        kept.append(line)
    return "\n".join(kept)
