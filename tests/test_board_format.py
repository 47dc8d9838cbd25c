"""The board text format: parsing, formatting, and every kind of malformed input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mscsp
from mscsp.board import COVERED, FLAG, MAX_CELLS, neighbour_counts


def test_parses_every_cell_symbol_and_spaces():
    board = mscsp.parse_board("# a comment\n4x2x3\n? H . 0\n1 F * !\n")
    assert board.shape == (2, 4)
    assert board.mines == 3
    assert board.cells.tolist() == [[COVERED, COVERED, 0, 0], [1, FLAG, FLAG, FLAG]]


def test_mines_from_header_or_argument():
    assert mscsp.parse_board("mines=2\n??\n??").mines == 2
    assert mscsp.parse_board("??\n??", mines=1).mines == 1
    assert mscsp.parse_board("2x2x1\n??\n??", mines=1).mines == 1


@st.composite
def boards(draw):
    rows = draw(st.integers(1, 8))
    cols = draw(st.integers(1, 8))
    cells = np.array(
        draw(
            st.lists(
                st.sampled_from([COVERED, FLAG, 0, 1, 2, 3]),
                min_size=rows * cols,
                max_size=rows * cols,
            )
        ),
        dtype=np.int8,
    ).reshape(rows, cols)
    cells = np.minimum(cells, neighbour_counts(rows, cols))
    flags = int((cells == FLAG).sum())
    covered = int((cells == COVERED).sum())
    return mscsp.Board(cells, flags + draw(st.integers(0, covered)))


@given(boards())
def test_format_parse_round_trip(board):
    assert mscsp.parse_board(board.to_text()) == board
    assert mscsp.parse_board(board.to_text(header=False), mines=board.mines) == board


@pytest.mark.parametrize(
    ("text", "mines", "fragment"),
    [
        ("3x2x1\n???\n??\n", None, "ragged rows"),
        ("3x1x1\n?x?\n", None, "unknown cell 'x'"),
        ("3x3x1\n???\n?9?\n???\n", None, "'9' is not a valid cell"),
        ("3x3x1\n??\n??\n", None, "header says 3x3"),
        ("??\n??\n", None, "missing mine count"),
        ("", None, "empty input"),
        ("# only a comment\n\n", None, "empty input"),
        ("2x1x1\n??\n", 2, "conflicts with the header"),
        ("\x00\x01\x02garbage", None, "binary data"),
        (b"\xff\xfe\x00??", None, "not UTF-8"),
        ("3x1x1\n?m?\n", None, "line 2, column 2: unknown cell 'm'"),
        ("3x1x1\n?\uff1f?\n", None, "line 2, column 2: unknown cell"),  # fullwidth '?'
        ("3x1x1\n? x\n", None, "line 2, column 3: unknown cell 'x'"),
        ("1" * 5000 + "x1x1\n.\n", None, "line 1: header number of 5000 digits"),
        ("mines=" + "9" * 4400 + "\n.\n", None, "header number of 4400 digits"),
    ],
)
def test_malformed_input_is_rejected_with_a_located_message(text, mines, fragment):
    with pytest.raises(mscsp.BoardParseError) as info:
        mscsp.parse_board(text, mines=mines)
    assert fragment in str(info.value)


def test_errors_name_line_and_column():
    with pytest.raises(mscsp.BoardParseError) as info:
        mscsp.parse_board("# c\n3x2x1\n???\n?#?\n")
    assert info.value.line == 4
    assert info.value.column == 2
    assert str(info.value).startswith("line 4, column 2:")


def test_absurd_sizes_are_rejected_without_building_the_board():
    side = int(MAX_CELLS**0.5) + 1
    text = "mines=1\n" + ("?" * side + "\n") * side
    with pytest.raises(mscsp.BoardParseError, match="too large"):
        mscsp.parse_board(text)
    with pytest.raises(mscsp.BoardParseError, match="too long"):
        mscsp.parse_board("mines=1\n" + "?" * 20_000)


def test_pasted_text_that_is_unambiguous_is_accepted():
    plain = mscsp.parse_board("3x2x2\n?F1\n??.\n")
    pasted = "\ufeff3x2x2\r\n h\u00a0f 1\u202f\r\n?\u200b?\u00a0.\u00a0\r\n"
    assert mscsp.parse_board(pasted) == plain
    assert mscsp.parse_board(pasted.encode("utf-8")) == plain


@pytest.mark.parametrize(
    ("text", "cell", "fragment"),
    [
        ("2x2x0\n4.\n..\n", (0, 0), "the 4 at (0, 0) exceeds its 3 neighbours"),
        ("3x2x1\n?FF\n???\n", (0, 1), "2 flags but only 1 mine"),
        ("2x2x4\n1?\n??\n", (0, 1), "only 3 covered cells"),
        ("2x2x2\n1.\n..\n", (0, 0), "the 1 at (0, 0) needs 1 mine"),  # no covered cell
    ],
)
def test_impossible_boards_are_inconsistent_and_name_a_cell(text, cell, fragment):
    with pytest.raises(mscsp.InconsistentBoardError) as info:
        mscsp.parse_board(text)
    assert fragment in str(info.value) and info.value.cell == cell
    assert f"({cell[0]}, {cell[1]})" in str(info.value)
