"""``mscsp.solve``: exact mine probabilities of a position."""

from __future__ import annotations

from .backends import DEFAULT_BACKEND, Backend, get_backend
from .board import Board
from .constraints import build_system
from .probabilities import Solution, combine
from .reduce import reduce_system


def solve(board: Board, backend: str | Backend = DEFAULT_BACKEND, **options) -> Solution:
    """Computes the exact probability that each covered cell holds a mine.

    Args:
        board: The position (see :func:`mscsp.parse_board`).
        backend: A backend name from :data:`mscsp.backends.BACKENDS` (``"sat:cadical195"``
            style names pick a sub-solver) or a :class:`~mscsp.backends.Backend` instance,
            which callers solving many positions should reuse.
        **options: Passed to the backend (``time_limit``, ``max_solutions``, ...).

    Returns:
        A :class:`~mscsp.probabilities.Solution`.

    Raises:
        InconsistentBoardError: The numbers admit no placement of the mines.
        BackendUnavailableError: The backend's optional package is missing.
        SolverLimitError: The backend hit a limit.
    """
    counter = get_backend(backend, **options)
    system = build_system(board)
    reduction = reduce_system(system)
    counts = [counter.count(component) for component in reduction.components]
    return combine(board, system, reduction, counts)
