"""The rules a person uses (``mscsp.deduce``): sound, and stronger than the solver's reductions."""

from __future__ import annotations

import pytest

from mscsp.board import Board, parse_board
from mscsp.constraints import build_system
from mscsp.deduce import deduce
from mscsp.errors import InconsistentBoardError
from mscsp.evaluation.played_positions import solved_positions
from mscsp.game import Game
from mscsp.reduce import reduce_system
from mscsp.reference import brute_force

# Real positions (csp-minprob's games on 5x6 with 7 mines) that each rule is needed for.
#: The reductions behind the solver settle nothing here; repeating the subset rule, the
#: overlap rule and the mine total settle (3,5) and (4,5).
NEEDS_RULES = "6x5x7\n.1?2?1\n.113?3\n1112??\n??1???\n?211??\n"
#: The rules alone settle nothing; assuming a mine in (1,5) or (4,2) contradicts them.
NEEDS_CASES = "6x5x7\n??????\n??211?\n??1.1?\n??113?\n??????\n"


def _certain(board: Board) -> tuple[set, set]:
    """Safe and mine cells by the brute force."""
    probs = brute_force(board)
    return {c for c, p in probs.items() if p == 0}, {c for c, p in probs.items() if p == 1}


def _reduction_cells(board: Board) -> tuple[set, set]:
    """Safe and mine cells the solver's deterministic reductions settle."""
    system = build_system(board)
    safe, mines = set(), set()
    for group, held in reduce_system(system).fixed:
        if held in (0, system.sizes[group]):
            (mines if held else safe).update(system.cells[group])
    return safe, mines


def test_every_settled_cell_is_certain_by_the_brute_force():
    """On every position of 80 small real games, each mode settles only certain cells,
    and at least every cell the solver's reductions settle."""
    checked = beyond = 0
    for rows, cols, mines in [(4, 5, 4), (5, 5, 5)]:
        for seed in range(40):
            for board, _ in solved_positions(Game(rows, cols, mines, seed=[5, seed])):
                safe, mine = _certain(board)
                reduced_safe, reduced_mines = _reduction_cells(board)
                rules = deduce(board)
                cases = deduce(board, cases=True)
                for found in (rules, cases):
                    assert set(found.safe) <= safe and set(found.mines) <= mine
                assert reduced_safe <= set(rules.safe) <= set(cases.safe)
                assert reduced_mines <= set(rules.mines) <= set(cases.mines)
                beyond += len(set(cases.safe) - reduced_safe)
                checked += 1
    assert checked > 200
    assert beyond > 0  # the mine total at least settles end games the reductions leave


def test_sound_against_the_exact_solver_on_expert_games():
    """Expert positions are too large for the brute force: the exact solver is the reference."""
    positions = 0
    for seed in range(10):
        for board, solution in solved_positions(Game(16, 30, 99, seed=[6, seed])):
            found = deduce(board, cases=True)
            assert set(found.safe) <= set(solution.safe)
            assert set(found.mines) <= set(solution.mines)
            positions += 1
    assert positions > 100


def test_the_mine_total_settles_an_end_game():
    """One mine left, and the 1 holds it: the cells away from the 1 are safe."""
    board = parse_board("5x1x1\n??1??\n")
    assert _reduction_cells(board) == (set(), set())
    found = deduce(board)
    assert found.safe == [(0, 0), (0, 4)] and found.mines == []
    assert set(found.safe) == _certain(board)[0]


@pytest.mark.parametrize(
    ("text", "cases", "safe"),
    [(NEEDS_RULES, False, {(3, 5), (4, 5)}), (NEEDS_CASES, True, {(1, 5), (4, 2)})],
)
def test_each_rule_settles_what_the_weaker_ones_leave(text, cases, safe):
    board = parse_board(text)
    assert _reduction_cells(board)[0] == set()
    if cases:
        assert deduce(board).safe == []
    found = set(deduce(board, cases=cases).safe)
    assert safe <= found <= _certain(board)[0]


def test_first_safe_still_finds_a_safe_cell():
    board = parse_board(NEEDS_CASES)
    first = deduce(board, cases=True, first_safe=True).safe
    assert first and set(first) <= set(deduce(board, cases=True).safe)


def test_a_contradiction_is_reported():
    with pytest.raises(InconsistentBoardError):
        deduce(parse_board("3x1x0\n?1?\n"))


def test_a_spent_deadline_stops_the_rules():
    from mscsp.errors import SolverLimitError
    from mscsp.runtime.deadline import Deadline

    with pytest.raises(SolverLimitError):
        deduce(parse_board(NEEDS_RULES), deadline=Deadline(0))
