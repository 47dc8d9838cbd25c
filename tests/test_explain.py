"""Explanations of certain cells: each forcing set forces its cell, and no number can be
dropped from it, both checked by an independent enumeration of layouts (not the search
that found the set)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mscsp import Game, solve
from mscsp.board import COVERED, FLAG, Board
from mscsp.cli import main
from mscsp.errors import InvalidInputError, InvalidTypeError
from mscsp.evaluation.played_positions import solved_positions
from mscsp.explain import explain_certain, explain_probability

MAX_LAYOUTS = 200_000


def neighbours(board: Board, cell):
    rows, cols = board.shape
    r, c = cell
    return [
        (rr, cc)
        for rr in range(max(r - 1, 0), min(r + 2, rows))
        for cc in range(max(c - 1, 0), min(c + 2, cols))
        if (rr, cc) != (r, c)
    ]


def layouts_allow(board: Board, numbers, cell, mine: bool, use_total: bool) -> bool | None:
    """Whether a layout fits ``numbers`` (and the total) with ``cell`` = ``mine``.

    Plain enumeration: every assignment of the covered cells around the numbers (with the
    total: every placement of the mines left on all covered cells). ``None``: too many.
    """
    cells = board.cells
    covered = [tuple(map(int, rc)) for rc in np.argwhere(cells == COVERED)]
    needs = {}
    for n in numbers:
        near = neighbours(board, n)
        needs[n] = (
            int(cells[n]) - sum(cells[x] == FLAG for x in near),
            [x for x in near if cells[x] == COVERED],
        )
    if use_total:
        left = board.mines - int((cells == FLAG).sum())
        if comb(len(covered), left) > MAX_LAYOUTS:
            return None
        for mines in itertools.combinations(covered, left):
            chosen = set(mines)
            if (cell in chosen) != mine:
                continue
            if all(sum(x in chosen for x in cov) == need for need, cov in needs.values()):
                return True
        return False
    around = sorted({x for _, cov in needs.values() for x in cov} | {cell})
    if 2 ** len(around) > MAX_LAYOUTS:
        return None
    for bits in itertools.product((0, 1), repeat=len(around)):
        value = dict(zip(around, bits, strict=True))
        if value[cell] != mine:
            continue
        if all(sum(value[x] for x in cov) == need for need, cov in needs.values()):
            return True
    return False


def check(board: Board, explanation) -> int:
    """Asserts that the set forces the cell and is minimal; returns the checks made."""
    cell, numbers = explanation.cell, list(explanation.numbers)
    opposite = explanation.value == "safe"  # a mine on a safe cell must be impossible
    forced = layouts_allow(board, numbers, cell, opposite, explanation.uses_total)
    if forced is None:
        return 0
    assert forced is False, explanation
    for drop in numbers:
        rest = [n for n in numbers if n != drop]
        allowed = layouts_allow(board, rest, cell, opposite, explanation.uses_total)
        assert allowed in (True, None), f"{drop} can be dropped from {explanation}"
    if explanation.uses_total:  # the total is needed: numbers alone do not force the cell
        assert layouts_allow(board, numbers, cell, opposite, False) in (True, None)
    return 1


@pytest.mark.parametrize(("rows", "cols", "mines", "seeds"), [(9, 9, 10, 25), (16, 16, 40, 4)])
def test_every_certain_cell_of_real_games_has_a_minimal_forcing_set(rows, cols, mines, seeds):
    checked = kinds = 0
    seen = set()
    for seed in range(seeds):
        for board, solution in solved_positions(Game(rows, cols, mines, seed=[7, seed])):
            explanations = explain_certain(board, solution=solution)
            assert {e.cell for e in explanations} == set(solution.safe) | set(solution.mines)
            for e in explanations:
                assert e.value == ("safe" if e.cell in solution.safe else "mine")
                assert all(board.cells[n] >= 0 for n in e.numbers)
                checked += check(board, e)
                seen.add(e.kind)
            kinds = len(seen)
    assert checked > 100
    assert kinds >= 3  # single numbers, subset steps and case analyses all occur


@st.composite
def boards(draw):
    rows = draw(st.integers(3, 6))
    cols = draw(st.integers(3, 6))
    n = rows * cols
    mines = draw(st.integers(1, n // 3))
    layout = np.zeros(n, bool)
    layout[draw(st.permutations(range(n)))[:mines]] = True
    layout = layout.reshape(rows, cols)
    shown = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))).reshape(rows, cols)
    flags = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))).reshape(rows, cols)
    padded = np.pad(layout, 1).astype(int)
    counts = sum(
        padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr, dc) != (0, 0)
    )
    cells = np.full((rows, cols), COVERED, np.int8)
    cells[shown & ~layout] = counts[shown & ~layout]
    cells[flags & layout & ~shown] = FLAG
    return Board(cells, mines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_random_boards_get_minimal_forcing_sets(board):
    solution = solve(board)
    for e in explain_certain(board, solution=solution):
        check(board, e)


def test_a_probability_is_a_ratio_of_layout_counts():
    board, solution = next(
        (b, s)
        for seed in range(20)
        for b, s in solved_positions(Game(16, 16, 40, seed=seed))
        if s.components and not s.safe
    )
    component, count = solution.components[0]
    cell = component.cells[0][0]
    info = explain_probability(solution, cell)
    num, den = map(int, info["probability"].split("/"))
    assert num * int(info["layouts"]) == den * int(info["mine_layouts"])
    assert solution.exact[cell] == type(solution.exact[cell])(num, den)
    assert int(info["component"]["layouts"]) == count.total
    shares = info["component"].get("by_mines")
    if shares is not None:  # the mine total's weighting, when the summary covers the shape
        assert abs(sum(x["share"] for x in shares) - 1) < 1e-9
        assert sum(int(x["layouts"]) for x in shares) == count.total
        mine = sum(
            Fraction(x["share"]) * int(x["mine_layouts"]) / int(x["layouts"]) for x in shares
        )
        assert abs(float(mine) - num / den) < 1e-9


def test_probs_explain_json_and_text():
    runner = CliRunner()
    result = runner.invoke(main, ["probs", "--explain", "all", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    certain = {tuple(c) for c in out["safe"]} | {tuple(c) for c in out["mines_certain"]}
    assert {tuple(e["cell"]) for e in out["explanations"]} == certain
    for e in out["explanations"]:
        assert {"cell", "value", "numbers", "uses_total", "kind", "steps"} <= set(e)
    cell = ",".join(map(str, out["explanations"][0]["cell"]))
    text = runner.invoke(main, ["probs", "--explain", cell])
    assert text.exit_code == 0 and f"why ({cell.replace(',', ', ')})" in text.output


@pytest.mark.parametrize("spec", ["99,0", "0,0", "x", "1,2,3"])
def test_probs_explain_bad_cells_exit_2(spec):
    result = CliRunner().invoke(main, ["probs", "--explain", spec])
    assert result.exit_code == 2
    assert "cell" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("road", ["engine", "uncompiled"])
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_the_layout_search_is_a_brute_force_s_answer(road, data, monkeypatch):
    """The search behind the forcing sets (:mod:`mscsp.engine._feasible`), on the engine's
    road and run by Python, against every assignment of the cells, with and without the
    mine total; run by Python, it stops for a check every 3 nodes and walks on."""
    from mscsp.engine import compiled

    if road == "uncompiled":
        monkeypatch.setattr(compiled, "_engine", compiled.uncompiled)
        monkeypatch.setattr(compiled.uncompiled("_feasible"), "CHECK_EVERY", 3)
    n = data.draw(st.integers(1, 7))
    members = data.draw(
        st.lists(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True), max_size=5)
    )
    needs = [data.draw(st.integers(0, len(cells))) for cells in members]
    fixed = (data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, 1)))
    use_total = data.draw(st.booleans())
    left, others = data.draw(st.integers(0, n + 3)), data.draw(st.integers(0, 3))
    truth = any(
        layout[fixed[0]] == fixed[1]
        and all(
            sum(layout[i] for i in cells) == need
            for cells, need in zip(members, needs, strict=True)
        )
        and (not use_total or 0 <= left - sum(layout) <= others)
        for layout in itertools.product((0, 1), repeat=n)
    )
    search = compiled.Feasibility(n, members, needs, fixed)
    found = False
    if search.possible:
        while (found := search.walk(use_total, left, others)) is None:
            pass
    assert found == truth


def test_the_layout_search_stops_for_each_check_and_walks_on():
    from mscsp.engine import compiled

    # 14 cells, one number needing 7 of them, 8 mines left and none elsewhere: no layout,
    # found only once every way of placing the 7 is tried, thousands of nodes.
    search = compiled.Feasibility(14, [list(range(14))], [7], (0, 1))
    checks = 0
    while (found := search.walk(True, 8, 0)) is None:
        checks += 1
    assert found is False and checks >= 1
    again = compiled.Feasibility(14, [list(range(14))], [7], (0, 1))
    while (found := again.walk(True, 7, 0)) is None:
        pass
    assert found is True


@pytest.mark.parametrize(
    ("n", "members", "needs", "fixed", "error"),
    [
        (0, [], [], (0, 0), InvalidInputError),
        (2.5, [[0]], [1], (0, 0), InvalidTypeError),
        (2, [[0, 2]], [1], (0, 0), InvalidInputError),  # a cell off the board: unchecked in
        (2, [[-1]], [1], (0, 0), InvalidInputError),  # the compiled walk, refused here
        (2, [[]], [0], (0, 0), InvalidInputError),
        (2, [[0]], [1, 1], (0, 0), InvalidInputError),
        (2, [[0]], ["1"], (0, 0), InvalidTypeError),
        (2, [[0]], [1], (2, 0), InvalidInputError),
        (2, [[0]], [1], (0, 2), InvalidInputError),
        (2, [[0]], [1], 0, InvalidTypeError),
        (2, "01", [1], (0, 0), InvalidTypeError),
    ],
)
def test_the_layout_search_refuses_what_its_walk_cannot_read(n, members, needs, fixed, error):
    from mscsp.engine import compiled

    with pytest.raises(error):
        compiled.Feasibility(n, members, needs, fixed)


@pytest.mark.parametrize(("checks", "error"), [(-1, InvalidInputError), (1.5, InvalidTypeError)])
def test_a_step_budget_refuses_a_count_that_is_none(checks, error):
    from mscsp.runtime.deadline import StepBudget

    with pytest.raises(error):
        StepBudget(checks)
