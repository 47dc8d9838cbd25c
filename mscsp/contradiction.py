"""Which number a contradiction comes from, for boards no mine layout fits, and why.

The solver finds that a board is impossible deep inside propagation, counting or the final
combination, where cells are no longer at hand. This module names the number that fails
after the fact, on the error path only: it bisects over the revealed numbers in row-major
order, turning the numbers past a prefix back into covered cells. That only relaxes the
board, so the prefixes go from consistent (no numbers) to inconsistent (all of them), and
the number that first breaks them is the one named. When the numbers agree with each other
but not with the board's mine count, the prefixes are checked with the count, and the
message says how many mines the numbers up to the one named need or leave room for.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .backends import Backend, get_backend
from .board import COVERED, FLAG, Board
from .constraints import build_system
from .errors import InconsistentBoardError, SolverLimitError, counted, format_cell
from .reduce import reduce_system

Cell = tuple[int, int]


def numbers_consistent(board: Board, counter: Backend | None = None) -> bool:
    """Whether some placement of mines satisfies every revealed number, whatever the total."""
    counter = counter or get_backend("dss")
    try:
        reduction = reduce_system(build_system(board))
    except InconsistentBoardError:
        return False
    return all(any(counter.count(component).counts) for component in reduction.components)


def board_consistent(board: Board, counter: Backend | None = None) -> bool:
    """Whether some placement of the board's mines satisfies every revealed number."""
    from .solver import solve  # (the solver imports the backends this module needs too)

    try:
        solve(board, counter or get_backend("dss"))
    except InconsistentBoardError:
        return False
    return True


def mine_range(board: Board, counter: Backend | None = None) -> tuple[int, int]:
    """The fewest and the most unflagged mines a layout satisfying the numbers can hold.

    Raises:
        InconsistentBoardError: The numbers contradict each other.
    """
    counter = counter or get_backend("dss")
    system = build_system(board)
    reduction = reduce_system(system)
    fewest = most = sum(mines for _, mines in reduction.fixed)
    for component in reduction.components:
        held = [k for k, ways in enumerate(counter.count(component).counts) if ways]
        if not held:
            raise InconsistentBoardError("the revealed numbers contradict each other")
        fewest, most = fewest + held[0], most + held[-1]
    return fewest, most + system.n_unconstrained


def locate_contradiction(board: Board, counter: Backend | None = None) -> Cell | None:
    """The number the board's contradiction comes from (a flag where there are more flags
    than mines), or ``None`` if the board is consistent.

    Args:
        board: A position that the solver reported inconsistent.
        counter: Backend used to count components (default ``dss``).
    """
    found = diagnose(board, counter)
    return None if found is None else found.cell


def explain_contradiction(
    board: Board, error: InconsistentBoardError, counter: Backend | None = None
) -> InconsistentBoardError:
    """The error to report for a board the solver found inconsistent.

    ``error`` itself where it names a cell already (the checks that raise it name the
    number that fails); else an error that names the number that fails and says why.

    Raises:
        SolverLimitError: ``counter`` hit its limit while looking (the caller may then
            report ``error`` as it is: the verdict stands).
    """
    if error.cell is not None:
        return error
    return diagnose(board, counter) or error


def explained(
    board: Board, error: InconsistentBoardError, counter: Backend | None = None
) -> InconsistentBoardError:
    """:func:`explain_contradiction`, or ``error`` as it is where ``counter`` hits its limit
    first (the verdict stands; only its explanation is missing): what a command reports."""
    try:
        return explain_contradiction(board, error, counter)
    except SolverLimitError:
        return error


def diagnose(board: Board, counter: Backend | None = None) -> InconsistentBoardError | None:
    """Why ``board`` has no layout, naming the number that fails (see the module), or
    ``None`` where it has one."""
    counter = counter or get_backend("dss")
    cells = board.cells
    flags = np.argwhere(cells == FLAG)
    if len(flags) > board.mines:
        first = (int(flags[0, 0]), int(flags[0, 1]))
        return InconsistentBoardError(f"{len(flags)} flags but only {board.mines} mines", first)
    numbers = np.argwhere(cells >= 0)
    if not len(numbers):
        return None

    def prefix(k: int) -> Board:
        """The board with the numbers past the first ``k`` covered again."""
        relaxed = cells.copy()
        rest = numbers[k:]
        relaxed[rest[:, 0], rest[:, 1]] = COVERED
        return Board(relaxed, board.mines)

    if not numbers_consistent(board, counter):
        k = _first_failing(len(numbers), lambda k: numbers_consistent(prefix(k), counter))
        cell = (int(numbers[k - 1, 0]), int(numbers[k - 1, 1]))
        return InconsistentBoardError(
            f"{_numbers_up_to(board, cell, k)} cannot all be met: no layout of mines "
            "satisfies them",
            cell,
        )
    if board_consistent(board, counter):
        return None
    k = _first_failing(len(numbers), lambda k: board_consistent(prefix(k), counter))
    cell = (int(numbers[k - 1, 0]), int(numbers[k - 1, 1]))
    return InconsistentBoardError(_total_message(board, prefix(k), cell, k, counter), cell)


def _first_failing(n: int, holds: Callable[[int], bool]) -> int:
    """The least ``k`` in 1..n with ``holds(k)`` false, given ``holds(0)`` true,
    ``holds(n)`` false and ``holds`` monotone (bisection)."""
    low, high = 0, n  # holds(low) and not holds(high)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if holds(mid) else (low, mid)
    return high


def _numbers_up_to(board: Board, cell: Cell, k: int) -> str:
    """ "the 2 at (3, 4)", and the numbers before it when there are any."""
    named = f"the {int(board.cells[cell])} at {format_cell(cell)}"
    return named if k == 1 else f"{named} and the numbers before it (row by row)"


def _total_message(board: Board, prefix: Board, cell: Cell, k: int, counter: Backend) -> str:
    """Why the numbers up to ``cell`` (the board ``prefix``) do not fit the mine count."""
    fewest, most = mine_range(prefix, counter)
    flags = int(np.count_nonzero(board.cells == FLAG))
    left = board.mines - flags
    who = _numbers_up_to(board, cell, k)
    one = k == 1  # (the verb agrees with one number or several)
    besides = " besides the flags" if flags else ""
    tally = f" ({counted(board.mines, 'mine')}, {counted(flags, 'flag')})" if flags else ""
    if left < fewest:
        if flags:
            have = (
                "none is left" if not left else f"only {left} {'is' if left == 1 else 'are'} left"
            )
        else:
            have = f"the board has only {left}"
        need = "needs" if one else "need"
        return f"{who} {need} at least {counted(fewest, 'mine')}{besides}, but {have}{tally}"
    if left > most:
        room = "leaves" if one else "leave"
        have = f"{left} {'is' if left == 1 else 'are'} left" if flags else f"the board has {left}"
        if most == 0:
            space = f"no room for {'another' if flags else 'any'} mine"
        else:
            space = f"room for at most {counted(most, 'mine')}{besides}"
        return f"{who} {room} {space}, but {have}{tally}"
    allow = "allows" if one else "allow"
    return f"{who} {allow} {fewest} to {most} mines{besides}, but not exactly {left}{tally}"
