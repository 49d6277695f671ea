"""What the user lets every room know: ``/shared``, ``/share`` and ``/unshare``.

Everything the persona keeps is private to the room it was said in (:mod:`bot.turn.audience`);
these commands are how a user makes something known in every room on purpose, and takes it
back. They work in a direct room only: from a shared room, nothing private may be named.

* ``/shared`` lists what every room may know: the lines of ``shared/USER.md`` and
  ``shared/MEMORY.md`` and the memory items made shared.
* ``/share ID`` makes the memory item ``ID`` known everywhere; ``/share TEXT`` adds TEXT as
  a line of ``shared/USER.md`` (an edit in the changelog: the Files panel's Undo takes it
  back). A text that holds a secret is refused, and so is any text Off The Record (nothing
  said then is kept).
* ``/unshare ID`` makes the item private again; ``/unshare TEXT`` removes the line of
  ``shared/USER.md`` that says TEXT. An item that is a line of a ``shared/`` file is taken
  out by its text: every room reads the file itself, so relabelling its copy in memory would
  keep nothing from them.
"""

from __future__ import annotations

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


def _bullet(line: str) -> str:
    """A list line's text ("- I grew up in Porto" gives "I grew up in Porto"); "" otherwise.
    A list marker is followed by a space, as Markdown has it: "**Note**" and a "---" rule
    are no list lines."""
    stripped = line.strip()
    if stripped[:1] not in ("-", "*") or not stripped[1:2].isspace():
        return ""
    return " ".join(stripped[1:].split())


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
        lines += [f"- {path}: {said}" for said in map(_bullet, text.splitlines()) if said]
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
    current = (await store.load_whole(ctx.user, ctx.persona, SHARED_USER)).text
    said = " ".join(what.split()).casefold()
    if share and any(_bullet(line).casefold() == said for line in current.splitlines()):
        # a second copy would cost every room's prompt the line twice
        return f"Every room knows that already: {what}"
    if share:
        body = current if current.strip() else _HEADER
        text = body.rstrip("\n") + f"\n- {what}\n"
        message = f"Every room now knows: {what}"
    else:
        lines = current.splitlines()
        kept = [line for line in lines if _bullet(line).casefold() != said]
        if len(kept) == len(lines):
            return f"No line of {SHARED_USER} says “{what}” (`/shared` lists them)."
        text = "\n".join(kept) + "\n"
        message = f"Removed from {SHARED_USER}: {len(lines) - len(kept)} line(s)."
    await edit_file(store, ctx.user, ctx.persona, SHARED_USER, text, by=ctx.user)
    return message


def sharing_commands() -> tuple[Command, ...]:
    return (
        Command("shared", "what every room may know", _shared),
        Command("share", "let every room know something", _share, usage="TEXT|ID"),
        Command("unshare", "make it private again", _unshare, usage="TEXT|ID"),
    )
