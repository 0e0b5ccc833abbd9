-- 0001: reviews of benchmark items on the NBME rubric (paper Table 10), and app state.
-- Applied inside one transaction by medrcube_desktop.store.migrations.

CREATE TABLE reviews (
    id               INTEGER PRIMARY KEY,
    reviewer         TEXT    NOT NULL,
    item_id          TEXT    NOT NULL,
    revision         INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1),
    score_1_1        INTEGER NOT NULL CHECK (score_1_1 IN (0, 1)),
    score_1_2        INTEGER NOT NULL CHECK (score_1_2 IN (0, 1)),
    score_1_3        INTEGER NOT NULL CHECK (score_1_3 IN (0, 1)),
    score_1_4        INTEGER NOT NULL CHECK (score_1_4 IN (0, 1)),
    score_2_1        INTEGER NOT NULL CHECK (score_2_1 IN (0, 1)),
    score_2_2        INTEGER NOT NULL CHECK (score_2_2 IN (0, 1)),
    score_2_3        INTEGER NOT NULL CHECK (score_2_3 IN (0, 1)),
    comment          TEXT    NOT NULL DEFAULT '',
    started_at       TEXT    NOT NULL,
    committed_at     TEXT    NOT NULL,
    rubric_version   TEXT    NOT NULL,
    app_version      TEXT    NOT NULL,
    UNIQUE (reviewer, item_id, revision)
);

CREATE INDEX reviews_by_item ON reviews (item_id, reviewer);

CREATE TABLE app_state (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
