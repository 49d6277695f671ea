"""The schema of a persona's ``memory.db``, as numbered migrations.

Tables:

* ``items``: one row per memory, never deleted (a ``BEFORE DELETE`` trigger refuses). ``status``
  is ``active``, ``superseded`` (its line left MEMORY.md/USER.md) or ``forgotten``.
* ``items_fts``: FTS5 over ``items.text`` with ``unicode61 remove_diacritics 2``; triggers keep
  it holding exactly the active items, so recall needs no status filter.
* ``vectors`` (v2): one float32 embedding per item, with the model that made it.
* ``item_events`` (v3): the history ``explain`` shows (created, reinforced, superseded, ...).
* ``mirror_lines`` (v3): which line of which file each mirrored item came from.
* ``items_vocab`` (v3): FTS5's own term statistics (documents per term) for query planning.
* ``items.room`` (v4), ``items_shared_fts`` and ``items_shared_vocab`` (v4): the kind of room an
  item was learned in, and an index of the shared ones; both gave way to the audience (v6).
* ``episodes``, ``episodes_fts``, ``episodes_vocab``, ``episode_vectors`` (v5): every on-record
  message (``speaker`` ``user`` or ``persona``) with its time, audience and platform, apart from
  the durable facts in ``items``. The FTS index holds the message's stems
  (:mod:`bot.memory.sqlite.stemming`), not its text; a forgotten episode keeps its row and index
  entry, and recall skips it by status. ``items.terms`` (v5): the item's stems, which the items
  index holds instead of its text (filled in for older items when the file opens).
* ``items.audience`` and ``episodes.audience`` (v6, the ``room`` column renamed): who may be
  shown the row, an audience label (:mod:`bot.turn.audience`): ``direct``, ``shared`` or
  ``room:PLATFORM:ID``. Where an older row was said in a shared room is not known, so the
  rows that were ``shared`` are ``direct`` now: private until the user shares them. One
  ``items_fts`` serves every audience: a search restricts its matches to the rows an
  audience sees inside the FTS subquery (``rowid IN (SELECT id FROM items WHERE audience IN
  ...)``), before they are ranked and cut, and term statistics count every active item.
  ``episode_events`` (v6): an episode's history (shared, made private, forgotten).
* ``items.episode`` (v7): the episode (the user's message) a fact was told in, so recall gives
  the two as one hit; NULL for what no message said (a mirrored line, a forced add). Older
  facts find theirs: the user's episode said at the moment the fact was stated whose words
  hold the fact's.
* ``sentence_vectors`` (v8; v3 of ``episodes.db``): one float32 embedding per sentence of a
  message of two sentences or more, each naming its episode
  (:mod:`bot.memory.episodes.sentence_vectors`).
* ``sentence_fill`` (v9; v4 of ``episodes.db``): for each model, the episode up to which every
  message has been given its sentence vectors; the messages said before v8, or while another
  model (or none) was configured, are given theirs in the background after the file opens.
* ``episodes.answers`` (v10; v5 of ``episodes.db``): of a person's message, the persona's
  question it answers, whose words its index stems hold while the question is active and
  heard where the message is (:mod:`bot.memory.episodes.question_asked`); NULL for the
  rest, for a message given any label but a direct room's after it answered, and for the
  messages said before v10, which keep their own words alone.
* ``old_words`` (v11; v6 of ``episodes.db``): every message said before v11 but a direct
  room's answer to a question: a message given another audience then kept its link to the
  question, and before v10 a message took the question's words with no link at all, so where
  those words were heard is not known. :meth:`EpisodeStore.settle_old_words
  <bot.memory.episodes.store.EpisodeStore.settle_old_words>` gives each its own words alone
  and no question when the file opens, and empties the table.
* ``renew_words`` (v12; v7 of ``episodes.db``): every message kept before v12, whose index
  stems may hold a name said to the one spoken to ("Hey Mel!");
  :meth:`EpisodeStore.renew_addressed <bot.memory.episodes.store.EpisodeStore.renew_addressed>`
  indexes again those that do, without it (:mod:`bot.memory.addressed_names`), when the file opens,
  and empties the table.
* v13 (v8 of ``episodes.db``) computes again the ``norm`` of every item and message whose
  comparison form changed when it began to keep a sign that changes what a word says ("A+"
  and "A-" were one, so a correction of a blood type reinforced the old one); the migration
  calls it as the SQL function ``normal_form``. A mirrored line keeps its old form until the
  file is mirrored next, when it takes its new one
  (:meth:`~bot.memory.sqlite.backend_writes.FactWrites._mirrored_lines`).

The steps that make and change the facts' tables are in
:mod:`bot.memory.sqlite.item_migrations`; the episode tables' steps are here, beside the two
lists that number them. The statements the backend runs against these tables live in
:mod:`bot.memory.sqlite.store`; a file is opened and brought up to date by
:func:`~bot.memory.sqlite.opening.open_database`. The episode tables alone
(:data:`EPISODE_TABLES` with their audience: :data:`EPISODE_FILE_MIGRATIONS`) also make up
``episodes.db``, where a backend whose facts live elsewhere (``holographic``) keeps its
episodes.
"""

from __future__ import annotations

