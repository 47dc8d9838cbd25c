"""``bp``: loopy belief propagation on the group / number factor graph.

The board is first stated and propagated exactly (:func:`mscsp.constraints.build_system`,
:func:`mscsp.reduce.reduce_system`): the groups every solution agrees on are settled there.
What is left is a factor graph: one variable per open group (its mine count ``x`` in
``0..size``, prior weight ``C(size, x)``: the cell layouts it stands for), one factor per
number (its groups' mines sum to what it still needs).

**The total.** The global mine count is handled by a fixed point over the mine density:
every group's prior carries a fugacity ``lambda ** x`` and every unconstrained cell is a
mine with probability ``lambda / (1 + lambda)``. After each sweep of messages ``lambda`` is
set (by bisection on ``log lambda``, given the incoming messages) so that the expected mines
of the frontier plus the unconstrained cells equal the mines left. This is the grand
canonical ensemble: on a tree-shaped frontier BP's marginals are the exact marginals at
that ``lambda``, which differ from the exact (canonical) odds only through the spread of the
total (small when many unconstrained cells share it; largest when none are left).

Messages are damped (``new = (1 - d) * computed + d * old``), capped at ``ITERS`` sweeps and
stopped at the time limit; :attr:`BpEstimator.report` says how many sweeps ran, the last
change and whether it converged. Numpy only, every factor of a sweep at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..board import Board
from ..constraints import build_system
from ..errors import InconsistentBoardError, InvalidInputError, InvalidTypeError
from ..reduce import reduce_system
from ..runtime.deadline import Deadline
from .base import Estimator, EstimatorKind, on_board, whole_arg

#: Sweeps when the spec gives no ``ITERS``.
DEFAULT_ITERS = 300
#: Most sweeps a spec may ask for (a clock stops it sooner; a name cannot ask for more).
MAX_ITERS = 1_000_000
#: Weight of the old message in each update.
DAMPING = 0.5
#: Converged once no message entry (nor ``log lambda``) moves more than this in a sweep.
TOLERANCE = 1e-7
#: Bounds of ``log lambda`` (a density of 1e-26 .. 1 - 1e-26: all safe .. all mines).
_LOG_BOUND = 60.0


@dataclass(frozen=True)
class FactorGraph:
    """The open part of a board after exact propagation.

    Attributes:
        sizes: Cells of each open group.
        cells: ``(n, 2)`` board cells of each open group.
        factors: ``(groups, mines)`` per number left open (indices into :attr:`sizes`).
        free: ``(n, 2)`` covered cells next to no number.
        settled: ``(cells, probability)`` of the groups propagation decided (0 or 1).
        left: Mines for the open groups and the free cells together.
    """

    sizes: np.ndarray
    cells: list[np.ndarray]
    factors: list[tuple[tuple[int, ...], int]]
    free: np.ndarray
    settled: list[tuple[np.ndarray, float]]
    left: int

    @property
    def n_free(self) -> int:
        return len(self.free)

    def paint(self, board: Board, group_p: np.ndarray, free_p: float) -> np.ndarray:
        """Per-cell probabilities on the board from per-group ones (``on_board`` form)."""
        out = np.zeros(board.shape)
        for cells, p in self.settled:
            out[cells[:, 0], cells[:, 1]] = p
        for cells, p in zip(self.cells, group_p.tolist(), strict=True):
            out[cells[:, 0], cells[:, 1]] = p
        if self.n_free:
            out[self.free[:, 0], self.free[:, 1]] = free_p
        return on_board(board, out)


def factor_graph(board: Board, deadline: Deadline | None = None) -> FactorGraph:
    """The board's open groups, their numbers and the free cells, after exact propagation.

    Raises:
        InconsistentBoardError: Propagation finds a contradiction, or the mines left do not
            fit the open cells.
        SolverLimitError: ``deadline`` passed.
    """
    system = build_system(board, deadline)
    reduction = reduce_system(system, deadline)
    fixed = dict(reduction.fixed)
    open_groups = [g for g in range(len(system.sizes)) if g not in fixed]
    local = {g: i for i, g in enumerate(open_groups)}
    factors = [(tuple(local[g] for g in groups), t) for groups, t in reduction.residual.items()]
    sizes = np.array([system.sizes[g] for g in open_groups], dtype=np.int64)
    free = np.argwhere(system.unconstrained).reshape(-1, 2)
    left = system.remaining - sum(fixed.values())
    if not 0 <= left <= int(sizes.sum()) + len(free):
        raise InconsistentBoardError(
            f"no placement of the {system.remaining} unflagged mines satisfies the numbers"
        )
    return FactorGraph(
        sizes=sizes,
        cells=[np.array(system.cells[g], dtype=np.intp).reshape(-1, 2) for g in open_groups],
        factors=factors,
        free=free,
        settled=[
            (np.array(system.cells[g], dtype=np.intp).reshape(-1, 2), m / system.sizes[g])
            for g, m in fixed.items()
            if system.sizes[g]
        ],
        left=left,
    )


@dataclass(frozen=True)
class BpReport:
    """How one run of belief propagation ended.

    Attributes:
        iterations: Sweeps run.
        change: Largest move of a message entry (or of ``log lambda``) in the last sweep.
        converged: Whether ``change`` fell below the tolerance.
        density: The mine probability of an unconstrained cell (``lambda / (1 + lambda)``).
    """

    iterations: int
    change: float
    converged: bool
    density: float


class Edges:
    """The factor graph as arrays: every factor padded to the largest arity.

    Attributes:
        group: The group of each edge; edges run factor by factor, in the order of
            :attr:`FactorGraph.factors` and of each factor's groups.
        factor: The factor (number) of each edge.
        depth: Values a group's mine count takes (the largest group's size + 1).
        log_ways: ``(groups, depth)``: ``log C(size, x)`` (``-inf`` past the size).
    """

    def __init__(self, graph: FactorGraph):
        self.sizes = graph.sizes
        self.n_groups = len(graph.sizes)
        self.depth = int(graph.sizes.max(initial=1)) + 1  # values a group's count takes
        arity = max((len(g) for g, _ in graph.factors), default=1)
        n_factors = len(graph.factors)
        self.slots = np.full((n_factors, arity), -1, dtype=np.int64)  # edge per slot
        groups: list[int] = []
        for f, (members, _) in enumerate(graph.factors):
            self.slots[f, : len(members)] = np.arange(len(groups), len(groups) + len(members))
            groups.extend(members)
        self.group = np.array(groups, dtype=np.int64)
        self.factor = np.repeat(
            np.arange(n_factors, dtype=np.int64), [len(g) for g, _ in graph.factors]
        )
        self.targets = np.array([t for _, t in graph.factors], dtype=np.int64)
        self.width = int(self.targets.max(initial=0)) + 1  # partial sums that matter
        x = np.arange(self.depth)
        with np.errstate(divide="ignore"):
            self.log_ways = np.where(
                x[None, :] <= self.sizes[:, None],
                _log_comb(self.sizes[:, None], np.minimum(x[None, :], self.sizes[:, None])),
                -np.inf,
            )


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``log C(n, k)`` elementwise (``0 <= k <= n``)."""
    lg = np.vectorize(math.lgamma, otypes=[float])
    return lg(n + 1) - lg(k + 1) - lg(n - k + 1)


