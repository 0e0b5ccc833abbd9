"""What pydicom says while a DICOM is decoded (issue 26, mutants that survived): its
warnings become at most three notes on the image, each once, cut before pydicom's ". Please
see <link>" tail; its logger is held at ERROR for the decode (its warnings are notes, not
log lines) and given back its own level after, and a logger set quieter than ERROR is left
as it is. The decode is wrapped to say known words."""

import logging
import warnings

import pytest
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging import dicom

PYDICOM = logging.getLogger("pydicom")


@pytest.fixture
def said(monkeypatch):
    """load_dicom_slice with a decode that first warns and logs what a test asks, and
    the pydicom logger's effective level it saw."""
    seen = []

    def run(warned=(), logged=()):
        real = dicom._decode_dicom

        def decode(*args, **kwargs):
            seen.append(PYDICOM.getEffectiveLevel())
            for text in warned:
                warnings.warn(text, UserWarning, stacklevel=1)
            for level, text in logged:
                PYDICOM.log(level, text)
            return real(*args, **kwargs)

        monkeypatch.setattr(dicom, "_decode_dicom", decode)
        return dicom.load_dicom_slice(get_testdata_file("CT_small.dcm"), None)

    run.seen = seen
    return run


def test_warnings_become_three_notes_each_once_without_the_link(said):
    data = said(
        warned=[
            "Invalid value for VR DS: 'nan'. Please see <https://dicom.nema.org/x> for more",
            "Invalid value for VR DS: 'nan'. Please see <https://dicom.nema.org/y>",
            "Second warning",
            "Third warning. Please see the standard",
            "Fourth warning",
        ]
    )
    assert [n for n in data.notes if n.startswith("pydicom:")] == [
        "pydicom: Invalid value for VR DS: 'nan'",
        "pydicom: Second warning",
        "pydicom: Third warning",
    ]


def test_the_pydicom_logger_is_at_error_during_the_decode_and_restored_after(said, caplog):
    caplog.set_level(logging.DEBUG)  # the root's handler would show any record let through
    before = PYDICOM.level
    assert before == logging.WARNING  # pydicom's own (config.debug(False))
    said(logged=[(logging.WARNING, "a pydicom warning"), (logging.ERROR, "a pydicom error")])
    assert said.seen == [logging.ERROR]
    assert [r.getMessage() for r in caplog.records if r.name == "pydicom"] == ["a pydicom error"]
    assert PYDICOM.level == before


def test_a_pydicom_logger_quieter_than_error_is_left_quieter(said, caplog):
    caplog.set_level(logging.DEBUG)
    PYDICOM.setLevel(logging.CRITICAL)
    try:
        said(logged=[(logging.ERROR, "a pydicom error")])
        assert said.seen == [logging.CRITICAL]
        assert [r for r in caplog.records if r.name == "pydicom"] == []
        assert PYDICOM.level == logging.CRITICAL
    finally:
        PYDICOM.setLevel(logging.WARNING)
