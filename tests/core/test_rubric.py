from medrcube_desktop.core.rubric import load_rubric, score_column


def test_rubric_is_table_10_of_the_paper():
    rubric = load_rubric()
    assert rubric.principles == {"1": "Question Integrity", "2": "Option Set Effectiveness"}
    # names as Table 5/10 of the MedRCube paper give them
    assert [(r.id, r.name) for r in rubric.rules] == [
        ("1.1", "Clinical & Anatomical Accuracy"),
        ("1.2", "Logical Coherence"),
        ("1.3", "Unambiguous Phrasing"),
        ("1.4", "VQA Suitability (Image-Dependence & Objectivity)"),
        ("2.1", "Conceptual & Grammatical Homogeneity"),
        ("2.2", "Mutual Exclusivity"),
        ("2.3", "Plausibility of Distractors"),
    ]
    assert [r.principle for r in rubric.rules] == ["1"] * 4 + ["2"] * 3
    assert score_column("2.3") == "score_2_3"
