"""Text for the terminal: tables (plain aligned, or ``rich`` tables that never cut a number)
and counts with their nouns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: What one column adds to a ``rich`` table's width beyond its text: a border and a space
#: either side.
_COLUMN_EXTRA = 3


def format_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns padded to their widest cell, two spaces apart; numbers right-aligned."""
    cells = [[str(v) for v in header], *([str(v) for v in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    numeric = [all(_is_number(row[i]) for row in cells[1:]) for i in range(len(header))]
    lines = []
    for row in cells:
        padded = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def column_groups(
    header: Sequence[str], rows: Sequence[Sequence[object]], width: int
) -> list[list[int]]:
    """The columns of a table split into groups that each fit ``width`` characters, each
    group led by the first (key) column.

    A column needs its widest cell (the header may wrap at its spaces, so its longest word);
    where the whole table does not fit, the other columns are stacked into as many tables
    as needed rather than cut, so that no number is ever shortened.
    """
    cells = [[str(v) for v in row] for row in rows]

    def need(i: int) -> int:
        words = max((len(word) for word in str(header[i]).split()), default=0)
        return max([words, *(len(row[i]) for row in cells)]) + _COLUMN_EXTRA

    key = need(0) + 1  # (the table's outer border)
    groups: list[list[int]] = []
    current: list[int] = []
    used = key
    for i in range(1, len(header)):
        if current and used + need(i) > width:
            groups.append(current)
            current, used = [], key
        current.append(i)
        used += need(i)
    groups.append(current)
    return [[0, *group] for group in groups]


def rich_tables(
    title: str, header: Sequence[str], rows: Sequence[Sequence[object]], width: int
) -> list[Any]:
    """``rich`` tables of ``rows`` that fit ``width`` columns of terminal, numbers whole.

    The first column is left-aligned and repeated in each table; the others are
    right-aligned and never wrapped or cut (their cells are numbers and short words); the
    first table carries ``title``, the others say they continue it.
    """
    from rich.table import Table

    tables = []
    for n, group in enumerate(column_groups(header, rows, width)):
        table = Table(title=title if n == 0 else f"{title} (continued)", title_justify="left")
        for i in group:
            if i == 0:
                table.add_column(str(header[i]), justify="left", overflow="fold")
            else:
                table.add_column(str(header[i]), justify="right", no_wrap=True, overflow="fold")
        for row in rows:
            table.add_row(*(str(row[i]) for i in group))
        tables.append(table)
    return tables


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text == "-"
    return True


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` with its noun: ``1 shard``, ``2 shards`` (``many`` defaults to ``one + "s"``)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"
