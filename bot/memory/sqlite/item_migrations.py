"""The steps of ``memory.db``'s numbered migrations that make and change the facts' tables:
``items`` with its FTS5 index and triggers, ``vectors``, ``item_events``, ``mirror_lines``.

:mod:`bot.memory.sqlite.schema` numbers them, beside the steps of the episode tables (v5 and
v6 run a step of each), and says what every version adds.
"""

from __future__ import annotations

__all__ = [
    "ITEMS_TABLE",
    "ITEM_AUDIENCE",
    "ITEM_EPISODE",
    "ITEM_EVENTS",
    "ITEM_ROOMS",
    "ITEM_TERMS",
    "ITEM_VECTORS",
    "SIGNED_ITEMS",
]

ITEMS_TABLE = (
    """
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    norm TEXT NOT NULL,
    category TEXT NOT NULL,
    source TEXT NOT NULL,
    confidence REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    created_at REAL NOT NULL,
    last_seen REAL NOT NULL,
    reinforced INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX items_norm ON items (norm, status);
CREATE INDEX items_source ON items (source, status);
CREATE INDEX items_created ON items (created_at);
CREATE VIRTUAL TABLE items_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
"""
    # Trigger bodies stay on one line: migrations split statements at ";" + newline.
    "CREATE TRIGGER items_fts_insert AFTER INSERT ON items WHEN new.status = 'active' BEGIN "
    "INSERT INTO items_fts (rowid, text) VALUES (new.id, new.text); END;\n"
    "CREATE TRIGGER items_fts_update AFTER UPDATE OF status, text ON items "
    "WHEN old.status IS NOT new.status OR old.text IS NOT new.text BEGIN "
    "DELETE FROM items_fts WHERE rowid = old.id AND old.status = 'active'; "
    "INSERT INTO items_fts (rowid, text) SELECT new.id, new.text WHERE new.status = 'active'; "
    "END;\n"
    "CREATE TRIGGER items_never_deleted BEFORE DELETE ON items BEGIN "
    "SELECT RAISE(ABORT, 'memory items are never deleted; mark them forgotten'); END;\n"
)

ITEM_VECTORS = """
CREATE TABLE vectors (
    item_id INTEGER PRIMARY KEY REFERENCES items (id),
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
"""

ITEM_EVENTS = (
    """
CREATE TABLE item_events (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items (id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX item_events_item ON item_events (item_id);
CREATE VIRTUAL TABLE items_vocab USING fts5vocab (items_fts, row);
"""
    "CREATE TRIGGER items_created_event AFTER INSERT ON items BEGIN "
    "INSERT INTO item_events (item_id, at, kind, detail) "
    "VALUES (new.id, new.created_at, 'created', new.source || ': ' || new.reason); END;\n"
    """CREATE TABLE mirror_lines (
    filename TEXT NOT NULL,
    norm TEXT NOT NULL,
    item_id INTEGER NOT NULL REFERENCES items (id),
    present INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (filename, norm)
);
"""
)

ITEM_ROOMS = (
    """
ALTER TABLE items ADD COLUMN room TEXT NOT NULL DEFAULT 'direct';
UPDATE items SET room = 'shared' WHERE source IN ('MEMORY.md', 'USER.md', 'cli')
    OR id IN (SELECT item_id FROM mirror_lines WHERE present = 1);
CREATE VIRTUAL TABLE items_shared_fts USING fts5 (
    text, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE items_shared_vocab USING fts5vocab (items_shared_fts, row);
INSERT INTO items_shared_fts (rowid, text)
    SELECT id, text FROM items WHERE status = 'active' AND room = 'shared';
"""
    "CREATE TRIGGER items_shared_fts_insert AFTER INSERT ON items "
    "WHEN new.status = 'active' AND new.room = 'shared' BEGIN "
    "INSERT INTO items_shared_fts (rowid, text) VALUES (new.id, new.text); END;\n"
    "CREATE TRIGGER items_shared_fts_update AFTER UPDATE OF status, text, room ON items "
    "WHEN old.status IS NOT new.status OR old.text IS NOT new.text OR old.room IS NOT new.room "
    "BEGIN DELETE FROM items_shared_fts WHERE rowid = old.id AND old.status = 'active' "
    "AND old.room = 'shared'; INSERT INTO items_shared_fts (rowid, text) "
    "SELECT new.id, new.text WHERE new.status = 'active' AND new.room = 'shared'; END;\n"
)

ITEM_TERMS = (
    # facts are indexed by their stems too; the stems of existing items are filled in by
    # FtsStore.open (Python computes them), which reindexes each item as it goes
    "ALTER TABLE items ADD COLUMN terms TEXT NOT NULL DEFAULT '';\n"
    "DROP TRIGGER IF EXISTS items_fts_insert;\n"
    "DROP TRIGGER IF EXISTS items_fts_update;\n"
    "DROP TRIGGER IF EXISTS items_shared_fts_insert;\n"
    "DROP TRIGGER IF EXISTS items_shared_fts_update;\n"
    "CREATE TRIGGER items_fts_insert AFTER INSERT ON items WHEN new.status = 'active' BEGIN "
    "INSERT INTO items_fts (rowid, text) VALUES (new.id, new.terms); END;\n"
    "CREATE TRIGGER items_fts_update AFTER UPDATE OF status, terms ON items "
    "WHEN old.status IS NOT new.status OR old.terms IS NOT new.terms BEGIN "
    "DELETE FROM items_fts WHERE rowid = old.id AND old.status = 'active'; "
    "INSERT INTO items_fts (rowid, text) SELECT new.id, new.terms WHERE new.status = 'active'; "
    "END;\n"
    "CREATE TRIGGER items_shared_fts_insert AFTER INSERT ON items "
    "WHEN new.status = 'active' AND new.room = 'shared' BEGIN "
    "INSERT INTO items_shared_fts (rowid, text) VALUES (new.id, new.terms); END;\n"
    "CREATE TRIGGER items_shared_fts_update AFTER UPDATE OF status, terms, room ON items "
    "WHEN old.status IS NOT new.status OR old.terms IS NOT new.terms OR old.room IS NOT new.room "
    "BEGIN DELETE FROM items_shared_fts WHERE rowid = old.id AND old.status = 'active' "
    "AND old.room = 'shared'; INSERT INTO items_shared_fts (rowid, text) "
    "SELECT new.id, new.terms WHERE new.status = 'active' AND new.room = 'shared'; END;\n"
)

ITEM_AUDIENCE = """
DROP TRIGGER IF EXISTS items_shared_fts_insert;
DROP TRIGGER IF EXISTS items_shared_fts_update;
DROP TABLE IF EXISTS items_shared_vocab;
DROP TABLE IF EXISTS items_shared_fts;
UPDATE items SET room = 'direct' WHERE room = 'shared';
ALTER TABLE items RENAME COLUMN room TO audience;
CREATE INDEX items_audience ON items (audience, status);
"""

ITEM_EPISODE = """
ALTER TABLE items ADD COLUMN episode INTEGER;
UPDATE items SET episode = (
    SELECT e.id FROM episodes e WHERE e.speaker = 'user' AND e.at = items.created_at
    AND instr(' ' || e.norm || ' ', ' ' || items.norm || ' ') > 0 ORDER BY e.id LIMIT 1
);
"""

# the comparison form computed again where it changed when it began to keep "A+", "C++", "-5"
SIGNED_ITEMS = "UPDATE items SET norm = normal_form(text) WHERE norm IS NOT normal_form(text);"
