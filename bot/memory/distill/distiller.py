"""Rolling memory distillation (seed 000): session logs → short → mid → long.

* short (daily 03:00, no LLM): the newest session files that fit the budget, in
  chronological order, into MEMORY_SHORT.md.
* mid (weekly, Sunday 03:30, LLM): a concise first-person digest of MEMORY_SHORT.md into
  MEMORY_MID.md.
* long (monthly, 1st 04:00, LLM): MEMORY_MID.md integrated into MEMORY_LONG.md.

Each level runs once for every audience (:mod:`bot.turn.audience`): the direct rooms' turns make
the top-level files, read only by direct rooms; each shared room's turns make that room's
own (``rooms/<room>/MEMORY_SHORT.md`` ...), so no digest ever carries one room's words into
another's prompt. A turn whose room has no folder (an older log's, a direct room's) counts
as direct.

Budgets are in tokens (about four characters each). Short keeps whole days that fit; the
model is asked to keep mid and long within theirs, and what it writes past the budget is cut,
at a line break where one is near, with a visible marker (as a persona file too long for the
prompt is cut), so no memory file outgrows its budget. A failed or empty LLM answer
never overwrites a memory file: the previous version stays. Each audience's step stands
alone: one that fails leaves that audience's file, the others still run, and the answer says
room by room what was written and what failed. Off The Record conversations
never reach a session log, so they never reach distillation either. Whatever is written goes
through the secret detector first (:func:`bot.memory.policy.redact_secrets`): a password said
in a session becomes ``[secret withheld: password]`` in MEMORY_SHORT.md, and so in everything the
model writes from it; the model's own output is redacted too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal, Protocol

import structlog

from bot.daemon.disk import run_blocking
from bot.daemon.errors import LLMError
from bot.llm.base import LLMBackend, Message, SystemPrompt
from bot.memory.distill.schedule import DistillKind, DistillRuns
from bot.memory.policy import redact_secrets
from bot.persona.context import heard_by, render_file
from bot.persona.sessionlog.log import SessionLog, blocks_by_room
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["CHARS_PER_TOKEN", "DistillKind", "Distiller", "redact_session_text", "within_budget"]

log = structlog.get_logger(__name__)

CHARS_PER_TOKEN = 4
#: how far back from the newest day the short distillation reads
SHORT_DAYS_BACK = 90
#: characters kept free at the end of a cut file for the marker that says it was cut
_MARKER_ROOM = 120


class Notify(Protocol):
    """Sends a notice to a user's notification room (:meth:`bot.daemon.notify.Notifier.notify`):
    a ``private`` one never to a room known as shared."""

    async def __call__(self, user: str, text: str, *, private: bool = False) -> bool: ...


#: a turn's heading in a session log ("### 14:02:11 · user · scott · telegram")
_TURN_HEADING = re.compile(r"^(### \d\d:\d\d:\d\d · .*)$", re.MULTILINE)


def within_budget(text: str, tokens: int, name: str) -> str:
    """``text`` cut to ``tokens`` (about :data:`CHARS_PER_TOKEN` characters each) with a marker
    saying so; unchanged when it fits. The cut falls at the last line break of the budget's
    second half, so a sentence is not split when a whole line can go instead; the marker fits
    inside the budget too, so the prompt (whose limit for the file is the same) shows it."""
    limit = tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    head = text[: limit - _MARKER_ROOM]
    newline = head.rfind("\n")
    if newline >= limit // 2:
        head = head[:newline]
    head = head.rstrip()
    dropped = len(text) - len(head)
    return (
        f"{head}\n\n[… {name} cut here at its budget of {tokens} tokens:"
        f" {dropped} of {len(text)} characters dropped]"
    )


def redact_session_text(text: str) -> str:
    """Session log text with every secret withheld, message by message: a value on the line
    under its keyword is caught, and a heading is never taken for one."""
    parts = _TURN_HEADING.split(text)
    # split() with one group alternates: text, heading, text, heading, ...
    return "".join(part if index % 2 else redact_secrets(part) for index, part in enumerate(parts))


#: the file each LLM level writes, in every audience's folder
_TARGETS = {"mid": "MEMORY_MID.md", "long": "MEMORY_LONG.md"}

#: the files every prompt that speaks for the persona reads
_SPEAKS_WITH = ("IDENTITY.md", "SOUL.md", "VOICE.md", "AGENTS.md", "USER.md", "MEMORY.md")

_MID_PROMPT = """Below is a digest of my recent conversations with {user}.
Write a concise summary in the first person, as {persona}, of: recurring themes, decisions made,
ongoing projects, and {user}'s current state and priorities. Plain markdown, at most about
{words} words. Write only the summary.

