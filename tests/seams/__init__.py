"""Tests of a seam between modules: one figure or rule checked across the surfaces that
show it (a pane and its command, names in every written file, the README and .ci/run),
so no one module is theirs. Every other test file mirrors the module it tests
(tests/test_layout.py)."""
