"""core/utf8.storable: lone surrogates replaced, everything else as it was."""

import json

from medrcube_desktop.core.utf8 import storable


def test_lone_surrogates_are_replaced_and_counted_whole_pairs_kept():
    assert storable("B") == ("B", 0)
    assert storable("B ✓ 😀") == ("B ✓ 😀", 0)
    assert storable(json.loads('"B \\ud83d\\ude00"')) == ("B 😀", 0)  # a whole pair
    half, count = storable(json.loads('"B \\ud83d and \\ude00 x"'))
    assert (half, count) == ("B \ufffd and \ufffd x", 2)
    half.encode("utf-8")  # what the database's text needs
