"""The self-test's screenshot shows the review it committed (the clinician trial: the
grab was taken before Enter and said "Draft saved, not committed", "0 of 2 reviewed")."""

from medrcube_desktop.ui import self_test


def test_the_screenshot_is_taken_after_the_commit_is_stored(
    qapp, ct_benchmark, tmp_path, monkeypatch
):
    real, seen = self_test.save_grab, {}

    def grab(window, path):
        seen["progress"] = window.progress_label.text()
        seen["stored"] = set(window.session.store.latest_reviews(self_test.REVIEWER))
        return real(window, path)

    monkeypatch.setattr(self_test, "save_grab", grab)
    done = self_test.commit_one_review(ct_benchmark, tmp_path / "r.db", tmp_path / "s.png")
    assert seen["progress"].startswith("1 of 2 reviewed")
    assert seen["stored"] == {done["committed"]}
    assert (tmp_path / "s.png").stat().st_size > 0
