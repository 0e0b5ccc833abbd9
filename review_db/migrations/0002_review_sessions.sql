-- 0002: review sessions (issue 4). Stable row ids for merging, active time, tags and
-- intra-rater repeats on reviews; drafts saved per edit; flags; LLM judgments (written by
-- the judge, shown only after the reviewer commits); notes on disagreement with the LLM.

ALTER TABLE reviews ADD COLUMN uid TEXT;

-- Rows written before v2 get a deterministic id, so merging the same old file twice
-- (each time through a migrated copy) still recognises its rows.
UPDATE reviews SET uid = 'v1:' || reviewer || ':' || item_id || ':' || revision || ':' || committed_at;

CREATE UNIQUE INDEX reviews_uid ON reviews (uid);

CREATE TRIGGER reviews_uid_default AFTER INSERT ON reviews WHEN NEW.uid IS NULL
BEGIN
    UPDATE reviews SET uid = lower(hex(randomblob(16))) WHERE id = NEW.id;
END;

ALTER TABLE reviews ADD COLUMN active_seconds REAL NOT NULL DEFAULT 0 CHECK (active_seconds >= 0);

ALTER TABLE reviews ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';

ALTER TABLE reviews ADD COLUMN repeat INTEGER NOT NULL DEFAULT 0 CHECK (repeat IN (0, 1));

ALTER TABLE reviews ADD COLUMN source TEXT NOT NULL DEFAULT 'app';

-- 1 when nothing was revealed to the reviewer (LLM judgment, other reviewers) before the
-- commit. Before v2 the app revealed nothing, so existing rows are blind.
ALTER TABLE reviews ADD COLUMN blind INTEGER NOT NULL DEFAULT 1 CHECK (blind IN (0, 1));

CREATE TABLE drafts (
    reviewer        TEXT    NOT NULL,
    item_id         TEXT    NOT NULL,
    scores          TEXT    NOT NULL,
    comment         TEXT    NOT NULL DEFAULT '',
    tags            TEXT    NOT NULL DEFAULT '[]',
    repeat          INTEGER NOT NULL DEFAULT 0 CHECK (repeat IN (0, 1)),
    active_seconds  REAL    NOT NULL DEFAULT 0 CHECK (active_seconds >= 0),
    started_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL,
    PRIMARY KEY (reviewer, item_id)
);

-- An unflag keeps its row (flagged = 0) so that merge can tell it from "never flagged":
-- the later change wins.
CREATE TABLE flags (
    reviewer    TEXT    NOT NULL,
    item_id     TEXT    NOT NULL,
    flagged     INTEGER NOT NULL CHECK (flagged IN (0, 1)),
    changed_at  TEXT    NOT NULL,
    PRIMARY KEY (reviewer, item_id)
);

CREATE TABLE judgments (
    id                 INTEGER PRIMARY KEY,
    uid                TEXT    NOT NULL UNIQUE,
    item_id            TEXT    NOT NULL,
    model              TEXT    NOT NULL,
    base_url           TEXT    NOT NULL DEFAULT '',
    prompt_sha256      TEXT    NOT NULL DEFAULT '',
    temperature        REAL,
    status             TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
    score_1_1          INTEGER CHECK (score_1_1 IN (0, 1)),
    score_1_2          INTEGER CHECK (score_1_2 IN (0, 1)),
    score_1_3          INTEGER CHECK (score_1_3 IN (0, 1)),
    score_1_4          INTEGER CHECK (score_1_4 IN (0, 1)),
    score_2_1          INTEGER CHECK (score_2_1 IN (0, 1)),
    score_2_2          INTEGER CHECK (score_2_2 IN (0, 1)),
    score_2_3          INTEGER CHECK (score_2_3 IN (0, 1)),
    raw_text           TEXT    NOT NULL DEFAULT '',
    error              TEXT    NOT NULL DEFAULT '',
    prompt_tokens      INTEGER,
    completion_tokens  INTEGER,
    source             TEXT    NOT NULL DEFAULT 'api',
    created_at         TEXT    NOT NULL,
    CHECK (status = 'failed' OR (score_1_1 IS NOT NULL AND score_1_2 IS NOT NULL
        AND score_1_3 IS NOT NULL AND score_1_4 IS NOT NULL AND score_2_1 IS NOT NULL
        AND score_2_2 IS NOT NULL AND score_2_3 IS NOT NULL))
);

CREATE INDEX judgments_by_item ON judgments (item_id, model);

CREATE TABLE disagreement_notes (
    review_uid  TEXT PRIMARY KEY REFERENCES reviews (uid),
    model       TEXT NOT NULL,
    rules       TEXT NOT NULL,
    comment     TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
