"""The terminal tables: numbers are never cut, whatever the terminal's width."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from mscsp.display.table import column_groups, format_table, plural, rich_tables

HEADER = (
    "backend",
    "exact",
    "solved",
    "limits",
    "timeouts",
    "memouts",
    "wrong",
    "PAR-2",
    "median/p95/max",
    "x ref",
    "max |dp|",
)
ROWS = [
    ("dss", "yes", 254, 0, 0, 0, 0, "14.123456", "1.25/30.5/1234.75", "1.00", "0"),
    ("cpmpy:exact", "yes", 201, 12, 41, 0, 0, "9876.543210", "123.4/5678.9/9999.99", "17.3", "0"),
    ("learner:default", "no", 254, 0, 0, 0, 0, "0.512345", "6.1/20.2/38.4", "0.05", "0.403125"),
]


def _render(width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, color_system=None)
    for table in rich_tables("bench", HEADER, ROWS, width):
        console.print(table)
    return out.getvalue()


@pytest.mark.parametrize("width", [60, 80, 100, 120, 200])
def test_every_cell_is_printed_whole_and_no_line_is_wider_than_the_terminal(width):
    text = _render(width)
    assert all(len(line) <= width for line in text.splitlines())
    for row in ROWS:
        for cell in row[1:]:
            assert str(cell) in text, (width, cell)
    assert "…" not in text


def test_a_narrow_terminal_stacks_the_columns_each_table_led_by_the_key():
    groups = column_groups(HEADER, ROWS, 80)
    assert len(groups) > 1
    assert all(group[0] == 0 for group in groups)
    # every column appears once, in order
    assert [i for group in groups for i in group[1:]] == list(range(1, len(HEADER)))
    assert column_groups(HEADER, ROWS, 1000) == [list(range(len(HEADER)))]


def test_plain_text_keeps_every_cell():
    text = format_table(HEADER, ROWS)
    for row in ROWS:
        for cell in row:
            assert str(cell) in text


def test_a_count_takes_its_noun_in_the_right_number():
    assert plural(1, "shard") == "1 shard"
    assert plural(0, "shard") == "0 shards"
    assert plural(2, "guess", "guesses") == "2 guesses"
