-- 0004: evaluation runs (issue 7): a model answering the benchmark with the Table 9 prompt.

CREATE TABLE eval_runs (
    name              TEXT    PRIMARY KEY,
    engine            TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    model_revision    TEXT    NOT NULL DEFAULT '',
    params            TEXT    NOT NULL,
    prompt_sha256     TEXT    NOT NULL,
    text_only         INTEGER NOT NULL DEFAULT 0 CHECK (text_only IN (0, 1)),
    app_version       TEXT    NOT NULL,
    library_versions  TEXT    NOT NULL DEFAULT '{}',
    gpu               TEXT    NOT NULL DEFAULT '',
    benchmark         TEXT    NOT NULL DEFAULT '',
    created_at        TEXT    NOT NULL
);

CREATE TABLE eval_responses (
    run               TEXT    NOT NULL REFERENCES eval_runs (name),
    item_id           TEXT    NOT NULL,
    response          TEXT    NOT NULL,
    parsed_answer     TEXT,
    parse_method      TEXT    NOT NULL,
    correct           INTEGER NOT NULL CHECK (correct IN (0, 1)),
    official_answer   TEXT,
    official_correct  INTEGER NOT NULL CHECK (official_correct IN (0, 1)),
    latency_s         REAL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    image             TEXT    NOT NULL DEFAULT '{}',
    created_at        TEXT    NOT NULL,
    PRIMARY KEY (run, item_id)
);
