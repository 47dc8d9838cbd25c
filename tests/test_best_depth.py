"""``best`` at depth 2 against a brute force over the mine layouts of small real positions."""

from __future__ import annotations

import numpy as np
import pytest
from test_players import guess_positions

from mscsp import COVERED, FLAG, Board
from mscsp.errors import InvalidInputError
from mscsp.evaluation.harness import check_player_options
from mscsp.players.base import neighbours
from mscsp.players.best import BestPlayer, is_dead
from mscsp.session import GameSession

#: Positions with more mine layouts than this are left out (the reference is slow).
LIMIT = 3000

Layout = frozenset


def layouts(board: Board) -> list[Layout]:
    """Every set of mines on the covered cells that meets every number and the mine total.

    Cells are decided one by one (cells next to numbers first), backtracking as soon as a
    number has too many mines or too few cells left to reach its value.
    """
    rows, cols = board.shape
    covered = [tuple(map(int, c)) for c in np.argwhere(board.cells == COVERED)]
    covered.sort(key=lambda c: all(board.cells[n] < 0 for n in neighbours(c, rows, cols)))
    numbers = {
        tuple(map(int, c)): int(board.cells[tuple(c)])
        - sum(board.cells[n] == FLAG for n in neighbours(tuple(c), rows, cols))
        for c in np.argwhere(board.cells >= 0)
    }
    open_ = {n: sum(m in covered for m in neighbours(n, rows, cols)) for n in numbers}
    seen = {c: [n for n in neighbours(c, rows, cols) if n in numbers] for c in covered}
    found: list[Layout] = []

    def place(i: int, left: int, mines: list) -> None:
        if left < 0 or left > len(covered) - i:
            return
        if i == len(covered):
            if all(v == 0 for v in numbers.values()):
                found.append(Layout(mines))
            return
        cell = covered[i]
        for n in seen[cell]:
            open_[n] -= 1
        for mine in (True, False):
            for n in seen[cell]:
                numbers[n] -= mine
            if all(0 <= numbers[n] <= open_[n] for n in seen[cell]):
                place(i + 1, left - mine, [*mines, cell] if mine else mines)
            for n in seen[cell]:
                numbers[n] += mine
        for n in seen[cell]:
            open_[n] += 1

    place(0, board.mines - int((board.cells == FLAG).sum()), [])
    return found


def outcomes(board: Board, found: list[Layout], cell) -> dict[int, list[Layout]]:
    """The layouts where ``cell`` is safe, by the number it shows."""
    rows, cols = board.shape
    split: dict[int, list[Layout]] = {}
    for layout in found:
        if cell not in layout:
            nbrs = neighbours(cell, rows, cols)
            value = sum(1 for n in nbrs if n in layout or board.cells[n] == FLAG)
            split.setdefault(value, []).append(layout)
    return split


def shown(board: Board, cell, value: int) -> Board:
    cells = board.cells.copy()
    cells[cell] = value
    return Board(cells, board.mines)


def safeties(board: Board, found: list[Layout]) -> dict:
    """Each covered cell's share of layouts in which it is safe."""
    covered = [tuple(map(int, c)) for c in np.argwhere(board.cells == COVERED)]
    return {c: sum(c not in layout for layout in found) / len(found) for c in covered}


def next_click(board: Board, found: list[Layout], blend: float) -> tuple[float, bool]:
    """The blended safety of the two safest living cells, and whether the safest is certain."""
    rows, cols = board.shape
    safety = safeties(board, found)
    mines = board.cells == FLAG
    for c, s in safety.items():
        mines[c] |= s == 0.0
    # Cells next to no number are living; others unless their number is already determined.
    living = sorted(
        (
            s
            for c, s in safety.items()
            if s > 0.0
            and (
                all(board.cells[n] < 0 for n in neighbours(c, rows, cols))
                or not is_dead(board.cells, mines, c)
            )
        ),
        reverse=True,
    )
    if not living:
        fallback = max((s for s in safety.values() if s > 0.0), default=0.0)
        return (fallback if fallback else 1.0), False
    first = living[0]
    second = living[1] if len(living) > 1 else first
    return (1 - blend) * first + blend * second, first == 1.0


