-- 0006: whether the reviewer saw the item's image when committing a review. A restricted
-- item is reviewed on its text only (the release does not ship its image), and an image
-- may fail to load; rule 1.4 (image dependence) cannot really be judged without it, so an
-- agreement study has to be able to tell these reviews apart. 1 = the image was shown,
-- 0 = it was not (text only, or it failed to load); NULL for rows before v6 and rows
-- from a CSV without the column: unknown.
ALTER TABLE reviews ADD COLUMN image_shown INTEGER CHECK (image_shown IN (0, 1));