def _convolve(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """Row-wise convolution of ``a`` (n, width) with ``b`` (n, depth), cut to ``width``."""
    out = np.zeros_like(a)
    for x in range(min(b.shape[1], width)):
        out[:, x:] += a[:, : width - x] * b[:, x : x + 1]
    return out


def _factor_messages(edges: Edges, to_factor: np.ndarray) -> np.ndarray:
    """Every factor's message to each of its groups (unnormalised), from the groups'."""
    n_factors, arity = edges.slots.shape
    width, depth = edges.width, edges.depth
    pad = np.zeros((1, depth))
    pad[0, 0] = 1.0  # an empty slot holds 0 mines
    inputs = np.concatenate([to_factor, pad])[edges.slots]  # (F, arity, depth); -1 -> pad
    start = np.zeros((n_factors, width))
    start[:, 0] = 1.0
    prefix, suffix = [start], [start]
    for j in range(arity):
        prefix.append(_convolve(prefix[-1], inputs[:, j], width))
        suffix.append(_convolve(suffix[-1], inputs[:, arity - 1 - j], width))
    suffix.reverse()  # suffix[j]: the sum's distribution over slots j..arity-1
    # out[f, j, x] = sum_a prefix[j][f, a] * suffix[j + 1][f, t_f - x - a]
    x = np.arange(depth)[:, None]
    a = np.arange(width)[None, :]
    index = edges.targets[:, None, None] - x[None] - a[None]  # (F, depth, width)
    valid = index >= 0
    index = np.where(valid, index, 0)
    out = np.empty((n_factors, arity, depth))
    for j in range(arity):
        rest = np.take_along_axis(
            np.broadcast_to(suffix[j + 1][:, None, :], index.shape), index, axis=2
        )
        out[:, j] = np.einsum("fa,fxa->fx", prefix[j], np.where(valid, rest, 0.0))
    used = edges.slots >= 0
    return out[used]  # edges in slot order: the order of edges.group


def _group_sums(edges: Edges, to_group: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per edge its log message and zero mask; per group their sums over its edges."""
    zero = to_group <= 0.0
    with np.errstate(divide="ignore"):
        logs = np.log(np.where(zero, 1.0, to_group))
    total = np.zeros((edges.n_groups, edges.depth))
    zeros = np.zeros((edges.n_groups, edges.depth))
    np.add.at(total, edges.group, logs)
    np.add.at(zeros, edges.group, zero)
    return logs, zero, total, zeros


def _normalise_logs(logs: np.ndarray) -> np.ndarray:
    """Rows of log weights as probabilities (rows all ``-inf`` stay all 0)."""
    top = logs.max(axis=1, keepdims=True)
    w = np.exp(logs - np.where(np.isfinite(top), top, 0.0))
    s = w.sum(axis=1, keepdims=True)
    return w / np.where(s > 0, s, 1.0)


def _beliefs(edges: Edges, total: np.ndarray, zeros: np.ndarray, log_lam: float) -> np.ndarray:
    x = np.arange(edges.depth)
    logs = np.where(zeros > 0, -np.inf, edges.log_ways + x * log_lam + total)
    return _normalise_logs(logs)


def _solve_density(
    edges: Edges, total: np.ndarray, zeros: np.ndarray, n_free: int, left: int, start: float
) -> float:
    """The ``log lambda`` at which the expected mines equal ``left``.

    Newton's method from ``start`` (the last sweep's value: it moves little between sweeps),
    kept inside a bracket that bisection takes over when a step leaves it. The expected
    total grows with ``log lambda`` at the rate of its variance, so the root is unique.
    """
    x = np.arange(edges.depth)
    base = np.where(zeros > 0, -np.inf, edges.log_ways + total)
    lo, hi, mu = -_LOG_BOUND, _LOG_BOUND, min(max(start, -_LOG_BOUND), _LOG_BOUND)
    for _ in range(100):
        b = _normalise_logs(base + x * mu)
        mean = b @ x
        free = 1.0 / (1.0 + math.exp(-mu))
        gap = float(mean.sum()) + n_free * free - left
        if abs(gap) < 1e-10 * max(left, 1):
            break
        lo, hi = (mu, hi) if gap < 0 else (lo, mu)
        slope = float((b @ (x * x) - mean * mean).sum()) + n_free * free * (1.0 - free)
        step = mu - gap / slope if slope > 1e-300 else math.nan
        mu = step if lo < step < hi else (lo + hi) / 2
        if hi - lo < 1e-12:
            break
    return mu


@dataclass(frozen=True)
class BpMessages:
    """Where a run of loopy BP stopped.

    Attributes:
        edges: The factor graph as arrays.
        to_group: ``(edges, depth)``: each number's message to each of its groups (row
            ``e``: from ``edges.factor[e]`` to ``edges.group[e]``, summing to 1).
        log_lambda: The density's fugacity, ``log lambda``.
        report: How the run ended.
    """

    edges: Edges
    to_group: np.ndarray
    log_lambda: float
    report: BpReport

    def beliefs(self) -> np.ndarray:
        """``(groups, depth)``: each group's distribution of mines from all its numbers."""
        _, _, total, zeros = _group_sums(self.edges, self.to_group)
        return _beliefs(self.edges, total, zeros, self.log_lambda)


