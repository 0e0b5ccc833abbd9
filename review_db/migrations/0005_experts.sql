-- 0005: several experts (issue 15 item 4): adjudicated verdicts where experts (or an
-- expert and the LLM) disagree, and the assignment of items among reviewers with an
-- overlap. Neither table touches `reviews` or `judgments`: first judgments stay as they
-- were.

CREATE TABLE adjudications (
    id           INTEGER PRIMARY KEY,
    uid          TEXT    NOT NULL UNIQUE,
    item_id      TEXT    NOT NULL,
    target       TEXT    NOT NULL CHECK (target IN
                     ('1.1', '1.2', '1.3', '1.4', '2.1', '2.2', '2.3', 'verdict')),
    value        INTEGER NOT NULL CHECK (value IN (0, 1)),
    reason       TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    adjudicator  TEXT    NOT NULL CHECK (length(trim(adjudicator)) > 0),
    revision     INTEGER NOT NULL CHECK (revision >= 1),
    resolves     TEXT    NOT NULL DEFAULT '[]',
    created_at   TEXT    NOT NULL,
    app_version  TEXT    NOT NULL DEFAULT '',
    UNIQUE (item_id, target, revision)
);

CREATE INDEX adjudications_by_item ON adjudications (item_id, target);

CREATE TRIGGER adjudications_never_updated BEFORE UPDATE ON adjudications
BEGIN
    SELECT RAISE(ABORT, 'an adjudication is never changed: record a new revision');
END;

CREATE TRIGGER adjudications_never_deleted BEFORE DELETE ON adjudications
BEGIN
    SELECT RAISE(ABORT, 'an adjudication is never deleted: record a new revision');
END;

-- INSERT OR REPLACE deletes the row it collides with without firing the delete trigger
-- (SQLite fires delete triggers for REPLACE only with recursive_triggers on): a row
-- that would collide is refused before the insert.
CREATE TRIGGER adjudications_never_replaced BEFORE INSERT ON adjudications
WHEN EXISTS (SELECT 1 FROM adjudications
             WHERE uid = NEW.uid
                OR (item_id = NEW.item_id AND target = NEW.target AND revision = NEW.revision))
BEGIN
    SELECT RAISE(ABORT, 'an adjudication is never replaced: record a new revision');
END;

CREATE TABLE assignment_settings (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    reviewers   TEXT    NOT NULL,
    overlap     REAL    NOT NULL CHECK (overlap >= 0 AND overlap <= 1),
    seed        INTEGER NOT NULL,
    n_items     INTEGER NOT NULL,
    created_at  TEXT    NOT NULL
);

CREATE TABLE assignments (
    reviewer  TEXT    NOT NULL,
    item_id   TEXT    NOT NULL,
    overlap   INTEGER NOT NULL CHECK (overlap IN (0, 1)),
    PRIMARY KEY (reviewer, item_id)
);
