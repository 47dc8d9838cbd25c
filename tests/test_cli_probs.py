"""``mscsp probs``: output formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import numpy as np
import pytest
from click.testing import CliRunner

import mscsp
from mscsp.cli import main
from mscsp.contradiction import locate_contradiction, numbers_consistent


def run(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


def test_built_in_example_prints_a_map_and_a_suggestion():
    result = run(["probs"])
    assert result.exit_code == 0, result.output
    assert "suggested move" in result.output
    assert "\x1b[" not in result.output  # plain when not a terminal


def test_json_output_from_stdin():
    result = run(["probs", "-", "--json", "--exact"], stdin="3x3x2\n1??\n???\n???\n")
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert (out["rows"], out["cols"], out["mines"]) == (3, 3, 2)
    assert out["probabilities"][0][0] is None
    assert abs(out["probabilities"][0][1] - 1 / 3) < 1e-12
    assert out["exact"]["2,2"] == "1/5"
    assert out["best_move"] in ([0, 2], [2, 0])
    assert out["safe"] == [] and out["mines_certain"] == []


def test_mines_option_and_certain_cells(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text("???\n121\n")
    out = json.loads(run(["probs", str(path), "--mines", "2", "--json"]).output)
    assert out["safe"] == [[0, 1]]
    assert out["mines_certain"] == [[0, 0], [0, 2]]
    assert out["best_move"] == [0, 1]


def test_exit_codes_and_one_line_messages(tmp_path):
    bad = run(["probs", "-"], stdin="3x1x1\n?x?\n")
    assert bad.exit_code == 2
    assert "line 2, column 2" in bad.output
    assert "Traceback" not in bad.output
    inconsistent = run(["probs", "-", "--mines", "1"], stdin="2?\n??\n")
    assert inconsistent.exit_code == 3
    assert "the 2 at (0, 0) needs at least 2 mines" in inconsistent.output
    missing = run(["probs", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2
    unknown = run(["probs", "--backend", "nope"])
    assert unknown.exit_code == 2
    assert "choose from dss" in unknown.output


def test_import_stays_light():
    code = (
        "import sys, mscsp, mscsp.cli; "
        "print([m for m in ('jax', 'flax', 'ortools', 'pysat', 'matplotlib', 'ray') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_time_limit_exits_with_code_5():
    from mscsp import Game

    game = Game(16, 30, 99, seed=0, first_click="opening")
    game.reveal(8, 15)
    result = run(["probs", "-", "--time-limit", "0.0000001"], stdin=game.board().to_text())
    assert result.exit_code == 5
    assert "time limit" in result.output


def _stopped_board() -> str:
    """A 16x30 lattice of numbers (one cell in four), which no counter finishes in 0.3 s."""
    from mscsp.evaluation.families import lattice

    return lattice(16, 30, 0.4, seed=0).to_text()


def test_fallback_answers_where_the_exact_count_stops():
    """With --fallback, a count stopped by its limit gives way to the estimator's odds,
    flagged approximate, with the estimator's measured error; without a stop, the exact
    answer is unchanged."""
    text = _stopped_board()
    args = ["probs", "-", "--time-limit", "0.3", "--fallback", "bp", "--json"]
    result = run(args, stdin=text)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["approximate"] and out["backend"] == "bp" and not out["exact"]
    assert "time limit" in out["fallback"]["exact_stopped"]
    assert out["fallback"]["measured_mean_abs_error"]["lattice"] > 0
    probs = [p for row in out["probabilities"] for p in row if p is not None]
    assert probs and all(0.0 <= p <= 1.0 for p in probs)
    shown = run(args[:-1], stdin=text)
    assert shown.exit_code == 0 and "APPROXIMATE" in shown.output
    assert "the exact count stopped" in shown.output and "mean |dp|" in shown.output
    easy = "3x3x1\n1??\n???\n???\n"
    exact = run(["probs", "-", "--time-limit", "5", "--fallback", "bp", "--json"], stdin=easy)
    assert exact.exit_code == 0 and not json.loads(exact.output)["approximate"]
    assert "fallback" not in json.loads(exact.output)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--fallback", "dss"], "does not count"),
        (["--backend", "bp", "--fallback", "mcmc"], "stands in for an exact count"),
        (["--fallback", "nonesuch"], "nonesuch"),
    ],
)
def test_fallback_refuses_what_cannot_stand_in(args, words):
    result = run(["probs", "-", *args], stdin=_stopped_board())
    assert result.exit_code == 2 and words in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("board", "cell"),
    [
        ("3x2x1\n?FF\n???\n", "(0, 1)"),  # more flags than mines: the first flag
        ("3x1x2\n1?1\n", "(0, 1)"),  # more mines than covered cells: the first of them
        ("4x4x3\n2?..\n....\n....\n..??\n", "(0, 0)"),  # a number above its neighbours
        ("2x2x0\n4.\n..\n", "(0, 0)"),  # above the neighbour count
        # Numbers that contradict each other: any of them may be named.
        ("5x1x1\n1?1?1\n", ("(0, 0)", "(0, 2)", "(0, 4)")),
        ("5x1x2\n1?1?1\n", ("(0, 0)", "(0, 2)", "(0, 4)")),
        ("3x2x2\n1?.\n.?1\n", ("(0, 0)", "(1, 0)", "(0, 2)", "(1, 2)")),  # the 0s forbid
        # The numbers fit, the total does not: the second 1 leaves room for 4 mines, not 5.
        ("4x3x5\n?1??\n?1??\n????\n", "(1, 1)"),
    ],
)
def test_every_impossible_board_exits_3_naming_a_cell(board, cell):
    result = run(["probs", "-"], stdin=board)
    assert result.exit_code == 3, result.output
    assert any(c in result.output for c in ((cell,) if isinstance(cell, str) else cell))
    assert len(result.output.strip().splitlines()) == 1


def test_the_named_cell_is_part_of_a_contradiction(positions):
    """On real positions with one number changed, the named number breaks its prefix."""
    checked = 0
    for board, _ in positions[:60]:
        numbers = np.argwhere(board.cells > 0)
        if not len(numbers):
            continue
        r, c = numbers[len(numbers) // 2]
        cells = board.cells.copy()
        cells[r, c] = min(int(cells[r, c]) + 1, 8)
        broken = mscsp.Board(cells, board.mines)
        try:
            mscsp.solve(broken)
        except mscsp.InconsistentBoardError:
            pass
        else:
            continue
        cell = locate_contradiction(broken)
        assert broken.cells[cell] >= 0  # a number, also where only the total does not fit
        if numbers_consistent(broken):  # (tests/test_board_messages.py checks that case)
            continue
        after = np.argwhere(broken.cells >= 0)
        k = next(i for i, rc in enumerate(after.tolist()) if tuple(rc) == cell)
        relaxed = broken.cells.copy()
        relaxed[after[k + 1 :, 0], after[k + 1 :, 1]] = mscsp.COVERED
        assert not numbers_consistent(mscsp.Board(relaxed, broken.mines))
        relaxed[cell] = mscsp.COVERED
        assert numbers_consistent(mscsp.Board(relaxed, broken.mines))
        checked += 1
    assert checked >= 10


def test_a_cell_that_is_not_certain_never_shows_as_certain():
    from mscsp.display.render import format_probability, probability_map, shown_probabilities
    from mscsp.probabilities import CellOdds, Solution

    board = mscsp.parse_board("4x1x1\n1???\n")
    n = 166653667004497075
    odds = [
        CellOdds(((0, 1),), n, n + 2),  # 1 - 1.2e-17: float division gives 1.0
        CellOdds(((0, 2),), 1, 10**20),  # prints as 0.0000
        CellOdds(((0, 3),), 0, 1),  # certain safe
    ]
    solution = Solution(board, odds)
    assert solution.probabilities[0, 1] == 1.0 and solution.mines == []
    shown = shown_probabilities(solution)
    assert 0.0 < shown[0, 2] < shown[0, 1] < 1.0 and shown[0, 3] == 0.0
    row = click.unstyle(probability_map(solution)).splitlines()[1].split()
    assert row == ["0", "1", ">99", "<1", "s"]
    assert format_probability(solution.probabilities[0, 2]) == "<0.0001"
    assert format_probability(1 - 1e-9) == ">0.9999"
    assert format_probability(0.25) == "0.2500"


def test_map_has_a_legend_and_small_percentages_are_not_numbers():
    result = run(["probs", "-"], stdin="6x2x1\n??????\n??????\n")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[1].split()[1:] == ["8%"] * 6  # 1 mine in 12 cells: 8 %, not a revealed 8
    assert any(line.startswith("covered: mine probability in percent") for line in lines)
    assert "counted from 0" in result.output
    plain = run(["probs", "-", "--json"], stdin="6x2x1\n??????\n??????\n")
    assert json.loads(plain.output)["probabilities"][0][0] == 1 / 12


def test_an_estimators_run_is_reported_in_strict_json():
    """``bp`` says whether it converged and ``mcmc`` its chains and R-hat, in the text and
    in JSON that strict parsers read (an infinite R-hat is written as text)."""
    from mscsp.evaluation.families import lattice

    text = lattice(8, 8, 0.4, seed=1).to_text()

    def strict(raw: str):
        return json.loads(raw, parse_constant=lambda name: pytest.fail(f"bare {name}"))

    bp = run(["probs", "-", "--backend", "bp", "--json"], stdin=text)
    assert bp.exit_code == 0, bp.output
    assert isinstance(strict(bp.output)["report"]["converged"], bool)
    mcmc = run(["probs", "-", "--backend", "mcmc:40", "--json"], stdin=text)
    report = strict(mcmc.output)["report"]
    assert report["chains"] >= 1 and report["sweeps"] == 40 and "rhat" in report
    shown = run(["probs", "-", "--backend", "bp"], stdin=text)
    assert "bp run: iterations" in shown.output and "converged" in shown.output
    exact = run(["probs", "-", "--json"], stdin=text)
    assert "report" not in strict(exact.output)