def bp_messages(
    graph: FactorGraph,
    iterations: int = DEFAULT_ITERS,
    damping: float = DAMPING,
    deadline: Deadline | None = None,
    log_lambda: float | None = None,
) -> BpMessages:
    """Loopy BP's messages on ``graph`` (the arguments as for :func:`run_bp`).

    Raises:
        InvalidTypeError: ``graph`` is not a :class:`FactorGraph` (see :func:`factor_graph`).
        InvalidInputError: ``iterations`` is not a whole number >= 0, ``damping`` not in
            ``[0, 1)`` or ``log_lambda`` not finite.
        InconsistentBoardError: A number's message vanishes (no layout fits what its
            neighbours allow: a contradiction BP finds).
    """
    _check_settings(graph, iterations, damping, log_lambda)
    edges = Edges(graph)
    n_edges = len(edges.group)
    fixed = log_lambda is not None
    log_lam = float(log_lambda) if fixed else 0.0
    to_group = np.full((n_edges, edges.depth), 1.0 / edges.depth)
    change, done = math.inf, 0
    logs, zero, total, zeros = _group_sums(edges, to_group)
    for done in range(1, iterations + 1):
        if deadline is not None and deadline.remaining() == 0.0:
            done -= 1
            break
        old_lam = log_lam
        if not fixed:
            log_lam = _solve_density(edges, total, zeros, graph.n_free, graph.left, log_lam)
        x = np.arange(edges.depth)
        # Each group's message to a factor: prior times the other factors' messages.
        others_zero = zeros[edges.group] - zero
        rest = np.where(
            others_zero > 0,
            -np.inf,
            edges.log_ways[edges.group] + x * log_lam + total[edges.group] - logs,
        )
        to_factor = _normalise_logs(rest)
        computed = _factor_messages(edges, to_factor) if n_edges else to_group
        sums = computed.sum(axis=1, keepdims=True)
        if (sums <= 0).any():
            raise InconsistentBoardError("the revealed numbers contradict each other")
        new = (1 - damping) * computed / sums + damping * to_group
        change = max(float(np.abs(new - to_group).max(initial=0.0)), abs(log_lam - old_lam))
        to_group = new
        logs, zero, total, zeros = _group_sums(edges, to_group)
        if change < TOLERANCE:
            break
    if not fixed:
        log_lam = _solve_density(edges, total, zeros, graph.n_free, graph.left, log_lam)
    density = 1.0 / (1.0 + math.exp(-log_lam))
    return BpMessages(edges, to_group, log_lam, BpReport(done, change, change < TOLERANCE, density))


