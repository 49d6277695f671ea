"""Recall quality on long conversations: does memory find the turns that answer a question?

    python bench/recall_quality.py [--set a|b|c|d|both|all] [--part P] [--no-embeddings]
        [--only NAME,...] [--gap N] [--switch] [--named] [--search-order] [-v]

Reads set A, ``tests/data/recall_conversations.json`` (written by ``bench/recall_set.py``: ten
people, 20 dated sessions each, 336 questions with their evidence turns), and set B,
``tests/data/recall_conversations_b.json`` (``bench/recall_set_b.py``: ten people, 16 sessions,
260 questions worded unlike their evidence, in two parts, tuning and held-out), and set D,
``tests/data/recall_conversations_d.json`` (written by hand: ten people, 10 sessions, 167
questions, both sides talking about their own lives, in two parts), feeds each
person's sessions to a fresh store turn by turn, and asks the questions as of three days after
the last session. A question's recall@k is the share of its evidence turns among what the top
k hits came from (an episode comes from its turn; a fact from the episode it cites, else from
the turns whose message holds it); the figures are the mean by part and question kind, with
the share of the top 5 hits that are facts; each set's header says how many questions share
a search stem with one of their evidence turns (BM25 finds the others only through the
words the write path adds, or not at all). Set C, ``tests/data/recall_followups_c.json``
(``bench/recall_set_c.py``), asks follow-ups after a live exchange over the conversations of
set B and of set A's Portuguese people: the live turns are synced into a copy of the person's
store, as the daemon syncs every turn, then the follow-up is asked; ``--switch`` puts the
live exchange of another of the person's follow-ups (another subject) just before it, so the
conversation changed subject within the messages a follow-up draws on; ``--gap N`` puts N
exchanges of small talk between the live exchange and the follow-up. ``--named`` asks sets
A, B and D as public benchmarks ask: greetings by name open and close every session, and the
questions name the two people instead of saying "I" and "you" (``bench/named_questions.py``).
Configurations:

* ``fts5 plain``: SQLite FTS5 (``unicode61 remove_diacritics 2``), every message a row, the
  question's words OR-ed; ``fts5 -stopwords``: the same without stopwords (EN and PT)
* ``plain hybrid + MiniLM``: the best conventional method measured on the public benchmark,
  every message a row scored 0.3 x BM25 (over the question's best) + 0.7 x cosine
* ``raw episodes``: every message straight into the episode index, no write policy, no facts
* ``facts only``: the write path as it was before episodes (the policy's facts alone)
* ``write path``: what the daemon does: ``sync`` after every turn, ``extract`` at session end
* ``+ MiniLM``: the same with embeddings, when installed: the model ``--model`` names (by
  default e5 where its package is installed, else MiniLM; the name is kept for the tables
  of docs/BENCHMARKS.md, and the run prints which model it is)
* ``+ MiniLM`` recalls as a session does: the search's best put in order again
  (:mod:`bot.memory.episodes.rerank`), unless ``--search-order``
* ``+ references``: the message resolved against the live exchange first
  (:mod:`bot.memory.follow_ups`, as a session does); sets A and B have no live exchange
* ``holographic``: the holographic backend through its own ``sync`` and ``extract`` (facts
  and episodes); ``holographic facts``: its facts alone (each turn through ``extract``, which
  keeps no episodes), as it recalled before it kept episodes
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import sqlite3
import sys
import tempfile
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.named_questions import named
from bot.memory.base import MemoryBackend, MemoryHit, MemoryItem, TurnRecord
from bot.memory.embedding.models import Embedder, load_embedder
from bot.memory.episodes import rerank
from bot.memory.follow_ups import recall
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.normal_form import normalise_text
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.query import STOPWORDS, fold
from bot.memory.sqlite.stemming import index_terms, query_stems

DATA_DIR = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = {
    "a": DATA_DIR / "recall_conversations.json",
    "b": DATA_DIR / "recall_conversations_b.json",
    "c": DATA_DIR / "recall_followups_c.json",
    "d": DATA_DIR / "recall_conversations_d.json",
    "e": DATA_DIR / "recall_conversations_e.json",
}
KINDS = {
    "a": ("all", "single", "paraphrase", "date", "multihop", "preference"),
    "b": ("all", "single", "multihop", "temporal", "reference", "open"),
    "c": ("all", "person", "place", "thing", "vague", "none"),
    "d": ("all", "single", "multihop", "temporal", "reference", "open"),
    "e": ("all", "single", "multihop", "temporal", "reference", "open"),
}
KS = (5, 10)
#: the persona the sets' conversations are with
PERSONA = "inara"
#: what a ranker gives for each hit, best first: the turns it came from, and whether it is a
#: fact; asked with the question, when, and the live exchange before it (set C's)
Ranker = Callable[[str, datetime, list[dict[str, str]]], Awaitable[list[tuple[set[str], bool]]]]


class Turns:
    """Which turns a recalled text came from."""

    def __init__(self, sessions: list[dict[str, Any]]) -> None:
        self.turns = [turn for session in sessions for turn in session["turns"]]
        self.by_norm: dict[str, set[str]] = defaultdict(set)
        self.user_norms: list[tuple[str, str, float]] = []
        for turn in self.turns:
            for side in ("user", "reply"):
                self.by_norm[normalise_text(turn[side])].add(turn["id"])
            at = datetime.fromisoformat(turn["at"]).timestamp()
            self.user_norms.append((f" {normalise_text(turn['user'])} ", turn["id"], at))

    def source(self, item: MemoryItem) -> set[str]:
        """The turns ``item`` came from: an episode's message, a fact's episode when it cites
        one, or else every message holding the fact; of those, the ones said when the fact
        was (a sentence of small talk said in many messages, one of them the answer, comes
        from the one it was recorded from)."""
        if item.context and normalise_text(item.context) in self.by_norm:
            return self.by_norm[normalise_text(item.context)]
        norm = normalise_text(item.text)
        if norm in self.by_norm:
            return self.by_norm[norm]
        holding = [(turn, at) for user, turn, at in self.user_norms if f" {norm} " in user]
        stated = item.created_at.timestamp()
        when = {turn for turn, at in holding if abs(at - stated) < 1.0}
        return when or {turn for turn, _ in holding}


def _record(turn: dict[str, str], user: str) -> TurnRecord:
    at = datetime.fromisoformat(turn["at"])
    return TurnRecord(turn["user"], turn["reply"], "telegram", at, user, PERSONA)


def records(user: dict[str, Any]) -> list[list[TurnRecord]]:
    return [
        [_record(turn, user["user"]) for turn in session["turns"]] for session in user["sessions"]
    ]


def _clocked(user: dict[str, Any]) -> tuple[list[datetime], Callable[[], datetime]]:
    clock = [datetime.fromisoformat(user["sessions"][0]["date"])]
    return clock, lambda: clock[0]


async def _hits(
    memory: MemoryBackend,
    question: str,
    live: list[dict[str, str]],
    references: bool,
    parties: list[str],
) -> list[MemoryHit]:
    """What a session recalls for ``question``: references resolved against the live turns
    only with ``references``; the names of ``parties`` never searched."""
    recent = [text for turn in live for text in (turn["user"], turn["reply"])]
    return await recall(
        memory, question, recent if references else [], limit=max(KS), parties=parties
    )


def _backend_ranker(
    memory: MemoryBackend,
    clock: list[datetime],
    turns: Turns,
    *,
    references: bool,
    parties: list[str],
    reopen: Callable[[Path], MemoryBackend] | None = None,
) -> Ranker:
    """Questions asked of ``memory``; one after a live exchange, of a copy of its store
    (``reopen`` opens a store in a folder) with the live turns synced into it."""

    async def rank(
        question: str, asked: datetime, live: list[dict[str, str]]
    ) -> list[tuple[set[str], bool]]:
        if live and reopen is not None:
            copy = memory.persona_dir.with_name(memory.persona_dir.name + "-live")
            shutil.copytree(memory.persona_dir, copy)
            try:
                async with reopen(copy) as now:
                    for turn in live:
                        clock[0] = datetime.fromisoformat(turn["at"])
                        await now.sync(_record(turn, "me"))
                    clock[0] = asked
                    hits = await _hits(now, question, live, references, parties)
            finally:
                shutil.rmtree(copy)
        else:
            clock[0] = asked
            hits = await _hits(memory, question, live, references, parties)
        return [(turns.source(hit.item), hit.item.kind == "fact") for hit in hits]

    return rank


async def _feed(
    memory: MemoryBackend, sessions: list[list[TurnRecord]], clock: list[datetime], how: str
) -> None:
    for session in sessions:
        for turn in session:
            clock[0] = turn.at
            if how == "raw" and isinstance(memory, SqliteFtsMemory):
                await memory.episodes.record(turn)
            elif how == "facts" and isinstance(memory, SqliteFtsMemory):
                await memory._store_turn(turn)
            elif how == "facts":
                await memory.extract([turn])
            else:
                await memory.sync(turn)
        if how == "write":
            await memory.extract(session)


class _Messages:
    """Every message of a person's turns as a row of a plain FTS5 table (rowid: its place in
    ``texts``), and the turn each came from."""

    def __init__(self, turns: Turns) -> None:
        self.texts = [turn[side] for turn in turns.turns for side in ("user", "reply")]
        self.owner = [turn["id"] for turn in turns.turns for _side in ("user", "reply")]
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE m USING fts5 (text, tokenize='unicode61 remove_diacritics 2')"
        )
        self.db.executemany("INSERT INTO m (rowid, text) VALUES (?, ?)", enumerate(self.texts))

    @staticmethod
    def expression(question: str, *, stopwords: bool) -> str:
        """The question's words OR-ed (without stopwords if ``stopwords``, unless that leaves
        none)."""
        words = dict.fromkeys(normalise_text(question).split())
        if stopwords:
            words = dict.fromkeys(w for w in words if fold(w) not in STOPWORDS) or words
        return " OR ".join(f'"{word}"' for word in words)


def _plain_fts(turns: Turns, *, stopwords: bool) -> Ranker:
    messages = _Messages(turns)

    async def rank(
        question: str, asked: datetime, live: list[dict[str, str]]
    ) -> list[tuple[set[str], bool]]:
        expression = messages.expression(question, stopwords=stopwords)
        if not expression:
            return []
        rows = messages.db.execute(
            "SELECT rowid FROM m WHERE m MATCH ? ORDER BY rank LIMIT ?", (expression, max(KS))
        ).fetchall()
        return [({messages.owner[row[0]]}, False) for row in rows]

    return rank


#: the conventional hybrid's weights, BM25 (over the best of the question's) and cosine
HYBRID_BM25, HYBRID_COSINE = 0.3, 0.7


async def _plain_hybrid(turns: Turns, embedder: Embedder) -> Ranker:
    """The best conventional method measured on the public benchmark: every message a row,
    scored 0.3 x its FTS5 BM25 over the question's best + 0.7 x its cosine to the question;
    a turn ranks by its best message."""
    messages = _Messages(turns)
    vectors = await embedder.embed(messages.texts)

    async def rank(
        question: str, asked: datetime, live: list[dict[str, str]]
    ) -> list[tuple[set[str], bool]]:
        expression = messages.expression(question, stopwords=True)
        scores = HYBRID_COSINE * (vectors @ (await embedder.embed_query(question))[0])
        if expression:
            found = messages.db.execute(
                "SELECT rowid, -bm25(m) FROM m WHERE m MATCH ?", (expression,)
            ).fetchall()
            best = max((score for _row, score in found), default=0.0) or 1.0
            for row, score in found:
                scores[int(row)] += HYBRID_BM25 * score / best
        ranked: list[tuple[set[str], bool]] = []
        for row in scores.argsort()[::-1]:
            if not any(messages.owner[row] in hit for hit, _fact in ranked):
                ranked.append(({messages.owner[row]}, False))
            if len(ranked) == max(KS):
                break
        return ranked

    return rank


async def _ranker(
    name: str,
    user: dict[str, Any],
    turns: Turns,
    workdir: Path,
    embedder: Embedder | None,
    *,
    live: bool,
) -> tuple[Ranker, Callable[[], Awaitable[None]]]:
    async def nothing() -> None:
        return None

    if name.startswith("fts5"):
        return _plain_fts(turns, stopwords="stopwords" in name), nothing
    if name == "plain hybrid + MiniLM" and embedder is not None:
        return await _plain_hybrid(turns, embedder), nothing
    clock, now = _clocked(user)
    folder = workdir / name.replace(" ", "_") / user["user"]
    memory: MemoryBackend
    used = embedder if "MiniLM" in name else None

    def reopen(path: Path) -> MemoryBackend:
        return SqliteFtsMemory(path, embedder=used, now=now)

    if name.startswith("holographic"):
        memory = HolographicMemory(folder, now=now)
    else:
        memory = reopen(folder)
    await memory.open()
    how = "raw" if name.startswith("raw") else "facts" if "facts" in name else "write"
    await _feed(memory, records(user), clock, how)
    references = "references" in name
    # the person's and the persona's names, as a session knows them
    parties = user.get("parties", [user["user"], user.get("friend", PERSONA)])
    if live and isinstance(memory, SqliteFtsMemory):
        await memory.close()  # each question asks a copy of the store
        rank = _backend_ranker(
            memory, clock, turns, references=references, parties=parties, reopen=reopen
        )
        return rank, nothing
    rank = _backend_ranker(memory, clock, turns, references=references, parties=parties)
    return rank, memory.close


Scores = dict[str, dict[str, dict[int, float]]]
"""Mean recall@k by part (``all``, and each ``split`` of the set) and by kind (and ``all``);
the kind ``facts`` holds the share of the top k hits that are facts."""


async def evaluate(
    name: str, data: dict[str, Any], workdir: Path, embedder: Embedder | None, verbose: bool
) -> Scores:
    """Mean recall@k of one configuration, by part and kind."""
    sums: dict[tuple[str, str], dict[int, float]] = defaultdict(lambda: dict.fromkeys(KS, 0.0))
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for user in data["users"]:
        turns = Turns(user["sessions"])
        live = any(question.get("live") for question in user["questions"])
        rank, close = await _ranker(name, user, turns, workdir, embedder, live=live)
        asked = datetime.fromisoformat(user["asked_at"])
        try:
            for question in user["questions"]:
                hits = await rank(question["question"], asked, question.get("live", []))
                sources = [source for source, _ in hits]
                evidence = set(question["evidence"])
                keys = [
                    (part, kind)
                    for part in ("all", question.get("split", "all"))
                    for kind in ("all", question["kind"])
                ]
                for k in KS:
                    covered = set().union(*sources[:k]) if sources[:k] else set()
                    share = len(evidence & covered) / len(evidence)
                    facts = sum(fact for _, fact in hits[:k]) / k
                    for key in dict.fromkeys(keys):
                        sums[key][k] += share
                    sums[(keys[0][0], "facts")][k] += facts
                    if keys[-1][0] != "all":
                        sums[(keys[-1][0], "facts")][k] += facts
                if verbose and not evidence & (set().union(*sources[:5]) if sources else set()):
                    print(
                        f"  {name} miss {question['id']} [{question['kind']}] "
                        f"{question['question']!r}"
                    )
                for key in dict.fromkeys(keys):
                    counts[key] += 1
                counts[("all", "facts")] += 1
                if keys[-1][0] != "all":
                    counts[(keys[-1][0], "facts")] += 1
        finally:
            await close()
    scores: Scores = defaultdict(dict)
    for (part, kind), count in counts.items():
        scores[part][kind] = {k: sums[(part, kind)][k] / count for k in KS}
    return scores


#: small talk said between a live exchange and its follow-up (``--gap``), by language
_SMALL_TALK = {
    "en": [
        ("Hang on, the kettle just boiled.", "Go ahead, I'll wait."),
        ("Sorry, the dog wanted out.", "No problem at all."),
        ("It's pouring outside now.", "Good evening to stay in, then."),
        ("Ha, fair enough.", "Glad that made sense."),
        ("My tea has gone cold again.", "A fresh cup might help."),
        ("Anyway.", "Take your time."),
    ],
    "pt": [
        ("Espera, a chaleira já ferveu.", "Vai, eu espero."),
        ("Desculpa, o cão queria sair.", "Não faz mal nenhum."),
        ("Está a chover imenso agora.", "Boa noite para ficar em casa, então."),
        ("Pois é.", "Ainda bem que fez sentido."),
        ("O meu chá arrefeceu outra vez.", "Uma chávena nova ajudava."),
        ("Enfim.", "Com calma."),
    ],
}


def with_small_talk(data: dict[str, Any], gap: int) -> dict[str, Any]:
    """``data`` with ``gap`` exchanges of small talk after each live exchange, a minute
    apart: how far back a follow-up's subject can lie and still be found."""
    if gap <= 0:
        return data
    for user in data["users"]:
        for n, question in enumerate(user["questions"]):
            live = question.get("live")
            if not live:
                continue
            talk = _SMALL_TALK.get(question.get("lang", "en"), _SMALL_TALK["en"])
            last = datetime.fromisoformat(live[-1]["at"])
            for step in range(gap):
                said, reply = talk[(n + step) % len(talk)]
                at = last + timedelta(minutes=step + 1)
                live.append({"user": said, "reply": reply, "at": at.isoformat()})
    return data


