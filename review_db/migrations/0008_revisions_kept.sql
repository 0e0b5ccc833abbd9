-- 0008: a review's revision number is kept (issue 21). 0007 let any UPDATE change
-- `revision` unless the row was a first judgment, and UPDATE OR REPLACE onto a taken
-- (reviewer, item, revision) deleted the row it collided with without firing the delete
-- trigger (recursive_triggers off), so plain SQL could drop a first judgment and
-- renumber another row into its place. The one change the app makes is
-- renumber_revisions (merge, import-reviews): every row not pinned is first moved above
-- the item's highest revision, then set to its place 1..n in commit-time order. So a
-- revision change is refused when
--   * it would land on a number another row of (reviewer, item) holds (REPLACE would
--     delete that row), or
--   * it is neither above every current revision (the temporary move) nor a place
--     1..n (n: the rows of the item), or
--   * it is a place 1..n and a row already placed below it (not the first judgment)
--     was committed later, or one placed above it (at most n) earlier (times SQLite
--     cannot read are not compared). The app moves every row it places above n first,
--     so its own places pass; a swap of two rows' numbers does not.
-- Gaps a move above the highest revision leaves are refused when the database is
-- opened (medrcube_desktop.store.guards: revisions of every item are 1..n).
-- A uid is never given to a second row (UPDATE OR REPLACE on uid would delete it).

CREATE TRIGGER reviews_revision_kept BEFORE UPDATE OF revision ON reviews
WHEN NEW.revision IS NOT OLD.revision
 AND (EXISTS (SELECT 1 FROM reviews
              WHERE reviewer = NEW.reviewer AND item_id = NEW.item_id
                AND revision = NEW.revision AND id <> OLD.id)
      OR (NEW.revision <= (SELECT MAX(revision) FROM reviews
                           WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id)
          AND NEW.revision > (SELECT COUNT(*) FROM reviews
                              WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id))
      OR (NEW.revision <= (SELECT COUNT(*) FROM reviews
                           WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id)
          AND EXISTS (SELECT 1 FROM reviews
                      WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id
                        AND id <> OLD.id AND revision < NEW.revision
                        AND NOT (revision = 1 AND repeat = 0)
                        AND julianday(committed_at) > julianday(OLD.committed_at))
          OR NEW.revision <= (SELECT COUNT(*) FROM reviews
                              WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id)
          AND EXISTS (SELECT 1 FROM reviews
                      WHERE reviewer = OLD.reviewer AND item_id = OLD.item_id
                        AND id <> OLD.id AND revision > NEW.revision
                        AND revision <= (SELECT COUNT(*) FROM reviews
                                         WHERE reviewer = OLD.reviewer
                                           AND item_id = OLD.item_id)
                        AND julianday(committed_at) < julianday(OLD.committed_at))))
BEGIN
    SELECT RAISE(ABORT, 'a review keeps its revision: only the app renumbers an item''s revisions, by commit time');
END;

CREATE TRIGGER reviews_uid_kept BEFORE UPDATE OF uid ON reviews
WHEN NEW.uid IS NOT OLD.uid
 AND EXISTS (SELECT 1 FROM reviews WHERE uid = NEW.uid AND id <> OLD.id)
BEGIN
    SELECT RAISE(ABORT, 'a committed review is never replaced: commit a new revision');
END;