def _check_settings(
    graph: FactorGraph, iterations: int, damping: float, log_lambda: float | None
) -> None:
    if not isinstance(graph, FactorGraph):
        raise InvalidTypeError(
            f"graph must be a FactorGraph (make one with factor_graph(board)), "
            f"got {type(graph).__name__}"
        )
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise InvalidInputError(f"iterations must be a whole number >= 0, got {iterations!r}")
    if isinstance(damping, bool) or not isinstance(damping, (int, float)):
        raise InvalidInputError(f"damping must be a number in [0, 1), got {damping!r}")
    if not 0 <= damping < 1:
        raise InvalidInputError(f"damping must be a number in [0, 1), got {damping!r}")
    if log_lambda is not None and (
        isinstance(log_lambda, bool)
        or not isinstance(log_lambda, (int, float))
        or not math.isfinite(log_lambda)
    ):
        raise InvalidInputError(f"log_lambda must be a finite number, got {log_lambda!r}")


def run_bp(
    graph: FactorGraph,
    iterations: int = DEFAULT_ITERS,
    damping: float = DAMPING,
    deadline: Deadline | None = None,
    log_lambda: float | None = None,
) -> tuple[np.ndarray, BpReport]:
    """Loopy BP on ``graph``: each open group's distribution of mines, and the report.

    Args:
        graph: The factor graph.
        iterations: Most sweeps.
        damping: Weight of the old message in each update, in ``[0, 1)``.
        deadline: Stops the sweeps (not an error: the beliefs so far are returned).
        log_lambda: A fixed ``log lambda`` (``None``: the fixed point that meets the total).

    Returns:
        ``(groups, depth)`` beliefs (row ``g``: probability of each mine count of group
        ``g``) and the :class:`BpReport`.

    Raises:
        InvalidTypeError, InvalidInputError: Bad arguments (see :func:`bp_messages`).
        InconsistentBoardError: A number's message vanishes (no layout fits what its
            neighbours allow: a contradiction BP finds).
    """
    state = bp_messages(graph, iterations, damping, deadline, log_lambda)
    beliefs = state.beliefs()
    expected = float((beliefs @ np.arange(state.edges.depth)).sum())
    expected += graph.n_free * state.report.density
    if log_lambda is None and abs(expected - graph.left) > 0.5:
        # Even at the bounds of the density the expected total misses: the counts BP
        # leaves possible (arc consistency: sound) cannot hold the mines left.
        raise InconsistentBoardError(
            f"no placement of the {graph.left} mines left fits the numbers"
        )
    return beliefs, state.report


