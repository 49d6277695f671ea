"""What the user lets every room know: ``/shared``, ``/share`` and ``/unshare``.

Everything the persona keeps is private to the room it was said in (:mod:`bot.turn.audience`);
these commands are how a user makes something known in every room on purpose, and takes it
back. They work in a direct room only: from a shared room, nothing private may be named.

* ``/shared`` lists what every room may know: every line of ``shared/USER.md`` and
  ``shared/MEMORY.md`` that says something (list lines and plain lines alike, as every
  room's prompt reads them; no heading, rule or blank line) and the memory items made
  shared.
* ``/share ID`` makes the memory item ``ID`` known everywhere; ``/share TEXT`` adds TEXT as
  a line of ``shared/USER.md`` (an edit in the changelog: the Files panel's Undo takes it
  back). A text that holds a secret is refused, and so is any text Off The Record (nothing
  said then is kept).
* ``/unshare ID`` makes the item private again; ``/unshare TEXT`` removes the line of
  ``shared/USER.md`` or ``shared/MEMORY.md`` that says TEXT, a list line or a plain one.
  An item that is a line of a ``shared/`` file is taken out by its text: every room reads
  the file itself, so relabelling its copy in memory would keep nothing from them.
"""

from __future__ import annotations

import re

from bot.commands.table import Command, CommandContext
from bot.memory.secrets.detector import looks_secret
from bot.memory.shared_lines import shared_file_line
from bot.persona.edits import edit_file
from bot.turn.audience import DIRECT, SHARED, SHARED_FILES, SHARED_FOLDER

__all__ = ["SHARED_USER", "sharing_commands"]

SHARED_USER = f"{SHARED_FOLDER}/USER.md"
_HEADER = "# Shared with every room\n\n"
_ONLY_DIRECT = "What is shared is changed in a direct conversation with me, not in a shared room."
_OFF_THE_RECORD = (
    "Off The Record nothing is kept, so it was not shared. Share it once Off The Record is off."
)


#: a list marker ("-", "*", "+", "1.") and a task box, each followed by a space as Markdown
#: has it: "*Not* a morning person" keeps its "*"
_MARKER = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
#: an HTML comment inside a line: a marker, no part of what the line says (nor of its copy
#: in memory, whose text `/unshare ID` advises)
_COMMENT = re.compile(r"<!--.*?-->")
#: a line that is one bold run, "**About me**": a heading written by hand ("**Allergic** to
#: **peanuts**" is two runs and says something)
_BOLD_HEADING = re.compile(r"(\*\*|__)[^*_](?:(?!\1).)*\1:?")


def _said(line: str) -> str:
    """What a line of a ``shared/`` file says, as ``/shared`` lists it and ``/unshare``
    matches it: a list line's text after its marker ("- I grew up in Porto" gives "I grew
    up in Porto"), a plain line's words (every room's prompt reads it too); "" for a line
    that says nothing: blank, a heading, a rule, a bold heading line, an HTML comment."""
    stripped = _COMMENT.sub("", line).strip()
    if not stripped or stripped.startswith(("#", "<!--", "```", "~~~")):
        return ""
    if set(stripped) <= set("-*_=|: ") or _BOLD_HEADING.fullmatch(stripped):
        return ""
    return " ".join(_MARKER.sub("", stripped).split())


def _looks_like_id(text: str) -> bool:
    return " " not in text and any(ch.isdigit() for ch in text) and len(text) <= 40


async def _shared(ctx: CommandContext) -> str:
    if ctx.room.shared:
        return _ONLY_DIRECT
    store = ctx.router.store
    lines = ["**Known in every room:**"]
    for name in SHARED_FILES:
        path = f"{SHARED_FOLDER}/{name}"
        text = store.read(ctx.user, ctx.persona, path).text
        # each line as `/unshare` matches it: "- *Not* a morning person" keeps its "*"
        lines += [f"- {path}: {said}" for said in map(_said, text.splitlines()) if said]
    session = await ctx.router.sessions.get(ctx.user, ctx.persona)
    if session.memory is not None:
        items = await session.memory.list_items(limit=100_000)
        lines += [
            f"- memory {item.id}: {item.text}"
            for item in items
            # the lines of shared/ files are listed above, as the files hold them
            if item.audience == SHARED and not item.source.startswith(f"{SHARED_FOLDER}/")
        ]
    if len(lines) == 1:
        return (
            "Nothing is shared: everything I keep stays in the room it was said in. Use"
            " `/share TEXT` to let every room know something."
        )
    return "\n".join(lines)


