"""The messages of impossible boards (issue 32): each names the number that fails, by its cell,
never shows a negative count, and calls covered cells "covered" (not "open"), in the CLI and
in the web API alike."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import mscsp
from mscsp.cli import main
from mscsp.contradiction import board_consistent, explain_contradiction, numbers_consistent
from mscsp.errors import MscspError

#: (board text, the cell the message must name, what that cell is, words the message must
#: hold). Each cell is worked out by hand in the comment: the number that fails, read
#: row by row; a flag or a covered cell only where no number is at fault.
CASES = [
    # The 1 at (0, 0) touches the flags (0, 1) and (1, 1): one more than it shows.
    ("3x3x3\n1F?\n?F?\n???\n", (0, 0), "number", ["2 flags", "one too many"]),
    # A 0 next to a flag.
    ("3x2x2\n0F?\n???\n", (0, 0), "number", ["1 flag", "one too many"]),
    # The 2 at (0, 0) has one covered neighbour, (0, 1); the rest are revealed 0s.
    ("4x4x3\n2?..\n....\n....\n..??\n", (0, 0), "number", ["2 mines", "1 covered cell"]),
    # The 3 at (0, 0): the flag (0, 1), the 1 at (1, 0), one covered cell (1, 1).
    ("3x2x2\n3F?\n1??\n", (0, 0), "number", ["2 more mines", "1 flag", "1 covered cell"]),
    # The 1 at (0, 0) touches only the 0 at (0, 1): no covered cell at all.
    ("3x1x1\n1.?\n", (0, 0), "number", ["1 mine", "no covered cell"]),
    # The end 1s make (0, 1) and (0, 3) mines, both next to the middle 1.
    ("5x1x1\n1?1?1\n", (0, 2), "number", ["2 covered cells", "mines", "one too many"]),
    # The 0s make both covered cells of the 1 at (0, 0) safe.
    ("3x2x2\n1?.\n.?1\n", (0, 0), "number", ["2 covered cells", "safe"]),
    # The 1 at (0, 0) needs (0, 1); the 1 at (0, 2) already has its flag (0, 3).
    ("4x1x2\n1?1F\n", (0, 0), "number", ["covered cell (0, 1)", "mine", "1 flag"]),
    # A 4 in a corner, which has 3 neighbours.
    ("2x2x0\n4.\n..\n", (0, 0), "number", ["3 neighbours"]),
    # The total: the 2 at (0, 0) needs 2 of its 3 covered neighbours, the board has 1 mine.
    ("3x3x1\n2??\n???\n???\n", (0, 0), "number", ["at least 2 mines", "only 1"]),
    # The same with a flag elsewhere: 2 mines, 1 flag, 1 left.
    ("3x2x2\n2?F\n???\n", (0, 0), "number", ["at least 2 mines", "flag", "1 is left"]),
    # The 0 at (0, 0) makes 3 cells safe: 5 covered cells left for 8 mines.
    ("3x3x8\n0??\n???\n???\n", (0, 0), "number", ["at most 5 mines", "8"]),
    # The 1 at (0, 1) alone leaves room; with the 1 at (1, 1) one of (0, 0), (0, 2), (1, 0),
    # (1, 2) holds a mine, row 2 but (2, 3) none: room for 4 mines, and the board has 5.
    ("4x3x5\n?1??\n?1??\n????\n", (1, 1), "number", ["at most 4 mines", "5"]),
    # Numbers that contradict each other: the 0s make (0, 1) and (1, 1) safe, so the 2 at
    # (0, 2) needs both (1, 2) and (1, 3), and the 1 at (0, 3), the next number, only one.
    ("4x2x1\n.?21\n.1??\n", (0, 3), "number", ["cannot all be met"]),
    # More flags than mines: the first flag is named.
    ("3x2x1\n?FF\n???\n", (0, 1), "flag", ["2 flags", "1 mine", "one too many"]),
    # More mines than cells to hold them: the first covered cell is named.
    ("2x2x4\n1?\n??\n", (0, 1), "covered", ["4 mines", "3 covered cells"]),
]

#: "open" is what the old messages called a covered cell.
COVERED_WORDS = re.compile(r"\bopen\b")


def check_wording(message: str, cells: np.ndarray, cell: tuple[int, int], kind: str) -> None:
    """What every message of an impossible board must do (see the module)."""
    assert not re.search(r"-\d", message), message  # never a negative count
    assert not COVERED_WORDS.search(message), message
    r, c = cell
    assert f"({r}, {c})" in message, message
    value = int(cells[r, c])
    if kind == "number":
        assert value >= 0 and f"the {value} at ({r}, {c})" in message, message
    elif kind == "flag":
        assert value == mscsp.FLAG
    else:
        assert value == mscsp.COVERED and "covered" in message


def _cells(text: str) -> np.ndarray:
    """The cell codes of a board text, whether or not its numbers are possible."""
    rows = text.strip().splitlines()[1:]
    codes = {"?": mscsp.COVERED, "F": mscsp.FLAG, ".": 0}
    return np.array([[codes.get(ch, ord(ch) - 48) for ch in row] for row in rows])


@pytest.mark.parametrize("command", ["probs", "sample"])
@pytest.mark.parametrize(("text", "cell", "kind", "words"), CASES)
def test_the_cli_names_the_failing_number(command, text, cell, kind, words):
    result = CliRunner().invoke(main, [command, "-"], input=text)
    assert result.exit_code == 3, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mscsp: error: ")
    check_wording(lines[0], _cells(text), cell, kind)
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(("text", "cell", "kind", "words"), CASES)
def test_the_web_api_says_the_same_and_gives_the_cell(web_client, text, cell, kind, words):
    cli = CliRunner().invoke(main, ["probs", "-"], input=text).output.strip()
    response = web_client.post("/api/solve", json={"board": text})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["kind"] == "inconsistent"
    assert cli == f"mscsp: error: {error['message']}"
    assert error["cell"] == list(cell)


@pytest.fixture(scope="module")
def web_client():
    pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
    pytest.importorskip("httpx", reason="Starlette's test client needs httpx")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from mscsp.web.app import create_app

    with TestClient(create_app()) as client:
        yield client


def test_the_old_message_of_the_issue_is_gone():
    """The report of issue 32, word for word: "still needs -1 mines among 1 open"."""
    result = CliRunner().invoke(main, ["probs", "-"], input="3x3x3\n1F?\n?F?\n???\n")
    assert "-1" not in result.output and "open" not in result.output
    assert "the 1 at (0, 0) touches 2 flags" in result.output


def random_boards(count: int, seed: int):
    """Small random boards of numbers, flags and covered cells, most of them impossible."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        rows, cols = int(rng.integers(1, 5)), int(rng.integers(2, 6))
        cells = rng.choice([-2, -1, -1, -1, 0, 1, 1, 2, 3], size=(rows, cols)).astype(np.int8)
        yield cells, int(rng.integers(0, rows * cols + 1))