class BpEstimator(Estimator):
    """Loopy BP's marginals; :attr:`report` describes the last board's run.

    Args:
        kind: Its registry entry.
        iterations: Most sweeps per board.
        time_limit: Seconds per board (the sweeps stop there and the beliefs so far count).
    """

    def __init__(self, kind: EstimatorKind, iterations: int, time_limit: float | None = None):
        super().__init__(kind, f"{kind.name}:{iterations}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.report: BpReport | None = None

    def estimate(self, board: Board) -> np.ndarray:
        deadline = Deadline(self.time_limit)
        graph = factor_graph(board, deadline)
        if len(graph.sizes) == 0:  # nothing open: the free cells share what is left
            self.report = BpReport(0, 0.0, True, _free_density(graph))
            return graph.paint(board, np.zeros(0), self.report.density)
        beliefs, self.report = run_bp(graph, self.iterations, deadline=deadline)
        group_p = beliefs @ np.arange(beliefs.shape[1]) / graph.sizes
        return graph.paint(board, group_p, self.report.density)


def _free_density(graph: FactorGraph) -> float:
    return graph.left / graph.n_free if graph.n_free else 0.0


def build(kind: EstimatorKind, arg: str, time_limit: float | None) -> BpEstimator:
    """``bp`` or ``bp:ITERS``."""
    return BpEstimator(kind, whole_arg(kind, arg, DEFAULT_ITERS, MAX_ITERS), time_limit)


KIND = EstimatorKind(
    name="bp",
    family="approximate",
    exact=False,
    extra=None,
    description="loopy belief propagation on the group / number factor graph, total by a "
    f"density fixed point (bp:ITERS, default {DEFAULT_ITERS} sweeps, at most {MAX_ITERS})",
    arg="ITERS",
    batches=False,
    available=lambda: True,
    build=build,
    # (docs/estimators.md, "Measured on the hard corpus": 2 s a position, defaults)
    measured=(
        ("lattice", 0.0426),
        ("band", 0.0788),
        ("toollib", 0.0132),
        ("strip", 0.0067),
        ("dense", 0.0014),
        ("large", 0.0001),
    ),
)