from bot.delivery.migrations import Migration
from bot.memory.sqlite.item_migrations import (
    ITEM_AUDIENCE,
    ITEM_EPISODE,
    ITEM_EVENTS,
    ITEM_ROOMS,
    ITEM_TERMS,
    ITEM_VECTORS,
    ITEMS_TABLE,
    SIGNED_ITEMS,
)

__all__ = [
    "EPISODE_FILE_MIGRATIONS",
    "EPISODE_TABLES",
    "MIGRATIONS",
    "SCHEMA_VERSION",
]

EPISODE_TABLES = (
    # IF NOT EXISTS: a file whose version was set back (restored from an older copy of
    # schema_version) keeps its episodes
    """
CREATE TABLE IF NOT EXISTS episodes (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    speaker TEXT NOT NULL,
    room TEXT NOT NULL DEFAULT 'direct',
    platform TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    norm TEXT NOT NULL,
    terms TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    reinforced INTEGER NOT NULL DEFAULT 0,
    last_seen REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_norm ON episodes (norm, speaker, status);
CREATE INDEX IF NOT EXISTS episodes_at ON episodes (at);
CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5 (
    terms, content = 'episodes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS episodes_vocab USING fts5vocab (episodes_fts, row);
CREATE TABLE IF NOT EXISTS episode_vectors (
    episode_id INTEGER PRIMARY KEY REFERENCES episodes (id),
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
"""
    "CREATE TRIGGER IF NOT EXISTS episodes_fts_insert AFTER INSERT ON episodes BEGIN "
    "INSERT INTO episodes_fts (rowid, terms) VALUES (new.id, new.terms); END;\n"
    "CREATE TRIGGER IF NOT EXISTS episodes_never_deleted BEFORE DELETE ON episodes BEGIN "
    "SELECT RAISE(ABORT, 'episodes are never deleted; mark them forgotten'); END;\n"
)
"""The episode tables, their index and triggers: v5 of ``memory.db``, and version 1 of an
``episodes.db`` (:data:`EPISODE_FILE_MIGRATIONS`); v6 and version 2 rename ``room``."""

_EPISODE_AUDIENCE = """
UPDATE episodes SET room = 'direct' WHERE room = 'shared';
ALTER TABLE episodes RENAME COLUMN room TO audience;
CREATE INDEX IF NOT EXISTS episodes_audience ON episodes (audience, status);
CREATE TABLE IF NOT EXISTS episode_events (
    id INTEGER PRIMARY KEY,
    episode_id INTEGER NOT NULL REFERENCES episodes (id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS episode_events_episode ON episode_events (episode_id);
"""
"""Episodes record their audience label; an old ``shared`` one was said in some shared room
nobody recorded, so it becomes private (``direct``). ``episode_events``: what changed an
episode's audience or status, for ``explain``."""

_SENTENCE_VECTORS = """
CREATE TABLE IF NOT EXISTS sentence_vectors (
    id INTEGER PRIMARY KEY,
    episode_id INTEGER NOT NULL REFERENCES episodes (id),
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS sentence_vectors_episode ON sentence_vectors (episode_id, model);
"""

_SENTENCE_FILL = """
CREATE TABLE IF NOT EXISTS sentence_fill (
    model TEXT PRIMARY KEY,
    through INTEGER NOT NULL
);
"""

_ANSWERS = """
ALTER TABLE episodes ADD COLUMN answers INTEGER;
CREATE INDEX IF NOT EXISTS episodes_answers ON episodes (answers);
"""

_OLD_WORDS = """
CREATE TABLE IF NOT EXISTS old_words (episode_id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO old_words (episode_id)
    SELECT id FROM episodes WHERE answers IS NULL OR audience != 'direct';
"""

_RENEW_WORDS = """
CREATE TABLE IF NOT EXISTS renew_words (episode_id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO renew_words (episode_id) SELECT id FROM episodes;
"""

# the comparison form computed again where it changed when it began to keep "A+", "C++", "-5"
_SIGNED_EPISODES = (
    "UPDATE episodes SET norm = normal_form(text) WHERE norm IS NOT normal_form(text);"
)

MIGRATIONS: list[Migration] = [
    (1, ITEMS_TABLE),
    (2, ITEM_VECTORS),
    (3, ITEM_EVENTS),
    (4, ITEM_ROOMS),
    (5, EPISODE_TABLES + ITEM_TERMS),
    (6, ITEM_AUDIENCE + _EPISODE_AUDIENCE),
    (7, ITEM_EPISODE),
    (8, _SENTENCE_VECTORS),
    (9, _SENTENCE_FILL),
    (10, _ANSWERS),
    (11, _OLD_WORDS),
    (12, _RENEW_WORDS),
    (13, SIGNED_ITEMS + _SIGNED_EPISODES),
]
SCHEMA_VERSION = max(version for version, _ in MIGRATIONS)

EPISODE_FILE_MIGRATIONS: list[Migration] = [
    (1, EPISODE_TABLES),
    (2, _EPISODE_AUDIENCE),
    (3, _SENTENCE_VECTORS),
    (4, _SENTENCE_FILL),
    (5, _ANSWERS),
    (6, _OLD_WORDS),
    (7, _RENEW_WORDS),
    (8, _SIGNED_EPISODES),
]
"""The schema of a file that holds episodes alone (``episodes.db``, beside a backend whose
facts live in a store of its own: :mod:`bot.memory.episodes.file`)."""
