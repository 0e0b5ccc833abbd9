-- 0011: "cannot judge" per rule (issue 24). An expert may abstain on a rule: the rule is
-- neither passed nor failed. The score columns stay as 0001 wrote them (INTEGER NOT NULL,
-- 0 or 1) so that every existing row, CHECK and guard is untouched; the abstained rules
-- of a row are listed in `abstained`, a JSON array of rule ids ('[]': none, every
-- existing row). The score column of an abstained rule holds 0 and that 0 is IGNORED:
-- the app reads such a rule as "cannot judge" (medrcube_desktop.store.review_queries),
-- never as pass or fail. 0 rather than 1 so that a reader that ignores this column
-- never sees an all-pass verdict on an item with an abstention.
--
-- `abstained` is content like any score: reviews_abstained_never_changed refuses an
-- UPDATE of it (the store checks on open that the triggers are as written here,
-- store.guards), and reviews_abstained_checked refuses a row listing an unknown rule, a rule twice, or an
-- abstained rule whose score column is not 0.

ALTER TABLE reviews ADD COLUMN abstained TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(abstained) AND json_type(abstained) = 'array');

CREATE TRIGGER reviews_abstained_checked BEFORE INSERT ON reviews
WHEN NEW.abstained IS NOT '[]'
 AND (EXISTS (SELECT 1 FROM json_each(NEW.abstained)
              WHERE value NOT IN ('1.1', '1.2', '1.3', '1.4', '2.1', '2.2', '2.3')
                 OR type <> 'text'
                 OR (value = '1.1' AND NEW.score_1_1 <> 0)
                 OR (value = '1.2' AND NEW.score_1_2 <> 0)
                 OR (value = '1.3' AND NEW.score_1_3 <> 0)
                 OR (value = '1.4' AND NEW.score_1_4 <> 0)
                 OR (value = '2.1' AND NEW.score_2_1 <> 0)
                 OR (value = '2.2' AND NEW.score_2_2 <> 0)
                 OR (value = '2.3' AND NEW.score_2_3 <> 0))
      OR (SELECT COUNT(*) FROM json_each(NEW.abstained))
         <> (SELECT COUNT(DISTINCT value) FROM json_each(NEW.abstained)))
BEGIN
    SELECT RAISE(ABORT, 'an abstained rule is a known rule id, listed once, with its score column 0');
END;

-- reviews_never_changed (0007) does not name `abstained`; it is left as written (so the
-- guards of 0007/0008 and the order SQLite fires them in are unchanged) and this one
-- refuses a change of the new column.
CREATE TRIGGER reviews_abstained_never_changed BEFORE UPDATE OF abstained ON reviews
WHEN NEW.abstained IS NOT OLD.abstained
BEGIN
    SELECT RAISE(ABORT, 'a committed review is never changed: commit a new revision');
END;
