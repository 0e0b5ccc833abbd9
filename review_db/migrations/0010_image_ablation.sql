-- 0010: image-ablation runs (issue 24). An evaluation run sends the item's own picture
-- ('image', as before), none ('text-only', the paper's Table 4 baseline), a uniform
-- mid-grey one ('blank'), another item's of the same modality and region ('swapped') or
-- seeded noise ('noise'); the seed is in params.image.seed. image_run names the image
-- run an ablation run is linked to (NULL for image runs, and for an ablation run whose
-- image run is not known). Runs stored before have image_mode 'image', and 'text-only'
-- when their text_only flag is set; text_only stays and is kept equal to
-- (image_mode = 'text-only') by the store. No other table is touched.
ALTER TABLE eval_runs ADD COLUMN image_mode TEXT NOT NULL DEFAULT 'image'
    CHECK (image_mode IN ('image', 'text-only', 'blank', 'swapped', 'noise'));
ALTER TABLE eval_runs ADD COLUMN image_run TEXT;
UPDATE eval_runs SET image_mode = 'text-only' WHERE text_only = 1;
