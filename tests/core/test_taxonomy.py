import pytest

from medrcube_desktop.core.taxonomy import TASKS, Level, canonical_task


@pytest.mark.parametrize(
    ("spelling", "abbreviation", "level"),
    [
        # paper spellings (Appendix C, Table 6)
        ("Modality Recognition", "MR", Level.LOW),
        ("View Recognition", "VR", Level.LOW),
        ("Imaging Protocols Recognition", "IPR", Level.LOW),
        ("Organ Recognition", "OR", Level.MID),
        ("Region of Interest Grounding", "RG", Level.MID),
        ("Disease Diagnosis", "DD", Level.HIGH),
        ("Abnormality Diagnosis", "AD", Level.HIGH),
        ("Severity Grading", "SG", Level.HIGH),
        # public-release spellings (DESIGN.md) and variants
        ("Abnormity Diagnosis", "AD", Level.HIGH),
        ("View Identification", "VR", Level.LOW),
        ("  abnormity_diagnosis ", "AD", Level.HIGH),
        ("ROI Grounding", "RG", Level.MID),
        ("ipr", "IPR", Level.LOW),
    ],
)
def test_spellings_map_to_one_canonical_task(spelling, abbreviation, level):
    task = canonical_task(spelling)
    assert task is not None
    assert (task.abbreviation, task.level) == (abbreviation, level)


def test_unknown_spelling_is_none():
    assert canonical_task("Image Captioning") is None


def test_eight_tasks_three_levels_as_in_the_paper():
    assert [t.abbreviation for t in TASKS] == ["MR", "VR", "IPR", "OR", "RG", "DD", "AD", "SG"]
    assert {lvl: [t.abbreviation for t in TASKS if t.level == lvl] for lvl in Level} == {
        Level.LOW: ["MR", "VR", "IPR"],
        Level.MID: ["OR", "RG"],
        Level.HIGH: ["DD", "AD", "SG"],
    }
