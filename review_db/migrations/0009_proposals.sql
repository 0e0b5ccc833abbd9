-- 0009: corrections of benchmark items (issue 23). A reviewer proposes a correction of
-- one item (answer key, an option's text, the question, the box, the mask) or to retire
-- it; another expert accepts or rejects it. Both tables are append-only, as
-- adjudications and reviews are: a proposal is never changed, a decision is the next
-- revision of its proposal's decision and the latest revision wins. The store checks on
-- every open that these triggers are there as written here
-- (medrcube_desktop.store.guards). No row of reviews, judgments or adjudications is
-- touched.
--
-- REPLACE is DELETE + INSERT: with recursive_triggers off (SQLite's default) its implicit
-- delete fires no delete trigger, so a row that would collide (same id or uid; for a
-- decision, same proposal and revision) is refused before the insert. NEW.id is -1 in a
-- BEFORE INSERT trigger when the id is not given, and no row has id -1.

CREATE TABLE proposals (
    id             INTEGER PRIMARY KEY,
    uid            TEXT    NOT NULL UNIQUE,
    item_id        TEXT    NOT NULL CHECK (length(trim(item_id)) > 0),
    kind           TEXT    NOT NULL CHECK (kind IN
                       ('answer_key', 'option_text', 'question_text', 'bbox', 'mask', 'retire')),
    rule           TEXT    NOT NULL CHECK (rule IN
                       ('1.1', '1.2', '1.3', '1.4', '2.1', '2.2', '2.3')),
    reason         TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    author         TEXT    NOT NULL CHECK (length(trim(author)) > 0),
    change         TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(change)),
    record_before  TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(record_before)),
    source_file    TEXT    NOT NULL DEFAULT '',
    mask_labels    BLOB    CHECK ((kind = 'mask') = (mask_labels IS NOT NULL)),
    created_at     TEXT    NOT NULL,
    app_version    TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX proposals_by_item ON proposals (item_id);

CREATE TABLE proposal_decisions (
    id             INTEGER PRIMARY KEY,
    uid            TEXT    NOT NULL UNIQUE,
    proposal_uid   TEXT    NOT NULL REFERENCES proposals (uid),
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    decision       TEXT    NOT NULL CHECK (decision IN ('accepted', 'rejected', 'withdrawn')),
    reason         TEXT    NOT NULL CHECK (length(trim(reason)) > 0),
    decider        TEXT    NOT NULL CHECK (length(trim(decider)) > 0),
    created_at     TEXT    NOT NULL,
    app_version    TEXT    NOT NULL DEFAULT '',
    UNIQUE (proposal_uid, revision)
);

CREATE TRIGGER proposals_never_updated BEFORE UPDATE ON proposals
BEGIN
    SELECT RAISE(ABORT, 'a proposal is never changed: propose again');
END;

CREATE TRIGGER proposals_never_deleted BEFORE DELETE ON proposals
BEGIN
    SELECT RAISE(ABORT, 'a proposal is never deleted: withdraw or reject it');
END;

CREATE TRIGGER proposals_never_replaced BEFORE INSERT ON proposals
WHEN EXISTS (SELECT 1 FROM proposals WHERE id = NEW.id OR uid = NEW.uid)
BEGIN
    SELECT RAISE(ABORT, 'a proposal is never replaced: propose again');
END;

CREATE TRIGGER proposal_decisions_never_updated BEFORE UPDATE ON proposal_decisions
BEGIN
    SELECT RAISE(ABORT, 'a decision is never changed: record a new revision');
END;

CREATE TRIGGER proposal_decisions_never_deleted BEFORE DELETE ON proposal_decisions
BEGIN
    SELECT RAISE(ABORT, 'a decision is never deleted: record a new revision');
END;

CREATE TRIGGER proposal_decisions_never_replaced BEFORE INSERT ON proposal_decisions
WHEN EXISTS (SELECT 1 FROM proposal_decisions
             WHERE id = NEW.id
                OR uid = NEW.uid
                OR (proposal_uid = NEW.proposal_uid AND revision = NEW.revision))
BEGIN
    SELECT RAISE(ABORT, 'a decision is never replaced: record a new revision');
END;

-- A reviewer never accepts or rejects their own proposal; only its author withdraws it.
-- Names compare without case, as the app compares them (core.names.same_name: NFKC and
-- casefold), so 'DR-A' does not accept dr-a's proposal. SQLite's lower() folds ASCII
-- letters only: 'ÉLODIE' and 'élodie' differ here, and the store refuses that pair
-- before the insert (store.proposals.insert_decision).
CREATE TRIGGER proposal_decisions_not_the_authors BEFORE INSERT ON proposal_decisions
WHEN (NEW.decision = 'withdrawn')
     <> (lower(trim(NEW.decider))
         = (SELECT lower(trim(author)) FROM proposals WHERE uid = NEW.proposal_uid))
BEGIN
    SELECT RAISE(ABORT, 'a proposal is accepted or rejected by another reviewer, withdrawn only by its author');
END;
