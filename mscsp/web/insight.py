"""What the analyser page marks beyond the odds: dead cells, 50/50 pairs, why ``best`` guesses.

Exact, from the position's solution and, where a count is needed, from the solution of the
position with one more cell revealed (a *what-if*, given by the caller so that it can use
the compiled kernel and the request's clock):

* A **dead** cell is a covered cell, not certain, whose number is the same in every layout
  where it is safe: revealing it can teach nothing (JSMinesweeper's "dead" tiles).
* A **50/50** is a pair of covered cells with exactly one mine between them in every layout,
  each at 1/2, such that every other cell next to either of them (flags and certain mines
  apart) is next to both: no click elsewhere can ever tell them apart.
* **Why** ``best`` picks a guess: the numbers its look-ahead scores (see
  :mod:`mscsp.players.best`) for the cell it picks and for the runner-up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..board import COVERED, FLAG, Board
from ..players import best
from ..players.base import Cell, neighbours
from ..probabilities import Solution

#: Solution of the position with ``cell`` revealed as ``value``; ``None``: no layout shows it.
WhatIf = Callable[[Cell, int], Solution | None]

#: The rules of :attr:`mscsp.players.best.BestPlayer.reason`, in words (plus ``certain``).
RULES = {
    "certain": "a certain safe cell: no layout has a mine there",
    "pair": "a forced 50/50: two cells, one mine, that no later click can tell apart; "
    "tossing the coin now risks nothing the game would not risk later",
    "endgame": "exact game-tree search over the few layouts left: the click with the best "
    "chance of winning",
    "region": "exact game-tree search of an isolated region of the board",
    "pseudo": "a pseudo 50/50: a mine there only where a coin toss would be lost anyway",
    "lookahead": "the look-ahead: the best chance of surviving this click and the next, "
    "plus a little for progress",
    "looming": "the look-ahead, each click charged with the risk of the looming 50/50s it "
    "leaves in the game",
    "dominated": "safer than the look-ahead's choice, and the best next click after "
    "every outcome of it: played first",
    "implied": "safe whenever the look-ahead's choice is safe, and safer now: played first",
    "dead": "every candidate is dead (its number is already known): the safest is played",
}


class _Position:
    """The board's covered cells split into certain and undecided ones."""

    def __init__(self, board: Board, solution: Solution):
        self.board = board
        self.rows, self.cols = board.shape
        self.exact = solution.exact
        self.mines = set(solution.mines)
        self.certain = set(solution.safe) | self.mines

    def around(self, cell: Cell) -> list[Cell]:
        return neighbours(cell, self.rows, self.cols)

    def undecided(self, cell: Cell) -> bool:
        """Covered and neither certainly safe nor certainly a mine."""
        return self.board.cells[cell] == COVERED and cell not in self.certain

    def known_mine(self, cell: Cell) -> bool:
        return self.board.cells[cell] == FLAG or cell in self.mines

    def open_around(self, cell: Cell, but: Cell | None = None) -> set[Cell]:
        """The undecided neighbours of ``cell`` (``but`` left out)."""
        return {n for n in self.around(cell) if n != but and self.undecided(n)}

    def undecided_cells(self) -> list[Cell]:
        return sorted(c for c, f in self.exact.items() if 0 < f < 1)


def dead_cells(
    board: Board, solution: Solution, what_if: WhatIf, check: Callable[[], None]
) -> list[Cell]:
    """The undecided covered cells whose number is the same in every layout where they are
    safe, row-major.

    A cell the engine finds dead without a count (:func:`mscsp.players.best.dead_cells`: no
    unknown neighbour, or exactly the unknown neighbours of a revealed number) is dead.
    Otherwise its possible numbers are tried with ``what_if``, the likeliest first, until
    two are possible (it lives) or none is left (it is dead). ``check`` is called before
    each cell (it raises to stop).
    """
    pos = _Position(board, solution)
    undecided = pos.undecided_cells()
    mines = board.cells == FLAG
    for cell in solution.mines:
        mines[cell] = True
    fixed = best.dead_cells(board.cells, mines, undecided)
    dead = []
    for cell, known in zip(undecided, fixed, strict=True):
        check()
        if known or len(_possible_numbers(pos, cell, what_if, 2)) < 2:
            dead.append(cell)
    return dead


def _possible_numbers(pos: _Position, cell: Cell, what_if: WhatIf, enough: int) -> list[int]:
    """Numbers ``cell`` can show, tried likeliest first, until ``enough`` are found."""
    open_ = pos.open_around(cell, but=cell)
    base = sum(1 for n in pos.around(cell) if pos.known_mine(n))
    expected = base + sum(float(pos.exact[n]) for n in open_)
    found: list[int] = []
    for value in sorted(range(base, base + len(open_) + 1), key=lambda v: abs(v - expected)):
        after = what_if(cell, value)
        if after is not None and after.weight:
            found.append(value)
            if len(found) >= enough:
                break
    return found