def message_of(cells: np.ndarray, mines: int) -> MscspError | None:
    """The error ``mscsp probs`` reports for a board, or None if it is consistent."""
    try:
        board = mscsp.Board(cells, mines)
    except mscsp.InconsistentBoardError as error:
        return error
    except MscspError:
        return None  # (not a board: out of the scope of these messages)
    try:
        mscsp.solve(board)
    except mscsp.InconsistentBoardError as error:
        return explain_contradiction(board, error)
    return None


def test_every_message_on_random_boards_names_a_cell_and_no_negative_count():
    seen = 0
    for cells, mines in random_boards(600, seed=32):
        error = message_of(cells, mines)
        if error is None:
            continue
        seen += 1
        message = str(error)
        if error.cell is None:  # only a count no cell can hold: nothing to point at
            assert not (cells == mscsp.COVERED).any() and "no covered cell" in message
            assert not re.search(r"-\d", message) and not COVERED_WORDS.search(message)
            continue
        r, c = error.cell
        value = int(cells[r, c])
        kind = "number" if value >= 0 else "flag" if value == mscsp.FLAG else "covered"
        check_wording(message, cells, (r, c), kind)
    assert seen > 150  # most random boards are impossible: the test checks many messages


def test_a_number_named_for_the_total_breaks_its_prefix():
    """Where the numbers agree but the mine count does not fit them, the number named is the
    first (row by row) whose prefix of the numbers no longer fits the count."""
    checked = 0
    for cells, mines in random_boards(600, seed=7):
        try:
            board = mscsp.Board(cells, mines)
        except MscspError:
            continue
        if not numbers_consistent(board) or board_consistent(board):
            continue
        cell = message_of(cells, mines).cell
        k = np.argwhere(cells >= 0).tolist().index(list(cell))
        assert not board_consistent(prefix(board, k + 1)) and board_consistent(prefix(board, k))
        checked += 1
    assert checked >= 10


def prefix(board: mscsp.Board, n: int) -> mscsp.Board:
    """``board`` with its numbers past the first ``n`` (row by row) covered again."""
    relaxed = board.cells.copy()
    for r, c in np.argwhere(board.cells >= 0)[n:]:
        relaxed[r, c] = mscsp.COVERED
    return mscsp.Board(relaxed, board.mines)
