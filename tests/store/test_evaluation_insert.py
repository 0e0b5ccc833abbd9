"""The responses' one INSERT statement (issue 25: ``executemany`` in place of
sqlite-utils' ``insert_all``) names ResponseRecord's fields in order, and binds each
field's ``response_row`` value."""

import re
from dataclasses import fields

from medrcube_desktop.store import evaluation
from medrcube_desktop.store.evaluation import ResponseRecord


def test_the_insert_names_every_field_in_order():
    columns = re.search(r"\((.*?)\) VALUES", evaluation._INSERT_RESPONSES).group(1)
    assert [c.strip() for c in columns.split(",")] == [f.name for f in fields(ResponseRecord)]
    assert evaluation._INSERT_RESPONSES.count("?") == len(fields(ResponseRecord))


def test_the_values_are_the_row_of_response_row():
    for image in ({}, {"sent": "original", "bytes": 12, "a": [1, 2]}):
        r = ResponseRecord("r", "i", "B.", "B", "letter", True, None, False, "t", 0.5, 3, 4, image)
        row = evaluation.response_row(r)
        assert evaluation._response_values(r) == tuple(row[f.name] for f in fields(ResponseRecord))
