-- 0007: committed reviews are append-only at the database, as adjudications are (issue
-- 21). A review row is never deleted, never replaced and never changed; the one change
-- allowed is its revision number (merge and import-reviews renumber an item's revisions
-- by commit time), and the first judgment (revision 1, not a repeat) keeps revision 1.
-- The store checks on every open that these triggers (and the adjudications' ones) are
-- there as written here (medrcube_desktop.store.guards).
--
-- REPLACE is DELETE + INSERT: with recursive_triggers off (SQLite's default) its implicit
-- delete fires no delete trigger, so a row that would collide (same id, uid, or
-- reviewer, item and revision) is refused before the insert. NEW.id is -1 in a BEFORE
-- INSERT trigger when the id is not given, and no row has id -1.

CREATE TRIGGER reviews_never_deleted BEFORE DELETE ON reviews
BEGIN
    SELECT RAISE(ABORT, 'a committed review is never deleted: commit a new revision');
END;

CREATE TRIGGER reviews_never_replaced BEFORE INSERT ON reviews
WHEN EXISTS (SELECT 1 FROM reviews
             WHERE id = NEW.id
                OR uid = NEW.uid
                OR (reviewer = NEW.reviewer AND item_id = NEW.item_id
                    AND revision = NEW.revision))
BEGIN
    SELECT RAISE(ABORT, 'a committed review is never replaced: commit a new revision');
END;

-- Every column but `revision`; `uid` may be filled once (reviews_uid_default, rows
-- inserted without one).
CREATE TRIGGER reviews_never_changed BEFORE UPDATE ON reviews
WHEN NEW.id IS NOT OLD.id
  OR NEW.reviewer IS NOT OLD.reviewer
  OR NEW.item_id IS NOT OLD.item_id
  OR NEW.score_1_1 IS NOT OLD.score_1_1
  OR NEW.score_1_2 IS NOT OLD.score_1_2
  OR NEW.score_1_3 IS NOT OLD.score_1_3
  OR NEW.score_1_4 IS NOT OLD.score_1_4
  OR NEW.score_2_1 IS NOT OLD.score_2_1
  OR NEW.score_2_2 IS NOT OLD.score_2_2
  OR NEW.score_2_3 IS NOT OLD.score_2_3
  OR NEW.comment IS NOT OLD.comment
  OR NEW.started_at IS NOT OLD.started_at
  OR NEW.committed_at IS NOT OLD.committed_at
  OR NEW.rubric_version IS NOT OLD.rubric_version
  OR NEW.app_version IS NOT OLD.app_version
  OR (OLD.uid IS NOT NULL AND NEW.uid IS NOT OLD.uid)
  OR NEW.active_seconds IS NOT OLD.active_seconds
  OR NEW.tags IS NOT OLD.tags
  OR NEW.repeat IS NOT OLD.repeat
  OR NEW.source IS NOT OLD.source
  OR NEW.blind IS NOT OLD.blind
  OR NEW.image_shown IS NOT OLD.image_shown
BEGIN
    SELECT RAISE(ABORT, 'a committed review is never changed: commit a new revision');
END;

CREATE TRIGGER reviews_first_judgment_kept BEFORE UPDATE OF revision ON reviews
WHEN OLD.revision = 1 AND OLD.repeat = 0 AND NEW.revision IS NOT 1
BEGIN
    SELECT RAISE(ABORT, 'a first judgment is never replaced: it keeps revision 1');
END;

-- 0005's guard against REPLACE compared uid and (item, target, revision) but not the
-- row id: `REPLACE INTO adjudications (id, ...)` with a new uid destroyed a past row.
DROP TRIGGER IF EXISTS adjudications_never_replaced;

CREATE TRIGGER adjudications_never_replaced BEFORE INSERT ON adjudications
WHEN EXISTS (SELECT 1 FROM adjudications
             WHERE id = NEW.id
                OR uid = NEW.uid
                OR (item_id = NEW.item_id AND target = NEW.target AND revision = NEW.revision))
BEGIN
    SELECT RAISE(ABORT, 'an adjudication is never replaced: record a new revision');
END;