def fifty_fifties(board: Board, solution: Solution, what_if: WhatIf) -> list[tuple[Cell, Cell]]:
    """The 50/50 pairs of the position (see the module's docstring), in row-major order.

    Exactly one mine between the two is shown by a revealed number whose undecided
    neighbours are the pair and which needs one more mine, or by the mine total when the
    pair is all that is undecided and one mine is left; else by ``what_if``: the first cell
    is a certain mine whatever number the second shows.
    """
    pos = _Position(board, solution)
    half = Fraction(1, 2)
    halves = [c for c in pos.undecided_cells() if pos.exact[c] == half]
    pairs = []
    for i, a in enumerate(halves):
        for b in halves[i + 1 :]:
            if max(abs(a[0] - b[0]), abs(a[1] - b[1])) > 2 or not _symmetric(pos, a, b):
                continue
            if _one_mine(pos, a, b, solution) or _one_mine_by_count(pos, a, b, what_if):
                pairs.append((a, b))
    return pairs


def _symmetric(pos: _Position, a: Cell, b: Cell) -> bool:
    """Whether every cell next to ``a`` or ``b`` (but them, flags and certain mines) is next
    to both: then no number, shown or to come, tells them apart."""
    near_a, near_b = set(pos.around(a)), set(pos.around(b))
    return all(pos.known_mine(n) for n in (near_a ^ near_b) - {a, b})


def _one_mine(pos: _Position, a: Cell, b: Cell, solution: Solution) -> bool:
    """One mine between ``a`` and ``b`` in every layout, shown by a number or the total."""
    pair = {a, b}
    for w in set(pos.around(a)) & set(pos.around(b)):
        if pos.board.cells[w] >= 0 and pos.open_around(w) == pair:
            need = int(pos.board.cells[w]) - sum(1 for n in pos.around(w) if pos.known_mine(n))
            if need == 1:
                return True
    left = pos.board.mines - int((pos.board.cells == FLAG).sum()) - len(pos.mines)
    return left == 1 and set(pos.undecided_cells()) == pair


def _one_mine_by_count(pos: _Position, a: Cell, b: Cell, what_if: WhatIf) -> bool:
    """``a`` is a certain mine whatever ``b`` shows when safe (so, both at 1/2, the pair
    always holds exactly one mine)."""
    open_ = pos.open_around(b, but=b)
    base = sum(1 for n in pos.around(b) if pos.known_mine(n))
    seen = False
    for value in range(base, base + len(open_) + 1):
        after = what_if(b, value)
        if after is None or not after.weight:
            continue
        if a not in after.mines:
            return False
        seen = True
    return seen


# ---------------------------------------------------------------- why best guesses


def why_rule(player: Any, move: Cell, guessed: bool) -> dict[str, Any]:
    """The rule behind ``player``'s move, with no numbers yet (the keys of :func:`why_best`)."""
    rule = player.reason if guessed else "certain"
    return {
        "rule": rule,
        "text": RULES.get(rule, rule),
        "cell": list(move),
        "pick": None,
        "runner_up": None,
        "lead": None,
        "progress_weight": player.progress_weight,
        "candidates": 0,
    }


def why_best(player: Any, board: Board, move: Cell, guessed: bool) -> dict[str, Any]:
    """The numbers behind ``player``'s (a :class:`~mscsp.players.best.BestPlayer`) move.

    For a look-ahead guess, every candidate it weighed is probed again in full (the player
    stops a probe as soon as it cannot win, which leaves the runner-up's figures partial):
    ``pick`` and ``runner_up`` each give ``cell``, ``safety`` (1 - mine probability),
    ``survive2`` (the chance to survive this click and the next), ``progress`` (the chance
    the click is safe and makes some cell certain) and ``score`` (``keep`` x (``survive2`` +
    ``progress_weight`` x ``progress``), ``keep`` being the share of looming 50/50 risk the
    click leaves, 1 without any); ``lead`` is the pick's score minus the runner-up's.
    Other rules give the rule and the cell's safety only.

    Args:
        player: The player, right after its ``next_moves`` on ``board``.
        board: The position.
        move: The cell it reveals first.
        guessed: Whether the move is a guess (else a certain safe cell).
    """
    out = why_rule(player, move, guessed)
    considered = player.considered if guessed else None
    if considered is None:
        solution = player.memory.solve(board)
        out["pick"] = {"cell": list(move), "safety": 1.0 - float(solution.probabilities[move])}
        return out
    flagged, solution, cells, keep = considered
    scored, dead = player.lookahead(flagged, solution, cells, keep, math.inf)
    out["candidates"] = len(scored) + len(dead)
    entries = [_entry(value, probe) for value, probe in scored]
    pick = next((e for e in entries if e["cell"] == list(move)), None)
    if pick is None:
        pick = {"cell": list(move), "safety": 1.0 - float(solution.probabilities[move])}
    others = [e for e in entries if e["cell"] != list(move)]
    # The first among equal scores, as the look-ahead orders them (safest, then row-major).
    runner = max(others, key=lambda e: e["score"], default=None)
    out["pick"] = pick
    out["runner_up"] = runner
    if runner is not None and "score" in pick:
        out["lead"] = pick["score"] - runner["score"]
    return out


def _entry(value: float, probe: Any) -> dict[str, Any]:
    return {
        "cell": list(probe.cell),
        "safety": probe.safety,
        "survive2": probe.survive2,
        "progress": probe.progress,
        "score": value,
    }