def with_earlier_subject(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with, before each follow-up's live exchange, the live exchange of the next of
    the person's follow-ups about another story (five minutes earlier): the subject changed
    just before the one asked about."""
    for user in data["users"]:
        followed = [q for q in user["questions"] if q.get("live") and q["kind"] != "none"]
        for n, question in enumerate(followed):
            others = [
                q for q in followed[n + 1 :] + followed[:n] if q["story"] != question["story"]
            ]
            if not others:
                continue
            first = datetime.fromisoformat(question["live"][0]["at"])
            earlier = [
                {**turn, "at": (first - timedelta(minutes=5 - step)).isoformat()}
                for step, turn in enumerate(others[0]["live"])
            ]
            question["live"] = earlier + question["live"]
    return data


def _row(label: str, scores: dict[str, dict[int, float]], kinds: tuple[str, ...]) -> str:
    cells = "".join(
        f"{scores[kind][5]:>8.3f}/{scores[kind][10]:.2f}" if kind in scores else " " * 14
        for kind in kinds
    )
    facts = scores.get("facts", {}).get(5, 0.0)
    return f"{label:<34}{cells}{facts:>9.2f}"


def load(which: str, part: str | None = None) -> dict[str, Any]:
    """Set ``which`` as people with their sessions and questions (set C's questions given to
    the people of sets A and B they ask about), only the questions of ``part`` if given."""
    data: dict[str, Any] = json.loads(SETS[which].read_text(encoding="utf-8"))
    if which == "c":
        people: dict[tuple[str, str], dict[str, Any]] = {}
        sources = {s: json.loads(SETS[s].read_text(encoding="utf-8")) for s in ("a", "b")}
        for question in data["questions"]:
            key = (question["set"], question["user"])
            if key not in people:
                person = next(u for u in sources[key[0]]["users"] if u["user"] == key[1])
                people[key] = {**person, "questions": []}
            people[key]["questions"].append(question)
        data = {"users": list(people.values())}
    if part is not None:
        for user in data["users"]:
            user["questions"] = [q for q in user["questions"] if q.get("split") == part]
        data["users"] = [user for user in data["users"] if user["questions"]]
    return data


def within_reach_of_words(data: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """By part (and ``all``): how many questions share a search stem with one of their
    evidence turns (either side of it), of how many. BM25 can find no other by the question's
    own words; only a model, or the words the write path and the second search add, can."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for user in data["users"]:
        said = {turn["id"]: turn for session in user["sessions"] for turn in session["turns"]}
        for question in user["questions"]:
            asked = set(query_stems(question["question"]))
            shares = any(
                asked & set(index_terms(f"{said[turn]['user']} {said[turn]['reply']}").split())
                for turn in question["evidence"]
                if turn in said
            )
            for part in {"all", question.get("split", "all")}:
                counts[part][0] += shares
                counts[part][1] += 1
    return {part: (shared, total) for part, (shared, total) in counts.items()}


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("a", "b", "c", "d", "e", "both", "all"), default="both")
    parser.add_argument("--part", choices=("tuning", "held-out"), help="only this part")
    parser.add_argument("--no-embeddings", action="store_true")
    parser.add_argument(
        "--model",
        choices=("auto", "e5", "minilm"),
        default="auto",
        help="the embedding model the configurations named '+ MiniLM' use (auto: e5 if installed)",
    )
    parser.add_argument("--only", help="comma-separated configuration names")
    parser.add_argument(
        "--gap", type=int, default=0, help="exchanges of small talk before set C's follow-ups"
    )
    parser.add_argument(
        "--switch", action="store_true", help="another subject just before set C's live exchange"
    )
    parser.add_argument(
        "--named",
        action="store_true",
        help="greetings by name, questions in the third person (bench/named_questions.py)",
    )
    parser.add_argument(
        "--search-order",
        action="store_true",
        help="recall in the search's order, not put in order again (bot/memory/episodes/rerank.py)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses at 5")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    if args.search_order:
        rerank.POOL = 0
    embedder = None if args.no_embeddings else load_embedder(args.model)
    if embedder is not None:
        print(f"embedding model: {getattr(embedder, 'name', type(embedder).__name__)}")
    names = ["fts5 plain", "fts5 -stopwords", "raw episodes", "facts only", "write path"]
    names.append("write path + references")
    if embedder is not None:
        names += [
            "plain hybrid + MiniLM",
            "raw episodes + MiniLM",
            "write path + MiniLM",
            "write path + MiniLM + references",
        ]
    names += ["holographic facts", "holographic"]
    if args.only:
        wanted = set(args.only.split(","))
        names = [name for name in names if name in wanted]
    chosen = {"both": ("a", "b"), "all": ("a", "b", "c", "d", "e")}.get(args.set, (args.set,))
    for which in chosen:
        data = with_small_talk(load(which, args.part), args.gap)
        if args.switch:
            data = with_earlier_subject(data)
        if args.named:
            data = named(data)
        questions = [q for user in data["users"] for q in user["questions"]]
        splits = sorted({q["split"] for q in questions if "split" in q}, reverse=True)
        told = ", ".join(f"{s} {sum(q.get('split') == s for q in questions)}" for s in splits)
        print(
            f"set {which}: {len(data['users'])} people, {len(questions)} questions"
            + (f" ({told})" if told else "")
            + "; recall@5 / recall@10 by kind; facts: share of the top 5 that are facts"
        )
        reach = within_reach_of_words(data)
        print(
            "questions sharing a word with an evidence turn: "
            + ", ".join(f"{part} {reach[part][0]} of {reach[part][1]}" for part in ["all", *splits])
        )
        kinds = KINDS[which]
        print(f"{'configuration':<34}" + "".join(f"{kind:>14}" for kind in kinds) + "    facts")
        with tempfile.TemporaryDirectory(prefix="personad-quality-") as tmp:
            for name in names:
                scores = await evaluate(name, data, Path(tmp), embedder, args.verbose)
                for part in ["all", *splits]:
                    label = name if part == "all" else f"  {part}"
                    print(_row(label, scores[part], kinds), flush=True)
        print()


if __name__ == "__main__":
    asyncio.run(main())
