"""Template placeholder text, which is never ingested as a memory.

A new persona's USER.md and MEMORY.md come from its template with lines that only invite
filling the file in ("Fill this in together over time...", "Facts worth always knowing, one
per line:", "Editor, OS: (fill in)"). Mirrored as memories they would be recalled as facts.
A line is a placeholder when it is a line of a template's USER.md or MEMORY.md as the
template has it (any user or persona name in place of ``{{user}}`` / ``{{persona}}``), still
holds a ``{{...}}`` slot, or asks to be filled in. (A line that only introduces what follows,
"wifi password:", is not dropped here: the secret detector reads it as the keyword of the
value under it.) A line the user changed is a memory like any other. HTML comments, such as
the slot marker of a promoted line, are no part of any memory either.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bot.memory.sqlite.query import mirror_lines
from bot.persona.template import TEMPLATES_DIR, available_templates

__all__ = ["clean_mirror_text", "is_placeholder", "strip_comments"]

_FILES = ("USER.md", "MEMORY.md")
_COMMENT = re.compile(r"[ \t]*<!--.*?-->", re.DOTALL)
_INVITATION = re.compile(
    r"\{\{\s*\w+\s*\}\}|\(fill in\)|\bfill (?:this|these|it) in\b|\(preencher\)|\bpreenche",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _template_lines() -> re.Pattern[str] | None:
    patterns: set[str] = set()
    for template in available_templates(TEMPLATES_DIR):
        for name in _FILES:
            path = TEMPLATES_DIR / template / name
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                continue
            for line in mirror_lines(text):
                pattern = re.escape(line)
                for slot in ("user", "persona"):
                    pattern = pattern.replace(re.escape("{{" + slot + "}}"), r"\S+")
                patterns.add(pattern)
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in sorted(patterns)), re.IGNORECASE)


def is_placeholder(line: str) -> bool:
    """Whether ``line`` (one line of a mirrored file, bullet stripped) is template filler."""
    stripped = line.strip()
    if not stripped or _INVITATION.search(stripped):
        return True
    template = _template_lines()
    return template is not None and template.fullmatch(stripped) is not None


def strip_comments(text: str) -> str:
    """``text`` without HTML comments: the marker a promoted line carries names its slot, it
    is no part of the fact."""
    return _COMMENT.sub("", text)


def clean_mirror_text(text: str) -> str:
    """A mirrored file's text as memories see it: without HTML comments and without
    placeholder lines (headings and blank lines kept as they are)."""
    kept = []
    for line in strip_comments(text).splitlines():
        bare = line.strip().lstrip("-*+").strip()
        if bare and not line.lstrip().startswith("#") and is_placeholder(bare):
            continue
        kept.append(line)
    return "\n".join(kept)
