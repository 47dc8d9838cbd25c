"""``mscsp.solve``: exact mine probabilities of a position.

The pipeline, one module per stage:

1. :func:`~mscsp.constraints.build_system`: the frontier's cells grouped by the numbers they
   touch, one constraint per number.
2. :func:`~mscsp.reduce.reduce_system`: propagation fixes what it can; the rest splits into
   independent components.
3. A backend (:mod:`mscsp.backends`) counts each component's solutions by number of mines.
4. :func:`~mscsp.probabilities.combine` weighs the counts with the ways to place the other
   mines on the cells no number touches.

On small boards, when numba is installed, :mod:`mscsp.engine.compiled` does all four in one
compiled kernel and gives the same :class:`~mscsp.probabilities.Solution`.

Every stage honours one time limit (``time_limit``) and grows with the frontier, not the
board's area or the frontier's square.
"""

from __future__ import annotations

from collections import OrderedDict

from .backends import DEFAULT_BACKEND, Backend, get_backend
from .backends.dss import DssBackend
from .board import Board, check_board
from .constraints import SMALL_BOARD, Component, ComponentCount, build_system
from .engine import compiled
from .errors import InvalidTypeError, MemoryLimitError
from .probabilities import Solution, combine
from .reduce import reduce_system
from .runtime.deadline import Deadline
from .validate import check_int, describe


def kernel_takes(counter: Backend, board: Board) -> bool:
    """Whether ``board`` counted by ``counter`` is the engine's, loaded or not: the default
    counter without a time limit, a small board (``best``'s probes of it run on the engine,
    uncompiled until the kernel is loaded)."""
    return (
        type(counter) is DssBackend
        and counter.time_limit is None
        and board.cells.size <= SMALL_BOARD
    )


def kernel_solves(counter: Backend, board: Board) -> bool:
    """Whether :func:`solve` with ``counter`` tries the compiled kernel on ``board``:
    :func:`kernel_takes`, the kernel loaded (this counts towards its warm-up, see
    :func:`mscsp.engine.compiled.ready`)."""
    return kernel_takes(counter, board) and compiled.ready()


def solve(board: Board, backend: str | Backend = DEFAULT_BACKEND, **options) -> Solution:
    """Computes the exact probability that each covered cell holds a mine.

    Args:
        board: The position (see :func:`mscsp.parse_board`).
        backend: A backend name from :data:`mscsp.backends.BACKENDS` (``"sat:cadical195"``
            style names pick a sub-solver) or a :class:`~mscsp.backends.Backend` instance,
            which callers solving many positions should reuse (wrap it in a
            :class:`CountCache` to reuse counts between the positions of a game).
        **options: Passed to the backend (``time_limit``, ``max_solutions``, ...).
            ``time_limit`` (seconds) bounds the whole solve, every stage included.

    Returns:
        A :class:`~mscsp.probabilities.Solution`.

    Raises:
        InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board` (the message says
            how to make one), or ``backend`` neither a name nor a backend.
        InvalidInputError: An unknown backend or option, or a bad option value.
        InconsistentBoardError: The numbers admit no placement of the mines.
        BackendUnavailableError: The backend's optional package is missing.
        SolverLimitError: The time limit or a backend's limit was hit, or the position
            needs more memory than there is.
    """
    check_board(board)
    counter = get_backend(backend, **options)
    # Small boards for the default counter go through one compiled kernel (numba): there
    # the stages below cost a few hundred interpreted
    # steps, which no rewrite in Python removed. It gives the same Solution, and hands
    # back (None) every board it cannot answer exactly, which the stages below then do.
    # With a time limit the stages below answer, as they check it as they go. The kernel is
    # loaded only after a warm-up of small solves (see mscsp.engine.compiled.WARMUP).
    if kernel_solves(counter, board):
        solution = compiled.solve_small(board)
        if solution is not None:
            return solution
    deadline = Deadline(counter.time_limit)
    try:
        system = build_system(board, deadline)
        reduction = reduce_system(system, deadline)
        counts = []
        # Applied, the solve's deadline bounds each count too: a component gets only what
        # is left of the solve's time, not a time limit of its own.
        with deadline.applied():
            for component in reduction.components:
                deadline.check()
                counts.append(counter.count(component))
        return combine(board, system, reduction, counts, deadline)
    except MemoryError:
        raise MemoryLimitError("the position needs more memory than this process may use") from None


class CountCache(Backend):
    """Remembers the counts of components already counted, around any backend.

    A click changes one or two components; the others come back unchanged on the next
    solve and are not counted again. Counts depend only on a component's group sizes and
    constraints, which :func:`~mscsp.reduce.reduce_system` states the same way wherever the
    component lies on the board, so the same shape met in another game is found too. The
    least recently used entries go first once ``maxsize`` is reached. Inexact counts
    (sampled after a limit) are not kept.

    Args:
        inner: The backend that counts what the cache has not seen.
        maxsize: Components kept.

    Raises:
        InvalidTypeError: ``inner`` is not a backend, or ``maxsize`` not an integer.
        InvalidInputError: ``maxsize`` is negative.

    Example:
        >>> counter = CountCache(get_backend("dss"))
        >>> # solve(board, counter) for each position of a game
    """

    name = "cached"

    def __init__(self, inner: Backend, maxsize: int = 8192):
        if not isinstance(inner, Backend):
            raise InvalidTypeError(f"inner must be a mscsp.backends.Backend, got {describe(inner)}")
        maxsize = check_int(maxsize, "maxsize")
        super().__init__(time_limit=inner.time_limit, max_solutions=inner.max_solutions)
        self.inner = inner
        self.maxsize = maxsize
        self.hits = 0
        self.entries: OrderedDict[tuple, ComponentCount] = OrderedDict()

    def count(self, component: Component) -> ComponentCount:
        key = (component.sizes, component.constraints)
        found = self.entries.get(key)
        if found is not None:
            self.hits += 1
            self.entries.move_to_end(key)
            return found
        found = self.inner.count(component)
        if found.exact:
            self.entries[key] = found
            if len(self.entries) > self.maxsize:
                self.entries.popitem(last=False)
        return found
