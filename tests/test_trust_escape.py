"""Escaping free text per format: comments stay one line, CSV cells are never formulas,
HTML text holds no markup, matplotlib labels are never mathtext."""

from __future__ import annotations

import csv
import html
import io
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mscsp.trust.escape import (
    MAX_LINE_CHARS,
    comment_line,
    csv_cell,
    html_text,
    plain_label,
    plain_text,
    terminal_text,
)

#: Any text at all: every control character, surrogates excepted (they cannot be written).
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=300)
FUZZ = settings(derandomize=True, max_examples=50, deadline=None)


@FUZZ
@given(ANY_TEXT)
def test_comment_line_is_one_printable_ascii_line(text):
    line = comment_line(text)
    assert all(" " <= char <= "~" for char in line) and len(line) <= MAX_LINE_CHARS
    assert line.splitlines() in ([line], [])  # no reader, bytes or Unicode, sees two lines
    if len(line) < MAX_LINE_CHARS - 3 and all(" " <= c <= "~" for c in text):
        assert line == text  # plain text is kept as written


def test_comment_line_escapes_each_line_break_visibly():
    assert comment_line("x\n-1 0\nc ") == "x\\x0a-1 0\\x0ac "
    assert comment_line("a\rb\x0bc\x0cd\x85e\u2028f\U0001f4a3") == (
        "a\\x0db\\x0bc\\x0cd\\x85e\\u2028f\\U0001f4a3"
    )
    assert comment_line("n" * 1000).endswith("...") and len(comment_line("n" * 1000)) == 240


@FUZZ
@given(st.one_of(ANY_TEXT, st.integers(), st.floats(allow_nan=False), st.none(), st.booleans()))
def test_csv_cells_never_start_a_formula(value):
    cell = csv_cell(value)
    if isinstance(value, str):
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
        assert cell in (value, "'" + value)
        # Written and read back by the csv module, the cell is still what was escaped.
        out = io.StringIO()
        csv.writer(out).writerow([cell])
        assert next(csv.reader(io.StringIO(out.getvalue()))) == [cell]
    else:
        assert cell is value  # numbers stay numbers (a negative one too)


def test_csv_cell_neutralises_owasps_list():
    for text in ("=1+1", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"):
        assert csv_cell(text) == "'" + text
    assert csv_cell("1+1") == "1+1" and csv_cell(-3) == -3 and csv_cell(-0.5) == -0.5


@FUZZ
@given(st.one_of(ANY_TEXT, st.integers()))
def test_html_text_holds_no_markup_and_reads_back(value):
    escaped = html_text(value)
    assert not any(char in escaped for char in "<>\"'")
    assert "&" not in escaped.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "").replace(
        "&quot;", ""
    ).replace("&#x27;", "")
    assert html.unescape(escaped) == str(value)


@FUZZ
@given(ANY_TEXT)
def test_plain_label_is_one_printable_line(text):
    label = plain_label(text)
    assert label.isprintable() and len(label) <= MAX_LINE_CHARS
    assert not any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in label)


def test_labels_with_dollars_draw_as_text():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label = plain_label("$\\bad{$ and $x^{$")

    def draw() -> None:
        fig, ax = plt.subplots()
        try:
            ax.set_title(label)
            ax.plot([0, 1], [0, 1], label=label)
            ax.set_xticks([0, 1], [label, "$\\x{$"])
            ax.legend()
            fig.savefig(io.BytesIO(), format="png")
        finally:
            plt.close(fig)

    with plain_text():
        draw()
    assert matplotlib.rcParams["text.parse_math"]  # restored after the block
    with pytest.raises(ValueError):
        draw()  # (outside it, mathtext reads the label as a formula and fails)


def test_bench_csvs_and_plots_carry_hostile_names_inert(tmp_path):
    pytest.importorskip("matplotlib")
    from mscsp.board import parse_board
    from mscsp.evaluation.benchmark import CorpusEntry, run_benchmark, write_outputs

    board = parse_board("5x5x6\n12???\n?????\n???21\n?????\n1????\n")
    entries = [CorpusEntry(board, 1, "=HYPERLINK(1)", "$\\bad{$ @cmd")]
    result = run_benchmark(entries, ["dss", "brute"], time_limit=10, isolate=False)
    write_outputs(result, tmp_path)  # the plots draw: mathtext off for the labels
    rows = {}
    for name in ("runs.csv", "positions.csv"):
        with (tmp_path / name).open(newline="") as handle:
            rows[name] = list(csv.DictReader(handle))
    assert {row["family"] for table in rows.values() for row in table} == {"'=HYPERLINK(1)"}
    assert {row["name"] for row in rows["runs.csv"]} == {"$\\bad{$ @cmd"}
    assert (tmp_path / "cactus.png").stat().st_size > 0


@FUZZ
@given(ANY_TEXT)
def test_terminal_text_keeps_the_lines_and_escapes_every_other_control(text):
    shown = terminal_text(text)
    assert shown.count("\n") == text.count("\n")
    assert all(char in "\n\t" or char.isprintable() for char in shown)


def test_a_hostile_file_name_reaches_the_terminal_escaped(tmp_path):
    import os

    from click.testing import CliRunner

    from mscsp.cli import main

    os.mkfifo(tmp_path / "p\x1b[2J\r.evf")  # an escape that would clear the screen
    result = CliRunner().invoke(main, ["replay", str(tmp_path)])
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "\\x1b[2J\\x0d" in result.output  # named, escaped, in its error line
