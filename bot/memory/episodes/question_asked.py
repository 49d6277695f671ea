"""The question a message answers: the persona asked it just before, and its words are indexed
with the answer.

"Hotel Dieu, Thursday at eight" answers "Which hospital is doing the cataract surgery?", and
says nothing of surgery itself: asked later "Where is my cataract surgery?", BM25 could find the
question but never the answer. So a person's message is indexed (its stems, never its text)
with the words of the question the persona asked just before: in the persona's last message
to the same audience (a group room, or the persona's direct rooms) on the same platform, said
or said again there within :data:`ANSWER_WINDOW`, the last sentence that asks something, if
it says enough to be about something (:data:`MIN_QUESTION_WORDS` telling words: "Sleep
well?" and "Was it any good?" lend nothing; no earlier question is taken instead). The
message records the question it answers (``episodes.answers``, ``memory.db`` v10). The
persona's last message to each audience is kept in memory as it is stored (with the stems
its question lends), so turns given one time still pair each answer with the question
before it, never with the persona's answer to it; a message said just after a restart
answers nothing said before it.

Where the words may go:

- An answer takes its question's words only while it still hears the question
  (``EpisodeStore.question_heard``): a direct room's answer wherever the question is, a shared
  room's while the question is the room's or shared. ``Episodes.record`` asks the store before
  lending, so a question forgotten or shared since (by ``personad memory`` in another process
  too) lends nothing.
- A question forgotten or shared has its answers indexed again (:func:`index_answers_again`,
  from ``Episodes.forget`` and ``share``): first with their own words alone, then with the
  question's while they still hear it. The store decides the stems in the write transaction
  that writes them (``EpisodeStore.reindex``), so a step that fails leaves fewer words, never
  more, and the index's delete names the stems it holds.
- An answer given any label but a direct room's leaves its question for good, in the
  transaction that gives it (``EpisodeStore.share``). A repeat never moves a message, so it
  changes no answer's words.
- Messages kept before v11, but a direct room's linked answers, are given their own words
  alone once, when the file opens (``EpisodeStore.settle_old_words``).

Measured with ``bench/recall_quality.py`` (write path, recall@5, tuning / held-out), BM25
alone: set D 0.470 (0.482 / 0.457) -> 0.488 (0.500 / 0.476), set B 0.354 (0.365 / 0.342) ->
0.362 (0.365 / 0.358), set A 0.690 -> 0.688 (one question of 336); with e5 set A 0.914 ->
0.915, set B 0.608 -> 0.610 (0.608 / 0.612), set D as it was (0.658). Of the four
questions of set D that rose, one has its evidence in an answer to such a question ("E Cabo
Verde, sempre em outubro?" "Sim, já está marcado! De 5 a 15 de outubro"); the other three
rose with the index's word counts. Questions of one or two telling words as well gave set D
0.494 and 0.491 and cost sets A and B up to 0.014: their persona asks the same short
questions of every message ("Sleep well?"), whose words then stood in messages about other
things.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from bot.daemon.disk import run_on_text
from bot.memory.addressed_names import message_terms
from bot.memory.sentences import split_sentences
from bot.memory.sqlite.query import query_tokens, telling

__all__ = [
    "ANSWER_WINDOW",
    "MIN_QUESTION_WORDS",
    "LastAsked",
    "index_answers_again",
    "question_in",
    "question_stems",
]

ANSWER_WINDOW = 30 * 60.0
"""Seconds within which a message may answer the persona's question before it."""

MIN_QUESTION_WORDS = 3
"""Telling words (three letters or more, not a stopword, not a number) a question needs."""


def question_in(reply: str) -> str | None:
    """The last sentence of ``reply`` that asks something, if it has
    :data:`MIN_QUESTION_WORDS` telling words; else None (an earlier question is not looked
    for: the last is the one answered)."""
    for sentence in reversed(split_sentences(reply)):
        if not sentence.rstrip().endswith("?"):
            continue
        words = sum(telling(word) for word in query_tokens(sentence))
        return sentence if words >= MIN_QUESTION_WORDS else None
    return None


def question_stems(reply: str) -> str:
    """The index stems :func:`question_in` lends a message that answers ``reply`` ("": none)."""
    question = question_in(reply)
    return message_terms(question) if question else ""


class LastAsked(NamedTuple):
    """The persona's last message to one audience on one platform, said or said again."""

    rowid: int
    at: float
    #: the stems its question lends an answer ("": it asks nothing that lends)
    lends: str

    def answered_at(self, at: float) -> bool:
        """Whether a person's message at ``at`` answers its question."""
        return bool(self.lends) and at - ANSWER_WINDOW <= self.at <= at


class _Answers(Protocol):
    async def answers_to(self, rowid: int) -> list[tuple[int, str]]: ...

    async def reindex(self, rowid: int, own: str, *, lend: bool) -> None: ...


async def index_answers_again(store: _Answers, rowid: int, *, lend: bool = True) -> None:
    """Index again the messages that answer episode ``rowid`` (and it, if it answers one):
    with their question's words while they still hear it (``EpisodeStore.question_heard``'s
    rule, judged by the store as it writes), else (and with ``lend`` False, before a change)
    with their own words alone."""
    for answer, text in await store.answers_to(rowid):
        await store.reindex(answer, await run_on_text(text, message_terms), lend=lend)
