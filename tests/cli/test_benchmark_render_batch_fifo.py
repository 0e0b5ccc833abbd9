"""render-batch names a test.json that cannot be read (a named pipe) as validate does:
``ds2/test.json: is a named pipe, not a file``, not ``: None: …``."""

from __future__ import annotations

import os

from medrcube_desktop.cli.app import main
from tests.conftest import dicom_file, item, write_benchmark


def test_a_named_pipe_test_json_is_named_by_render_batch_as_by_validate(tmp_path, capsys):
    bench = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    (bench / "ds2").mkdir()
    os.mkfifo(bench / "ds2" / "test.json")
    expected = "ds2/test.json: is a named pipe, not a file"

    assert main(["validate", str(bench)]) == 1
    assert expected in capsys.readouterr().out.splitlines()

    assert main(["render-batch", str(bench), "--out", str(tmp_path / "out")]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert expected in lines
    assert not any("None" in line for line in lines)
