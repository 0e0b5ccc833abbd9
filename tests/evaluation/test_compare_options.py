"""The options of a comparison are declared once (issue 21): the command's flags, the
pane's fields and the Reproduce line are made from :data:`SETTINGS`."""

import shlex
from dataclasses import fields

from medrcube_desktop.cli.app import build_parser
from medrcube_desktop.evaluation.compare_options import SETTINGS, CompareSettings, command_line


def test_every_setting_is_declared_once_and_is_the_commands_default():
    assert [f.name for f in fields(CompareSettings)] == list(SETTINGS)
    args = build_parser().parse_args(["compare", "--db", "s.db", "--dataset", "b"])
    assert CompareSettings.from_args(args) == CompareSettings()
    assert (args.min_items, args.bootstrap, args.stability, args.sort) == (5, 1000, 100, "family")


def test_the_command_line_parses_back_to_the_same_runs_and_settings(tmp_path):
    settings = CompareSettings(sort="accuracy", min_items=2, clusters=4, preset="both",
                               n_boot=0, seed=9, n_stability=0, leakage=True)  # fmt: skip
    runs = ["iv8", "-odd name", "a b"]
    line = command_line(tmp_path / "s.db", tmp_path / "b", runs, settings, tmp_path / "out")
    argv = shlex.split(line)
    assert argv[:2] == ["medrcube-desktop", "compare"]
    args = build_parser().parse_args(argv[1:])
    assert args.run == runs and CompareSettings.from_args(args) == settings
    assert (args.db, args.dataset, args.out) == (tmp_path / "s.db", tmp_path / "b",
                                                 tmp_path / "out")  # fmt: skip