def score(player: BestPlayer, board: Board, found: list[Layout], cell) -> tuple[float, bool]:
    """The depth-1 look-ahead score of ``cell``, and whether it is dead (one number)."""
    split = outcomes(board, found, cell)
    survive = progress = 0.0
    for value, part in split.items():
        p = len(part) / len(found)
        safety, certain = next_click(shown(board, cell, value), part, player.blend)
        survive += p * safety
        progress += p * certain
    return survive + player.progress_weight * progress, len(split) <= 1


def worth(player: BestPlayer, board: Board, found: list[Layout]) -> float:
    """The best depth-1 score in a position (the most a score can be when a cell is certain)."""
    safety = safeties(board, found)
    if all(s in (0.0, 1.0) for s in safety.values()) or 1.0 in safety.values():
        return 1.0 + player.progress_weight
    cells = player.candidates(board, player.ahead.solve(board), GameSession())
    scores = [score(player, board, found, c) for c in cells]
    living = [s for s, dead in scores if not dead]
    return max(living or [s for s, _ in scores])


def two_click(player: BestPlayer, board: Board, found: list[Layout], cell) -> float:
    """Expected best depth-1 score after clicking ``cell``, over the numbers it could show."""
    return sum(
        len(part) / len(found) * worth(player, shown(board, cell, value), part)
        for value, part in outcomes(board, found, cell).items()
    )


def small_positions(count: int):
    """Guess positions of small real games with few enough layouts for the brute force."""
    player = BestPlayer()
    for board, _ in guess_positions(seeds=range(40), size=(6, 6, 7)):
        player.new_game()
        if player.memory.solve(board).weight <= LIMIT:
            yield player.memory.flagged(board)
            count -= 1
            if not count:
                return


def test_depth_two_picks_the_best_two_click_value_of_its_candidates():
    """Its two-click values equal the brute force's, and it picks the best of them."""
    player = BestPlayer(depth=2, margin=1.0, width=8)
    compared = pruned = 0
    for board in small_positions(25):
        player.new_game()
        solution = player.memory.solve(board)
        if solution.safe:
            continue
        cells = player.candidates(board, solution)
        scored, _ = player.lookahead(board, solution, cells, margin=player.margin)
        if len(scored) < 2:
            continue
        chosen = player.look_deeper(board, solution, scored)
        found = layouts(board)
        reference = {cell: two_click(player, board, found, cell) for cell, _ in player.looked}
        for cell, value in player.looked:
            if value is None:
                pruned += 1
                assert reference[cell] <= reference[chosen.cell] + 1e-9
            else:
                assert value == pytest.approx(reference[cell], abs=1e-9)
        assert reference[chosen.cell] == pytest.approx(max(reference.values()), abs=1e-9)
        compared += 1
    assert compared >= 5
    assert pruned > 0


def test_depth_two_plays_whole_games_deterministically():
    """Two players at depth 2 make the same guesses; some guesses are scored deeper."""
    boards = [board for board, _ in guess_positions(seeds=range(3), preset="intermediate")]
    moves = []
    for _ in range(2):
        player = BestPlayer(depth=2)
        deeper = 0
        played = []
        for board in boards:
            player.new_game()
            solution = player.memory.solve(board)
            played.append(player.guess(board, solution, np.random.default_rng(0)))
            deeper += len(player.looked) > 1
        moves.append(played)
    assert moves[0] == moves[1]
    assert deeper > 0


@pytest.mark.parametrize("options", [{"depth": 3}, {"width": 0}])
def test_bad_depth_options_are_refused(options):
    check_player_options("best", options)  # the types are right...
    with pytest.raises(InvalidInputError):
        BestPlayer(**options)  # ...the values are not
