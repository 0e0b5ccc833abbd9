-- 0003: agreement studies (issue 6): a named, seeded sample of items that can be
-- reproduced and extended.

CREATE TABLE studies (
    name        TEXT    PRIMARY KEY,
    seed        INTEGER NOT NULL,
    stratify    TEXT    NOT NULL DEFAULT '' CHECK (stratify IN ('', 'task', 'modality', 'region')),
    created_at  TEXT    NOT NULL
);

CREATE TABLE study_items (
    study     TEXT    NOT NULL REFERENCES studies (name),
    item_id   TEXT    NOT NULL,
    position  INTEGER NOT NULL,
    added_at  TEXT    NOT NULL,
    PRIMARY KEY (study, item_id)
);