async def _share(ctx: CommandContext) -> str:
    return await _change(ctx, share=True)


async def _unshare(ctx: CommandContext) -> str:
    return await _change(ctx, share=False)


async def _change(ctx: CommandContext, *, share: bool) -> str:
    if ctx.room.shared:
        return _ONLY_DIRECT
    what = " ".join(ctx.args).strip()
    verb = "share" if share else "unshare"
    if not what:
        return f"Use `/{verb} TEXT` (a line of {SHARED_USER}) or `/{verb} ID` (a memory item)."
    if _looks_like_id(what):
        session = await ctx.router.sessions.get(ctx.user, ctx.persona)
        line = None
        if not share and session.memory is not None:
            line = await shared_file_line(session.memory, what)
        if line is not None:
            source, text = line
            return (
                f"Memory {what} is a line of {source}, which every room reads: take it"
                f" out with `/unshare {text}`."
            )
        if session.memory is not None and await session.memory.share(
            what, SHARED if share else DIRECT
        ):
            return (
                f"Memory {what} is now known in every room."
                if share
                else f"Memory {what} is private again."
            )
        # an id that names nothing is not a line to share ("/share 4242")
        return f"There is no memory {what}. `/shared` lists what is shared, with ids."
    if (
        share and ctx.said_off_record
    ):  # the text would be kept: in shared/USER.md, in every room's memory
        return _OFF_THE_RECORD
    if share and looks_secret(what):
        return "That looks like a secret, so it was not shared."
    store = ctx.router.store
    said = " ".join(what.split()).casefold()
    if not share:
        return await _unshare_text(ctx, what, said)
    current = (await store.load_whole(ctx.user, ctx.persona, SHARED_USER)).text
    if any(_said(line).casefold() == said for line in current.splitlines()):
        # a second copy would cost every room's prompt the line twice
        return f"Every room knows that already: {what}"
    body = current if current.strip() else _HEADER
    text = body.rstrip("\n") + f"\n- {what}\n"
    await edit_file(store, ctx.user, ctx.persona, SHARED_USER, text, by=ctx.user)
    return f"Every room now knows: {what}"


async def _unshare_text(ctx: CommandContext, what: str, said: str) -> str:
    """The lines that say ``said`` taken out of every ``shared/`` file that has them: each
    is a line ``/shared`` lists, and every room reads both files."""
    store = ctx.router.store
    removed = []
    for name in SHARED_FILES:
        path = f"{SHARED_FOLDER}/{name}"
        lines = (await store.load_whole(ctx.user, ctx.persona, path)).text.splitlines()
        kept = [line for line in lines if _said(line).casefold() != said]
        if len(kept) < len(lines):
            text = "\n".join(kept) + "\n"
            await edit_file(store, ctx.user, ctx.persona, path, text, by=ctx.user)
            gone = len(lines) - len(kept)
            removed.append(f"Removed from {path}: {gone} line{'s' * (gone != 1)}.")
    if not removed:
        files = " or ".join(f"{SHARED_FOLDER}/{name}" for name in SHARED_FILES)
        return f"No line of {files} says “{what}” (`/shared` lists them)."
    return " ".join(removed)


def sharing_commands() -> tuple[Command, ...]:
    return (
        Command("shared", "what every room may know", _shared),
        Command("share", "let every room know something", _share, usage="TEXT|ID"),
        Command("unshare", "make it private again", _unshare, usage="TEXT|ID"),
    )