{text}"""

_LONG_PROMPT = """Below is my long-term memory of {user}, then my newest mid-term summary.
Integrate the summary into the long-term memory, written in the first person as {persona}:
preserve historical facts, update stale information, absorb new themes, remove entries that
no longer matter. Plain markdown, at most about {words} words. Write only the new long-term
memory.

## Long-term memory
{long}

## Newest mid-term summary
{mid}"""


class Distiller:
    def __init__(
        self,
        config: Config,
        store: PersonaStore,
        backends: Mapping[str, LLMBackend],
        *,
        notify: Notify | None = None,
        runs: DistillRuns | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.backends = backends
        self.notify = notify
        #: where each run is recorded durably (the daemon's state database); without it
        #: only :attr:`last_runs` of this process knows
        self.runs = runs
        self.last_runs: dict[str, dict[str, str]] = {}

    def _backend(self, role: str) -> LLMBackend:
        name, why = self.config.llm.backend_choice(role)
        # said on every run: which model wrote a memory file is worth knowing afterwards
        log.info("distill.backend", role=role, backend=name, why=why)
        backend = self.backends.get(name)
        if backend is None:
            raise LLMError(
                f"no backend {name!r} is running for {role}",
                user_message=f"The {role} backend '{name}' is not available.",
            )
        return backend

    async def _record(self, user: str, persona: str, kind: str, outcome: str) -> None:
        now = datetime.now(UTC)
        key = f"{user}/{persona}"
        self.last_runs.setdefault(key, {})[kind] = f"{now.isoformat(timespec='seconds')} {outcome}"
        if self.runs is not None:
            await self.runs.record(user, persona, kind, now, outcome)

    def outcome(self, user: str, persona: str, kind: str) -> str | None:
        """How this process's last run of ``kind`` ended (``ok``, ``partial``, ``failed``);
        None when it ran none."""
        last = self.last_runs.get(f"{user}/{persona}", {}).get(kind)
        return last.rsplit(" ", 1)[-1] if last else None

    async def status(self) -> dict[str, dict[str, str]]:
        """The last run of each level per ``user/persona``: recorded ones (they survive a
        restart) with this process's runs over them."""
        if self.runs is None:
            return self.last_runs
        pairs = [
            (user, persona)
            for user in self.config.users
            for persona in self.store.list_personas(user)
        ]
        result = await self.runs.status(pairs)
        for key, kinds in self.last_runs.items():
            result.setdefault(key, {}).update(kinds)
        return result

    async def run(self, user: str, persona: str, kind: DistillKind) -> str:
        """Run one distillation; returns a sentence saying what happened."""
        started = time.perf_counter()
        self.store.require(user, persona)
        try:
            if kind == "short":
                outcome, recorded = await self.short(user, persona), "ok"
            else:
                outcome, recorded = await self._llm_level(user, persona, kind)
        except LLMError as exc:
            # not logged again: every step that failed was, with its room and cause
            await self._record(user, persona, kind, "failed")
            return f"The {kind} distillation failed ({exc.user_message}); memory files unchanged."
        await self._record(user, persona, kind, recorded)
        log.info("distill.done", kind=kind, ms=round((time.perf_counter() - started) * 1000))
        if kind in ("mid", "long") and self.notify is not None:
            # private: it speaks of every audience's memory, each shared room by name
            await self.notify(user, f"{persona}: {outcome}", private=True)
        return outcome

    async def _llm_level(
        self, user: str, persona: str, kind: Literal["mid", "long"]
    ) -> tuple[str, str]:
        """``kind`` for every audience, each on its own: a step that fails leaves that
        audience's file as it was and the others go on. What happened, audience by audience,
        and the run's record: ``ok``, or ``partial`` when some step failed. Raises the error
        when every step failed, as then no file was written."""
        sentences: list[str] = []
        errors: list[LLMError] = []
        audiences = self.store.audiences(user, persona)
        for audience in audiences:
            try:
                sentences.append(await self._llm_step(user, persona, kind, audience))
            except LLMError as exc:
                log.error("distill.failed", kind=kind, room=audience.room, error=str(exc))
                errors.append(exc)
                where = "" if audience.private else f" for room {audience.room}"
                whose = "" if audience.private else "its "
                sentences.append(
                    f"The {kind} distillation failed{where} ({exc.user_message});"
                    f" {whose}{_TARGETS[kind]} is unchanged."
                )
        if len(errors) == len(audiences):
            reasons = "; ".join(dict.fromkeys(exc.user_message for exc in errors))
            raise LLMError(str(errors[0]), user_message=reasons) from errors[0]
        outcome = " ".join(sentence for sentence in sentences if sentence)
        return outcome, "partial" if errors else "ok"

    async def short(self, user: str, persona: str) -> str:
        """MEMORY_SHORT.md of every audience from its own turns of the newest days."""
        directory = self.store.directory(user, persona)
        sessions = SessionLog(directory, persona)
        shared = set(self.store.shared_rooms(user, persona))
        # newest day first: per audience, the day's text of that audience's rooms, until
        # every audience has more than its budget (older days would not be chosen), and no
        # further back than SHORT_DAYS_BACK (a room quiet longer keeps its file as it is)
        budget = self.config.distill.budget_short * CHARS_PER_TOKEN
        held: dict[Audience, int] = {}
        days: list[tuple[str, dict[Audience, str]]] = []
        newest_first = sessions.days()[::-1]
        for day in newest_first:
            audiences = [DIRECT_ROOM, *(Audience(room) for room in shared)]
            full = all(held.get(audience, 0) > budget for audience in audiences)
            if full or (newest_first[0] - day).days > SHORT_DAYS_BACK:
                break
            parts = _by_audience(day, await run_blocking(_read_day, sessions.path_for(day)))
            shared.update(audience.room for audience in parts if audience.room is not None)
            for audience, said in parts.items():
                held[audience] = held.get(audience, 0) + len(said.strip())
            days.append((day.isoformat(), parts))
        refreshed = []
        for audience in [DIRECT_ROOM, *(Audience(room) for room in sorted(shared))]:
            count = await self._short_for(user, persona, audience, days)
            if count:
                refreshed.append(count)
        if not refreshed:
            return "No session logs to distill yet."
        days_said, rooms = max(refreshed), len(refreshed)
        return (
            f"Short-term memory refreshed from {days_said} day{'s' * (days_said != 1)} of"
            f" conversation, in {rooms} room{'s' * (rooms != 1)}"
            f"{' (your direct room and each shared one apart)' if rooms > 1 else ''}."
        )

    async def _short_for(
        self,
        user: str,
        persona: str,
        audience: Audience,
        days: list[tuple[str, dict[Audience, str]]],
    ) -> int:
        """Write ``audience``'s MEMORY_SHORT.md from its part of ``days``; how many days it
        holds (0: none had any of its turns, and the file is left as it was). The document,
        heading and withheld secrets included, fits the budget and the file's limit in the
        prompt, which cuts from the end, where the newest day is: the oldest days go first,
        and a newest day too long alone loses its beginning."""
        name = "MEMORY_SHORT.md"
        room = min(self.config.distill.budget_short * CHARS_PER_TOKEN, self._limit(name))
        stamp = datetime.now(UTC).date().isoformat()
        heading = f"# Recent sessions (distilled {stamp})\n\n"
        chosen: list[str] = []
        used = len(heading) + 1  # the final line break
        for _day, parts in days:
            said = parts.get(audience, "").strip()
            if not said:
                continue
            text = redact_session_text(said)
            if used + len(text) > room:
                if not chosen:
                    chosen.append(text[len(text) - max(room - used, 0) :])
                break
            chosen.append(text)
            used += len(text) + 2  # the blank line before the next
        if not chosen:
            return 0
        document = heading + "\n\n".join(reversed(chosen)) + "\n"
        await self.store.write(user, persona, audience.own(name), document)
        return len(chosen)

    def _limit(self, path: str) -> int:
        return self.config.prompt.limit(path.rpartition("/")[2])

    def _budget(self, tokens: int, name: str) -> int:
        """A digest's budget in tokens: as configured, but no more than the prompt shows of
        the file (its limit, less the final line break), which it would cut unmarked."""
        return min(tokens, (self._limit(name) - 1) // CHARS_PER_TOKEN)

    async def _llm_step(
        self, user: str, persona: str, kind: Literal["mid", "long"], audience: Audience
    ) -> str:
        """One LLM level for one audience, from that audience's files only."""

        def read(name: str) -> str:
            return self.store.read(user, persona, audience.own(name)).text.strip()

        if kind == "mid":
            source = read("MEMORY_SHORT.md")
            if not source:
                return "Nothing in short-term memory to summarise yet." if audience.private else ""
            budget = self._budget(self.config.distill.budget_mid, "MEMORY_MID.md")
            words = budget * 3 // 4
            prompt = _MID_PROMPT.format(user=user, persona=persona, words=words, text=source)
            role = "distill_mid"
        else:
            mid = read("MEMORY_MID.md")
            if not mid:
                return "Nothing in mid-term memory to integrate yet." if audience.private else ""
            budget = self._budget(self.config.distill.budget_long, "MEMORY_LONG.md")
            words = budget * 3 // 4
            prompt = _LONG_PROMPT.format(
                user=user,
                persona=persona,
                words=words,
                long=read("MEMORY_LONG.md") or "(empty)",
                mid=mid,
            )
            role = "distill_long"
        # the persona speaks for itself here as in chat: its character and the file layer
        # (who the user is, what it keeps in mind), each in this audience's copy
        identity = "\n\n".join(
            section
            for path in audience.prompt_files(_SPEAKS_WITH)
            if (
                section := render_file(
                    heard_by(self.store.read(user, persona, path), audience), self._limit(path)
                )
            )
        )
        completion = await self._backend(role).complete(
            system=SystemPrompt(stable=identity),
            messages=[Message("user", prompt)],
        )
        text = redact_secrets(completion.text.strip())
        if not text:
            raise LLMError("empty distillation", user_message="the model returned nothing")
        target = _TARGETS[kind]
        kept = within_budget(text, budget, target)
        if kept != text:
            log.warning("distill.over_budget", kind=kind, chars=len(text), budget=budget)
            text = kept
        await self.store.write(user, persona, audience.own(target), text + "\n")
        label = "Mid-term" if kind == "mid" else "Long-term"
        where = "" if audience.private else f" for room {audience.room}"
        return f"{label} memory{where} updated ({len(text)} characters)."


def _read_day(path: Path) -> str:
    """A day's session log as text (a byte that is not UTF-8 read as a replacement)."""
    return path.read_text(encoding="utf-8", errors="replace")


def _by_audience(day: date, text: str) -> dict[Audience, str]:
    """A day's session log, each audience's part under its heading. A message's audience is
    the one its heading recorded when it was said: a room that was direct then (a DM a third
    person later joined) keeps those words private."""
    parts: dict[Audience, list[str]] = {}
    for room, was_shared, block in blocks_by_room(text):
        audience = Audience(room) if was_shared and room else DIRECT_ROOM
        parts.setdefault(audience, []).append(block)
    joined = {}
    for audience, blocks in parts.items():
        where = "" if audience.room is None else f" · {audience.room}"
        joined[audience] = "\n\n".join([f"# Session log {day.isoformat()}{where}", *blocks])
    return joined
