"""The rules of ``best`` on pseudo and looming 50/50s and domination, checked by enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from test_players import guess_positions

from mscsp import parse_board, solve
from mscsp.players.best import BestPlayer
from mscsp.players.endgame import enumerate_layouts
from mscsp.players.fifty import box_patterns, looming_fifties, pair_patterns, pseudo_fifty

RNG = np.random.default_rng(0)

# Two rows of two covered cells, flags on the right: no number anywhere, so only the mine
# count links them. Every side-by-side pair has its outer cells flagged or off the board.
CORNER = "??F\n??F\n"
# A 2x2 box whose numbers fix one mine per row and per column: only its diagonals remain,
# and its one on-board diagonal corner (2, 2) is flagged.
BOX = "??1\n??2\n12F\n"


def layouts_with_mine(board, cell):
    """Every layout (as a set of mine cells) with a mine on ``cell``, by enumeration."""
    unknown, layouts = enumerate_layouts(board, 10_000)
    sets = [{unknown[i] for i in range(len(unknown)) if layout >> i & 1} for layout in layouts]
    return [s for s in sets if cell in s]


def living(cell):
    return True


def test_pair_patterns_need_their_outer_cells_known():
    assert list(pair_patterns(parse_board(CORNER, mines=3).cells)) == [
        ((0, 0), (0, 1)),
        ((0, 0), (1, 0)),
        ((0, 1), (1, 1)),
        ((1, 0), (1, 1)),
    ]
    # (0, 2) covered: it touches (0, 1) but not (0, 0), so the top pair is no pattern.
    open_end = parse_board("???\n??F\n", mines=3)
    assert ((0, 0), (0, 1)) not in set(pair_patterns(open_end.cells))


def test_pair_that_never_holds_two_mines_is_clicked():
    board = parse_board(CORNER, mines=3)  # one mine among the four cells
    cell = pseudo_fifty(board, solve(board), "dss", living)
    assert cell is not None
    pairs = [p for p in pair_patterns(board.cells) if cell in p]
    # Whenever the chosen cell is a mine, its partner in some pattern is safe.
    assert any(
        all(other not in mines for mines in layouts_with_mine(board, cell))
        for pair in pairs
        for other in pair
        if other != cell
    )


def test_pair_that_may_hold_two_mines_is_not_a_pseudo_fifty():
    board = parse_board(CORNER, mines=4)  # two mines among the four cells
    assert pseudo_fifty(board, solve(board), "dss", living) is None


def test_box_cell_that_is_a_mine_only_on_its_diagonal_is_clicked():
    board = parse_board(BOX, mines=3)
    assert list(box_patterns(board.cells)) == [((0, 0), (0, 1), (1, 0), (1, 1))]
    cell = pseudo_fifty(board, solve(board), "dss", living)
    assert cell in {(0, 0), (0, 1), (1, 0), (1, 1)}
    r, c = cell
    diagonal = {cell, (1 - r, 1 - c)}
    box = {(0, 0), (0, 1), (1, 0), (1, 1)}
    layouts = layouts_with_mine(board, cell)
    assert layouts and all(mines & box == diagonal for mines in layouts)


def test_box_with_an_open_corner_is_no_pattern():
    board = parse_board("??1\n??2\n12?\n", mines=3)  # (2, 2) could still show a number
    assert list(box_patterns(board.cells)) == []
    assert pseudo_fifty(board, solve(board), "dss", living) is None


def test_dead_box_cells_are_not_chosen():
    board = parse_board(BOX, mines=3)
    cell = pseudo_fifty(board, solve(board), "dss", lambda c: c != (0, 0))
    assert cell not in {None, (0, 0)}


def test_best_plays_the_pseudo_fifty_before_the_look_ahead():
    board = parse_board(BOX, mines=3)
    solution = solve(board)
    player = BestPlayer(tree_layouts=0)  # no exact search: it would find the same odds
    move = player.guess(board, solution, RNG)
    assert player.reason == "pseudo"
    assert move == pseudo_fifty(board, solution, "dss", living)
    plain = BestPlayer(tree_layouts=0, pseudo=False)
    plain.guess(board, solution, RNG)
    assert plain.reason != "pseudo"


# (0, 0) and (1, 0) hold one mine (the 2 at (0, 1) has a flag); their outer cells are the
# flag at (2, 1) and the covered (2, 0): if (2, 0) is a mine, only a coin toss settles them.
LOOMING = "?21\n?F2\n?F3\n???\n"


def test_looming_fifty_found_with_its_enabler_and_risk():
    board = parse_board(LOOMING, mines=5)
    solution = solve(board)
    (found,) = looming_fifties(board, solution)
    assert found.pair == ((0, 0), (1, 0)) and found.enabler == (2, 0)
    assert found.risk == solution.probabilities[2, 0] / 2
    assert found.settles((2, 0)) and found.settles((1, 0)) and not found.settles((3, 0))
    # Once the enabler is known to be a mine the pair is a pseudo 50/50, no longer looming.
    board.cells[2, 0] = -2
    assert looming_fifties(board, solve(board)) == []


def test_best_settles_a_looming_fifty_among_equally_safe_cells():
    board = parse_board(LOOMING, mines=5)
    solution = solve(board)  # every covered cell is a mine with probability 1/2
    player = BestPlayer(tree_layouts=0, pseudo=False)
    move = player.guess(board, solution, RNG)
    assert player.reason == "looming"
    assert looming_fifties(board, solution)[0].settles(move)


def implied_cases(player):
    """(board, solution, probed cell, its probe, layouts by cell) on small real positions."""
    for board, _ in guess_positions(seeds=range(20), size=(6, 6, 7)):
        found = enumerate_layouts(board, 5000)
        if found is None:
            continue
        unknown, layouts = found
        index = {cell: i for i, cell in enumerate(unknown)}
        solution = solve(board)
        for odd in solution.odds:
            if isinstance(odd.cells, np.ndarray) or odd.num in (0, odd.den):
                continue
            for cell in odd.cells:
                yield board, solution, cell, player.probe(board, solution, cell), layouts, index


def test_implied_cells_are_safe_whenever_the_probed_cell_is():
    implied = safer = 0
    for _, solution, cell, probe, layouts, index in implied_cases(BestPlayer()):
        safe_layouts = [x for x in layouts if not x >> index[cell] & 1]
        for other in probe.implied:
            implied += 1
            assert all(not x >> index[other] & 1 for x in safe_layouts)
            safer += solution.probabilities[other] < solution.probabilities[cell]
    assert implied > 0 and safer > 0


def test_best_plays_a_safer_implied_cell_first(monkeypatch):
    player = BestPlayer(tree_layouts=0, pseudo=False, looming=False)
    for case in implied_cases(player):
        board, solution, cell, probe = case[:4]
        probs = solution.probabilities
        safer = [c for c in probe.implied if probs[c] < probs[cell]]
        if safer:
            break
    else:
        pytest.fail("no position where a cell implies a safer one")
    monkeypatch.setattr(BestPlayer, "candidates", lambda self, b, s: [cell])
    move = player.guess(board, solution, RNG)
    assert player.reason == "implied" and move in safer
    assert probs[move] == min(probs[c] for c in safer)


def twin_holds(board, cell):
    """Whether, in every layout with a mine on ``cell``, some pattern holding ``cell`` has
    the swapped twin the pseudo 50/50 rule relies on (checked by enumeration)."""
    layouts = layouts_with_mine(board, cell)
    for pair in pair_patterns(board.cells):
        if cell in pair:
            (other,) = (c for c in pair if c != cell)
            if all(other not in mines for mines in layouts):
                return True
    for box in box_patterns(board.cells):
        if cell in box:
            k = box.index(cell)
            diagonal = {cell, box[3 - k]}
            if all(mines & set(box) == diagonal for mines in layouts):
                return True
    return False


def test_pseudo_fifties_on_real_positions_have_their_twin():
    fired = 0
    for board, _ in guess_positions(seeds=range(30), size=(6, 6, 7)):
        solution = solve(board)
        board.cells[solution.probabilities == 1.0] = -2  # proven mines flagged, as best does
        solution = solve(board)
        cell = pseudo_fifty(board, solution, "dss", living)
        if cell is not None:
            fired += 1
            assert 0 < solution.probabilities[cell] < 1
            assert twin_holds(board, cell)
    assert fired > 0


@pytest.mark.parametrize("compiled_on", [False, True])
def test_pattern_helpers_refuse_arrays_that_are_not_the_board(compiled_on, monkeypatch):
    """Compiled code reads a board's arrays without bounds checks: wrong arrays are refused
    with the project's errors on either path."""
    from mscsp.engine import compiled
    from mscsp.errors import InvalidInputError, InvalidTypeError
    from mscsp.players.best import dead_cells, representatives

    if compiled_on:
        if compiled.numba_missing():
            pytest.skip("the compiled path needs numba")
        compiled.load()
    else:
        monkeypatch.setattr(compiled, "enabled", False)
    board = parse_board(CORNER, mines=3)
    cells, mask = board.cells, board.cells == -1
    mines = np.zeros(cells.shape, dtype=bool)
    for bad in (cells.reshape(-1), np.zeros((2, 3, 1), dtype=np.int8)):
        with pytest.raises(InvalidInputError, match="2-D"):
            pair_patterns(bad)
        with pytest.raises(InvalidInputError, match="2-D"):
            list(box_patterns(bad))
    for bad in ("??F", [[-1, -1]], cells.astype(float)):
        with pytest.raises(InvalidTypeError, match="cells"):
            pair_patterns(bad)
    with pytest.raises(InvalidInputError, match="mask must be a 2x3"):
        representatives(board, mask[:, :2])
    with pytest.raises(InvalidTypeError, match="mask"):
        representatives(board, mask.astype(np.int8))
    with pytest.raises(InvalidInputError, match="count"):
        representatives(board, mask, -1)
    with pytest.raises(InvalidInputError, match="mines must be a 2x3"):
        dead_cells(cells, mines[:1], [(0, 0)])
    for which in ([(0, 3)], [(2, 0)], [(-1, 0)], [(0,)], [(0.5, 1)]):
        with pytest.raises(InvalidInputError, match="which"):
            dead_cells(cells, mines, which)
    # Good input still answers, the same on both paths (the patterns test compares them).
    assert representatives(board, mask, 2) == [(0, 0), (0, 1)]
    assert dead_cells(cells, mines, []) == []
    # Cells as numpy integers or lists are checked as an array, to the same answer.
    assert dead_cells(cells, mines, [(np.int64(0), 1), [1, 2]]) == dead_cells(
        cells, mines, [(0, 1), (1, 2)]
    )


def test_flagged_in_refuses_what_is_not_a_board():
    """The look-ahead's flagged position refuses a non-board with the project's error, and
    makes a board's flagged copy once."""
    from mscsp.errors import InvalidTypeError
    from mscsp.players import get_player

    best = get_player("best")
    for bad in ("??F", None, np.zeros((2, 2), dtype=np.int8)):
        with pytest.raises(InvalidTypeError, match="board"):
            best.flagged_in(bad, best.memory)
    board = parse_board("1?\n??", 1)
    once = best.flagged_in(board, best.memory)
    assert best.flagged_in(board, best.memory) is once
