"""Why a cell is certain, and why a covered cell has its probability.

A certain cell (safe or mine in every layout) is explained by a *forcing set*: revealed
numbers whose constraints alone leave the cell one value, plus the mine total only when the
numbers alone do not. The set is found by deletion: start from every number linked to the
cell through shared covered cells, then drop numbers one at a time, farthest first, keeping a
drop whenever the cell stays forced. The result is subset-minimal: dropping any one of its
numbers leaves the cell undecided (what ``tests/test_explain.py`` checks with the brute
force).

"Forced" is decided exactly by a small search over the covered cells next to the set's
numbers (:func:`feasible`): the cell is forced to ``v`` when no assignment of those cells
satisfies the set's numbers with the cell at ``not v``. With the total, the covered cells
outside the set absorb the remaining mines, within their number. Pure Python, no optional
package; the search checks its :class:`~mscsp.runtime.deadline.Deadline` every few thousand nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from .bigint import readable, to_decimal
from .board import COVERED, FLAG, Board, check_board, neighbour_sum
from .errors import InvalidInputError, InvalidTypeError
from .probabilities import Solution
from .runtime.deadline import Deadline
from .solver import solve
from .validate import check_pair, check_text, check_time_limit, describe

Cell = tuple[int, int]

#: What a certain cell is.
_VALUES = ("safe", "mine")

#: Rows of numbers (still-needed mines, in order along a line) with a common name.
PATTERNS = {
    (1, 1): "1-1",
    (1, 2): "1-2",
    (2, 1): "1-2",
    (1, 2, 1): "1-2-1",
    (1, 2, 2, 1): "1-2-2-1",
}


@dataclass(frozen=True)
class Explanation:
    """Why one covered cell is certainly safe or certainly a mine.

    Attributes:
        cell: The explained cell.
        value: ``"safe"`` or ``"mine"``.
        numbers: The forcing numbers' cells, nearest first.
        uses_total: Whether the mine total is part of the reason.
        kind: ``"single"`` (one number), ``"subset"`` (two numbers, one's covered cells inside
            the other's), ``"cases"`` (a case analysis) or ``"total"`` (the total alone).
        cases: For ``"cases"``: the covered cells whose values were tried.
        pattern: A well-known pattern's name (``"1-2-1"``, ...) or ``None``.
        steps: The reasoning in words.
    """

    cell: Cell
    value: str
    numbers: tuple[Cell, ...]
    uses_total: bool
    kind: str
    cases: tuple[Cell, ...] = ()
    pattern: str | None = None
    steps: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (cells as ``[row, col]`` lists)."""
        return {
            "cell": list(self.cell),
            "value": self.value,
            "numbers": [list(n) for n in self.numbers],
            "uses_total": self.uses_total,
            "kind": self.kind,
            "cases": [list(c) for c in self.cases],
            "pattern": self.pattern,
            "steps": list(self.steps),
        }


class _Position:
    """The board's numbers with their covered neighbours and the mines they still need."""

    def __init__(self, board: Board):
        self.board = board
        cells = board.cells
        rows, cols = cells.shape
        covered, flagged = cells == COVERED, cells == FLAG
        flags_near = neighbour_sum(flagged).tolist()
        # (only the numbers next to a covered cell: the rest of the board is never read)
        numbers = np.argwhere((cells >= 0) & (neighbour_sum(covered) > 0)).tolist()
        is_covered = covered.tolist()
        self.needs: dict[Cell, int] = {}
        self.around: dict[Cell, tuple[Cell, ...]] = {}
        for r, c in numbers:
            self.needs[(r, c)] = int(cells[r, c]) - flags_near[r][c]
            self.around[(r, c)] = tuple(
                (rr, cc)
                for rr in range(max(r - 1, 0), min(r + 2, rows))
                for cc in range(max(c - 1, 0), min(c + 2, cols))
                if is_covered[rr][cc] and (rr, cc) != (r, c)
            )
        self.covered = int(covered.sum())
        self.left = board.mines - int(flagged.sum())

    def linked(self, cell: Cell) -> list[Cell]:
        """Numbers joined to ``cell`` through shared covered cells, transitively."""
        by_cell: dict[Cell, list[Cell]] = {}
        for number, cov in self.around.items():
            for c in cov:
                by_cell.setdefault(c, []).append(number)
        seen: set[Cell] = set()
        todo = list(by_cell.get(cell, []))
        while todo:
            number = todo.pop()
            if number in seen:
                continue
            seen.add(number)
            for c in self.around[number]:
                todo.extend(n for n in by_cell.get(c, []) if n not in seen)
        return sorted(seen)


def feasible(
    pos: _Position,
    numbers: list[Cell],
    cell: Cell,
    mine: bool,
    use_total: bool,
    deadline: Deadline | None = None,
) -> bool:
    """Whether some layout satisfies ``numbers`` (and the total) with ``cell`` = ``mine``.

    A depth-first search over the numbers' cells in row-major order, by the engine
    (:mod:`mscsp.engine._feasible`), which stops every 4,096 nodes for ``deadline``'s check.
    """
    from .engine import compiled

    variables = sorted({c for n in numbers for c in pos.around[n]} | {cell})
    index = {c: i for i, c in enumerate(variables)}
    members = [[index[c] for c in pos.around[n]] for n in numbers]
    search = compiled.Feasibility(
        len(variables), members, [pos.needs[n] for n in numbers], (index[cell], int(mine))
    )
    if not search.possible:
        return False
    others = pos.covered - len(variables)  # covered cells no kept number sees
    while (found := search.walk(use_total, pos.left, others)) is None:
        if deadline is not None:
            deadline.check()
    return found


def _forced(pos, numbers, cell, value, use_total, deadline) -> bool:
    return not feasible(pos, numbers, cell, value != "mine", use_total, deadline)


def _distance(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def explain_cell(
    board: Board,
    cell: Cell,
    value: str,
    deadline: Deadline | None = None,
    position: _Position | None = None,
) -> Explanation:
    """The forcing set of a cell known to be certain (``value``: ``"safe"`` or ``"mine"``).

    ``position`` is the board's numbers, when explaining several cells of one board.

    Raises:
        InvalidTypeError: ``board`` is not a Board, or ``cell`` not a pair of integers.
        InvalidInputError: ``cell`` is off the board, ``value`` neither ``"safe"`` nor
            ``"mine"``, or the cell is not forced to ``value`` by the board.
    """
    cell = check_pair(check_board(board).shape, cell)
    if value not in _VALUES:
        raise InvalidInputError(f"value must be 'safe' or 'mine', got {describe(value)}")
    pos = position or _Position(board)
    linked = pos.linked(cell)
    # Most cells are forced by numbers close by: try the numbers within distance 2, 3, ...
    # before the whole linked set, so that the search and the deletions stay small.
    start = linked
    for radius in (2, 3, 4, 6, 9):
        near = [n for n in linked if _distance(n, cell) <= radius]
        if len(near) < len(linked) and _forced(pos, near, cell, value, False, deadline):
            start = near
            break
    use_total = not _forced(pos, start, cell, value, False, deadline)
    if use_total:
        start = sorted(pos.needs)  # the total couples every number of the board
        if not _forced(pos, start, cell, value, True, deadline):
            raise InvalidInputError(f"cell {cell} is not certainly {value}")
    kept = sorted(start, key=lambda n: _distance(n, cell))
    for number in sorted(start, key=lambda n: (-_distance(n, cell), n)):
        trial = [n for n in kept if n != number]
        if _forced(pos, trial, cell, value, use_total, deadline):
            kept = trial
    return _describe(pos, cell, value, kept, use_total)


def _describe(
    pos: _Position, cell: Cell, value: str, numbers: list[Cell], use_total: bool
) -> Explanation:
    """Kind, pattern and steps in words of a forcing set."""
    name = f"({cell[0]},{cell[1]})"
    total = f"the {pos.left} mine(s) left among the {pos.covered} covered cells"
    if not numbers:
        reason = "no mine is left" if value == "safe" else "every covered cell is a mine"
        step = f"By {total}: {reason}, so {name} is {'safe' if value == 'safe' else 'a mine'}."
        return Explanation(cell, value, (), True, "total", steps=(step,))
    words = [_number_words(pos, n) for n in numbers]
    cases: tuple[Cell, ...] = ()
    if len(numbers) == 1 and not use_total:
        kind = "single"
        n = numbers[0]
        if pos.needs[n] == 0:
            steps = [f"{words[0]} has all its mines, so its covered neighbours are safe."]
        else:
            steps = [f"{words[0]} needs a mine on each covered neighbour, so {name} is a mine."]
    elif len(numbers) == 2 and not use_total and _nested(pos, *numbers):
        kind = "subset"
        small, big = sorted(numbers, key=lambda n: len(pos.around[n]))
        rest = [c for c in pos.around[big] if c not in pos.around[small]]
        extra = pos.needs[big] - pos.needs[small]
        steps = [
            f"The covered neighbours of {_number_words(pos, small)} all touch "
            f"{_number_words(pos, big)}.",
            f"So {big}'s other covered neighbours {_cells(rest)} hold {extra} mine(s) "
            f"of {len(rest)}: {name} is {'safe' if value == 'safe' else 'a mine'}.",
        ]
    else:
        kind = "cases"
        cases = tuple(sorted({c for n in numbers for c in pos.around[n]} - {cell}))
        steps = [
            f"Numbers: {'; '.join(words)}.",
            f"Trying every value of the covered cells {_cells(cases)}: no layout that "
            f"satisfies these numbers{' and ' + total if use_total else ''} puts "
            f"{'a mine' if value == 'safe' else 'no mine'} on {name}.",
        ]
    steps = [step[0].upper() + step[1:] for step in steps]
    return Explanation(
        cell,
        value,
        tuple(numbers),
        use_total,
        kind,
        cases,
        None if use_total else _pattern(pos, numbers),
        tuple(steps),
    )


def _number_words(pos: _Position, n: Cell) -> str:
    shown = int(pos.board.cells[n])
    need = pos.needs[n]
    more = "" if need == shown else f" (needs {need} more)"
    return f"the {shown} at ({n[0]},{n[1]}){more} with {len(pos.around[n])} covered neighbours"


def _cells(cells) -> str:
    return ", ".join(f"({r},{c})" for r, c in cells) or "none"


def _nested(pos: _Position, a: Cell, b: Cell) -> bool:
    sa, sb = set(pos.around[a]), set(pos.around[b])
    return sa <= sb or sb <= sa


def _pattern(pos: _Position, numbers: list[Cell]) -> str | None:
    """The pattern's name when the numbers stand in a line, adjacent, needs as in PATTERNS."""
    if len(numbers) < 2:
        return None
    rows = {r for r, _ in numbers}
    cols = {c for _, c in numbers}
    if len(rows) == 1:
        line = sorted(numbers, key=lambda n: n[1])
        steps = [b[1] - a[1] for a, b in zip(line, line[1:], strict=False)]
    elif len(cols) == 1:
        line = sorted(numbers)
        steps = [b[0] - a[0] for a, b in zip(line, line[1:], strict=False)]
    else:
        return None
    if any(s != 1 for s in steps):
        return None
    return PATTERNS.get(tuple(pos.needs[n] for n in line))


def explain_certain(
    board: Board,
    cells: list[Cell] | None = None,
    solution: Solution | None = None,
    time_limit: float | None = None,
) -> list[Explanation]:
    """Explanations of the certain cells of ``board`` (all of them, or those in ``cells``).

    Args:
        board: The position.
        cells: Cells to explain; each must be certain. ``None``: every certain cell.
        solution: The board's solution if already computed.
        time_limit: Seconds for the whole call (:class:`~mscsp.errors.SolverLimitError`).

    Raises:
        InvalidTypeError: ``board`` is not a Board, or a cell not a pair of integers.
        InvalidInputError: A cell of ``cells`` is off the board or not certain.
    """
    check_board(board)
    check_time_limit(time_limit)
    if cells is not None:
        cells = [check_pair(board.shape, cell) for cell in _cell_list(cells)]
    if solution is not None:
        _check_solution(solution)
    deadline = Deadline(time_limit)
    solution = solution or solve(board, time_limit=time_limit)
    certain = {c: "safe" for c in solution.safe} | {c: "mine" for c in solution.mines}
    wanted = sorted(certain) if cells is None else cells
    position = _Position(board)
    out = []
    for cell in wanted:
        if cell not in certain:
            raise InvalidInputError(f"cell {cell[0]},{cell[1]} is not certain")
        out.append(explain_cell(board, cell, certain[cell], deadline, position))
    return out


def explain_probability(solution: Solution, cell: Cell) -> dict[str, Any]:
    """Why a covered cell has its probability: layout counts a player can read.

    Returns:
        A JSON-able dict: ``cell``, ``probability`` (``"num/den"``), ``layouts`` (all
        layouts consistent with the board) and ``mine_layouts`` (those with a mine on the
        cell), ``component`` (for a frontier cell: its local ``layouts`` ignoring the total,
        how many put a mine on the cell, and the cells of the component) and ``steps``.

    Raises:
        InvalidTypeError: ``solution`` is not a Solution, or ``cell`` not a pair of integers.
        InvalidInputError: ``cell`` is off the board or not covered.
    """
    _check_solution(solution)
    cell = check_pair(solution.board.shape, cell)
    exact = solution.exact.get(cell)
    if exact is None:
        raise InvalidInputError(f"cell {cell[0]},{cell[1]} is not covered")
    weight = solution.weight
    mine_layouts = int(exact * weight)  # a whole number: exact = mine layouts / weight
    steps = [
        f"({cell[0]},{cell[1]}) holds a mine in {readable(mine_layouts)} of the "
        f"{readable(weight)} equally likely layouts consistent with the board: "
        f"{readable(exact)} = {float(exact):.4f}."
    ]
    info: dict[str, Any] = {
        "cell": list(cell),
        "probability": f"{to_decimal(exact.numerator)}/{to_decimal(exact.denominator)}",
        "layouts": to_decimal(weight),
        "mine_layouts": to_decimal(mine_layouts),
        "component": None,
    }
    for component, count in solution.components:
        for g, group in enumerate(component.cells):
            if cell in group:
                local = count.total
                hits = sum(count.cell_counts[g])
                info["component"] = {
                    "cells": component.n_cells,
                    "layouts": to_decimal(local),
                    "mine_layouts": to_decimal(hits),
                }
                steps.append(
                    f"Its part of the frontier ({component.n_cells} cells) has "
                    f"{readable(local)} layouts on its own; {readable(hits)} of them put a mine "
                    f"on it ({readable(Fraction(hits, local)) if local else 0} unweighted)."
                )
                shares = _mine_total_shares(solution, component, count, g)
                if shares is None:
                    steps.append(
                        "Each local layout is weighted by the ways to place the remaining "
                        "mines on the rest of the board."
                    )
                else:
                    info["component"]["by_mines"] = shares
                    steps.append(
                        "Each local layout is weighted by the ways to place the remaining "
                        "mines on the rest of the board: "
                        + "; ".join(
                            f"with {s['mines']} mine(s) here, {s['layouts']} layouts "
                            f"({s['mine_layouts']} with a mine on it) carry "
                            f"{100 * s['share']:.1f} % of all layouts"
                            for s in shares
                        )
                        + "."
                    )
    if info["component"] is None:
        steps.append(
            "It touches no revealed number: every such cell shares the same probability, "
            "the mines expected off the frontier divided by the cells there."
        )
    info["steps"] = steps
    return info


def parse_cells(specs: tuple[str, ...] | list[str], board: Board) -> list[Cell] | None:
    """Cells named ``"R,C"`` (``None`` for ``"all"``: every certain cell), checked on ``board``.

    Raises:
        InvalidTypeError: ``specs`` is not a list of strings, or ``board`` not a Board.
        InvalidInputError: A malformed spec, a cell off the board or not covered.
    """
    check_board(board)
    specs = [check_text(spec, "cell") for spec in _cell_list(specs)]
    if "all" in specs:
        return None
    cells = []
    rows, cols = board.shape
    for spec in specs:
        try:
            r, c = (int(x) for x in spec.split(","))
        except ValueError:
            raise InvalidInputError(f"cell {spec!r}: give ROW,COL (from 0) or all") from None
        if not (0 <= r < rows and 0 <= c < cols):
            raise InvalidInputError(f"cell {spec}: off the {rows}x{cols} board")
        if board.cells[r, c] != COVERED:
            raise InvalidInputError(f"cell {spec}: not a covered cell")
        cells.append((r, c))
    return cells


def explain(
    board: Board, solution: Solution, cells: list[Cell] | None, time_limit: float | None = None
) -> list[dict[str, Any]]:
    """JSON-able explanations: certain cells by their forcing sets, others by layout counts.

    Args:
        board: The position.
        solution: Its exact solution.
        cells: The cells to explain, or ``None`` for every certain cell.
        time_limit: Seconds for the whole call.

    Raises:
        InvalidTypeError: An argument of the wrong type.
        InvalidInputError: A cell off the board or not covered.
    """
    check_board(board)
    _check_solution(solution)
    if cells is not None:
        cells = [check_pair(board.shape, cell) for cell in _cell_list(cells)]
    certain = set(solution.safe) | set(solution.mines)
    if cells is None:
        return [e.to_json() for e in explain_certain(board, None, solution, time_limit)]
    sure = [c for c in cells if c in certain]
    found = {e.cell: e.to_json() for e in explain_certain(board, sure, solution, time_limit)}
    return [found[c] if c in found else explain_probability(solution, c) for c in cells]


def _check_solution(solution: Any) -> None:
    if not isinstance(solution, Solution):
        raise InvalidTypeError(f"solution must be a mscsp.Solution, got {describe(solution)}")


def _cell_list(cells: Any) -> list:
    """``cells`` (a list or tuple of cells) as a list; anything else is refused."""
    if not isinstance(cells, list | tuple):
        raise InvalidTypeError(f"cells must be a list of cells, got {describe(cells)}")
    return list(cells)


def _mine_total_shares(
    solution: Solution, component: Any, count: Any, group: int
) -> list[dict[str, Any]] | None:
    """How the mine total weighs a component's layouts, by the mines ``k`` it holds.

    The weight of ``k`` is the ways the other components and the unconstrained cells take
    the remaining mines. Rebuilt from the board and checked against ``solution.weight``;
    ``None`` when the rebuild does not match (a shape this summary does not cover).
    """
    board = solution.board
    in_components = {c for comp, _ in solution.components for cells in comp.cells for c in cells}
    certain = set(solution.safe) | set(solution.mines)
    pos = _Position(board)
    frontier = {c for cov in pos.around.values() for c in cov}
    covered = {tuple(map(int, rc)) for rc in np.argwhere(board.cells == COVERED)}
    free = len(covered - frontier - in_components - certain)
    left = pos.left - sum(1 for c in solution.mines if c not in in_components)

    def product(polys: list[tuple[int, ...]]) -> list[int]:
        out = [1]
        for poly in polys:
            out = [
                sum(out[i] * poly[k - i] for i in range(len(out)) if 0 <= k - i < len(poly))
                for k in range(len(out) + len(poly) - 1)
            ]
        return out

    others = product([c.counts for comp, c in solution.components if comp is not component])
    rest = [
        sum(w * comb(free, left - k - s) for s, w in enumerate(others) if left - k - s >= 0)
        for k in range(len(count.counts))
    ]
    weights = [c * r for c, r in zip(count.counts, rest, strict=True)]
    if sum(weights) != solution.weight or solution.weight == 0:
        return None
    return [
        {
            "mines": k,
            "layouts": to_decimal(count.counts[k]),
            "mine_layouts": to_decimal(count.cell_counts[group][k]),
            "share": weights[k] / solution.weight,
        }
        for k in range(len(weights))
        if count.counts[k]
    ]
