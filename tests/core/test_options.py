"""The declaration of an option (:mod:`medrcube_desktop.core.options`): a table refuses
what would make two declarations of one setting, and the docs' table and markers."""

from types import SimpleNamespace

import pytest

from medrcube_desktop.core.options import (
    Option,
    defaults,
    markdown_table,
    markers,
    options,
    replace_between_markers,
    values_of,
)

N = Option("n", "--n", "N", 5, "items (%(default)s)", int, 1, 10, kind="positive")
MODE = Option("mode", "--mode", "", "a", "a|b mode", str, choices=("a", "b"))


def test_a_table_refuses_a_setting_declared_twice_or_a_default_out_of_its_range():
    assert list(options(N, MODE)) == ["n", "mode"] and defaults(options(N, MODE)) == {
        "n": 5, "mode": "a"}  # fmt: skip
    with pytest.raises(ValueError, match="'n' .* declared twice"):
        options(N, Option("n", "--other", "", 1, "", int))
    with pytest.raises(ValueError, match="declared twice"):
        options(N, Option("m", "--n", "", 1, "", int))
    with pytest.raises(ValueError, match="default 11 is above 10"):
        options(Option("n", "--n", "", 11, "", int, 1, 10))
    with pytest.raises(ValueError, match="default 0 is below 1"):
        options(Option("n", "--n", "", 0, "", int, 1))
    with pytest.raises(ValueError, match="default 'c' is not one of"):
        options(Option("mode", "--mode", "", "c", "", str, choices=("a", "b")))


def test_the_markdown_table_writes_each_row_with_its_default_filled_in():
    assert N.dest == "n" and Option("x", "--min-items", "", 1, "", int).dest == "min_items"
    assert markdown_table([N, MODE]).splitlines() == [
        "| CLI flag | Field | Default | Type | Range | Help |",
        "|---|---|---|---|---|---|",
        "| `--n` | N | `5` | int | 1 to 10 | items (5) |",
        "| `--mode` | — | `a` | str | a, b | a\\|b mode |",  # the | of the help escaped
    ]
    flag = Option("on", "--on", "", False, "switch", bool)
    words = Option("t", "--t", "", 1.5, "s", float, range_words="more than 0")
    assert "| `--on` | — | off | flag | — | switch |" in markdown_table([flag])
    assert "| `--t` | — | `1.5` | float | more than 0 | s |" in markdown_table([words])


def test_the_part_between_the_markers_is_replaced_and_a_page_without_them_refused():
    begin, end = markers("x")
    assert (begin, end) == ("<!-- x-options:begin -->", "<!-- x-options:end -->")
    page = f"# T\n\nkept\n{begin}\nold\n{end}\nkept too\n"
    assert replace_between_markers(page, "x", "new\n") == (
        f"# T\n\nkept\n{begin}\nnew\n{end}\nkept too\n"
    )
    for bad in ("# T\n", f"{begin}\n{end}\n{begin}\n{end}\n", f"{end}\n{begin}\n"):
        with pytest.raises(ValueError, match="expected one"):
            replace_between_markers(bad, "x", "new\n")


def test_values_of_reads_each_row_from_its_flags_destination():
    # the destination is the flag's, not the row's name: "--price" for price_per_mtok
    price = Option("price_per_mtok", "--price", "", None, "USD", float)
    args = SimpleNamespace(n=7, mode="b", price=2.5, price_per_mtok="the row's name, unread")
    assert values_of(args, options(N, MODE, price)) == {
        "n": 7, "mode": "b", "price_per_mtok": 2.5,
    }  # fmt: skip
    with pytest.raises(AttributeError):
        values_of(SimpleNamespace(n=7), options(N, MODE))
