"""Seeded, stratified study samples that can be reproduced and extended."""

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.studies import allocate, create_or_extend_study, draw_sample
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark


@pytest.fixture
def items(tmp_path):
    records = (
        [item(f"ct{n:02d}", modality="CT") for n in range(12)]
        + [item(f"mr{n:02d}", modality="MR") for n in range(6)]
        + [item(f"us{n:02d}", modality="US") for n in range(2)]
    )
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root).items


def test_largest_remainder_allocation_by_hand():
    # 10 of (12, 6, 2): quotas 6.0, 3.0, 1.0 exactly
    assert allocate({"CT": 12, "MR": 6, "US": 2}, 10) == {"CT": 6, "MR": 3, "US": 1}
    # 5 of (12, 6, 2): quotas 3.0, 1.5, 0.5; one seat left: tie on .5, larger stratum wins
    assert allocate({"CT": 12, "MR": 6, "US": 2}, 5) == {"CT": 3, "MR": 2, "US": 0}
    with pytest.raises(ValueError):
        allocate({"CT": 2}, 3)


def test_the_same_seed_draws_the_same_sample_and_more_items_extend_it(items):
    ten = draw_sample(items, 10, seed=42)
    assert ten == draw_sample(items, 10, seed=42) and len(set(ten)) == 10
    assert draw_sample(items, 15, seed=42)[:10] == ten
    assert draw_sample(items, 10, seed=43) != ten
    by_modality = draw_sample(items, 10, seed=42, stratify="modality")
    assert sorted(i[:2] for i in by_modality) == ["ct"] * 6 + ["mr"] * 3 + ["us"]
    with pytest.raises(MedRCubeError):
        draw_sample(items, 21, seed=1)
    with pytest.raises(MedRCubeError):
        draw_sample(items, 5, seed=1, stratify="colour")


def test_a_stored_study_keeps_its_items_and_grows(items, tmp_path):
    store = StudyStore(tmp_path / "s.db")
    study = create_or_extend_study(store, "pilot", items, 8, seed=5, stratify="modality")
    assert len(study.item_ids) == 8 and study.seed == 5
    bigger = create_or_extend_study(store, "pilot", items, 12, seed=5, stratify="modality")
    assert bigger.item_ids[:8] == study.item_ids and len(set(bigger.item_ids)) == 12
    with pytest.raises(MedRCubeError, match="only grows"):
        create_or_extend_study(store, "pilot", items, 4, seed=5, stratify="modality")
    with pytest.raises(Exception, match="seed 5"):
        create_or_extend_study(store, "pilot", items, 14, seed=6, stratify="modality")
    assert store.study_names() == ["pilot"]
