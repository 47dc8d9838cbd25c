"""Deciding without counting agrees with the exact safe and mine sets."""

from __future__ import annotations

import pytest

from mscsp import solve
from mscsp.backends import BACKENDS, get_backend
from mscsp.backends.decision import decide_by_search, decide_components
from mscsp.backends.position import decide_position
from mscsp.constraints import Component
from mscsp.errors import InconsistentBoardError, SolverLimitError
from mscsp.evaluation.families import band, lattice

#: Backends whose decisions are checked on every small position (the slow #SAT counter
#: and the tiny brute force are checked on fewer).
QUICK = 60


def test_decisions_match_exact_sets(backend_name: str, positions) -> None:
    backend = get_backend(backend_name)
    limit = len(positions) if backend_name in ("dss", "sat", "cpsat", "sdd") else QUICK
    decided = 0
    for board, _ in positions[:limit]:
        solution = solve(board)
        try:
            decision = decide_position(board, backend)
        except SolverLimitError:  # the brute force refuses components over 22 cells
            assert backend_name == "brute"
            continue
        assert decision.safe == set(solution.safe)
        assert decision.mines == set(solution.mines)
        decided += bool(decision.safe or decision.mines)
        if BACKENDS[backend_name].decides and solution.components:
            assert decision.calls >= 1
    assert decided >= limit // 4


@pytest.mark.parametrize("make", [lattice, band])
def test_decisions_on_wide_components(backend_name: str, make) -> None:
    if backend_name in ("brute", "ganak", "ilp"):
        pytest.skip("too slow on these components")
    for seed in range(3):
        board = make(7, 8, 0.3, seed)
        solution = solve(board)
        decision = decide_position(board, backend_name)
        assert (decision.safe, decision.mines) == (set(solution.safe), set(solution.mines))


def test_search_uses_every_solution_found() -> None:
    # Two groups of one cell under "exactly one": neither is certain; each solution found
    # shows both groups, so after the first two solutions no group needs its own call.
    component = Component(sizes=(1, 1), constraints=(((0, 1), 1),))
    solutions = [[1, 0], [0, 1]]
    asked = []

    def find(condition):
        asked.append(condition)
        for s in solutions:
            if condition is None:
                return s
            kind, value = condition
            if (
                (kind == "mine" and s[value] >= 1)
                or (kind == "safe" and s[value] < component.sizes[value])
                or (kind == "at_most" and sum(s) <= value)
                or (kind == "at_least" and sum(s) >= value)
            ):
                return s
        return None

    decision = decide_by_search(component, find)
    assert (decision.safe, decision.mines) == (frozenset(), frozenset())
    assert (decision.fewest, decision.most) == (1, 1)
    assert ("mine", 0) not in asked and ("safe", 0) in asked
    assert decision.calls == len(asked)


def test_total_bounds_decide_components() -> None:
    # A "one of two" pair (always 1 mine) and a chain a+b=1, b+c=1 (1 mine: b; 2 mines: a
    # and c). The total over both fixes the chain's total, hence its certain cells.
    dss = get_backend("dss")
    pair = Component(sizes=(1, 1), constraints=(((0, 1), 1),))
    chain = Component(sizes=(1, 1, 1), constraints=(((0, 1), 1), ((1, 2), 1)))
    counts = [dss.count(pair), dss.count(chain)]
    _, two = decide_components([pair, chain], counts, lo=2, hi=2)
    assert (two.safe, two.mines) == ({0, 2}, {1})
    _, three = decide_components([pair, chain], counts, lo=3, hi=3)
    assert (three.safe, three.mines) == ({1}, {0, 2})
    _, either = decide_components([pair, chain], counts, lo=2, hi=3)
    assert (either.safe, either.mines) == (set(), set())
    with pytest.raises(InconsistentBoardError):
        decide_components([pair, chain], counts, lo=5, hi=5)


def test_inconsistent_board_is_reported(backend_name: str) -> None:
    from mscsp.board import parse_board

    board = parse_board("3x1x1\n1?1\n")  # both numbers need the one middle cell: 1 mine
    assert decide_position(board, backend_name).mines == {(0, 1)}
    with pytest.raises(InconsistentBoardError):
        decide_position(parse_board("4x1x1\n1??1\n"), backend_name)
