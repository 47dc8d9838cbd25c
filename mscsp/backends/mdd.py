"""``mdd``: a decision diagram over group mine counts, compiled and evaluated in numpy.

The diagram is the one ``dss`` searches: groups in a sweep order, one node per distinct
vector of residual mine counts of the constraints open at once, an edge per feasible mine
count ``x`` of the level's group. Here it is *compiled* first, a whole level at a time with
array operations (:func:`compile_mdd`): every node's feasible counts from the DSS bounds,
the expanded edges, their next states merged with one ``numpy.unique``. The result is a
layered multi-valued decision diagram (MDD) that the counter and the sampler
(:mod:`mscsp.layouts`) both read.

Counting then avoids Python big integers altogether. Every count is a polynomial in the
number of mines of degree at most ``kmax``; on complete paths only the totals
``kmin..kmax`` occur, so ``S = kmax - kmin + 1`` values of ``F(t) / t**kmin`` determine it.
The forward pass (partial counts into each node), the backward pass (completions out of
it) and the per-group sums of their products are done at the points ``t = 1..S`` modulo a
few 31-bit primes, one array operation per level: an edge multiplies by
``C(size, x) t**x``, a node sums its edges (``numpy.add.reduceat``). The coefficients come
back by solving the Vandermonde system modulo each prime and by the Chinese remainder
theorem. How many primes are needed is known before: a float pass gives the total number of
solutions, which bounds every coefficient. Results are exact Python integers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..constraints import Component, ComponentCount
from ..primes import largest_primes
from .base import Backend
from .order import ranked_order, sweep_order

#: Bits per residue prime: every prime is above ``2**_PRIME_BITS``, below ``2**31``.
_PRIME_BITS = 30


@dataclass(frozen=True)
class Level:
    """The edges from one level's nodes to the next level's.

    Attributes:
        group: The group this level assigns.
        size: Its cells.
        src: Source node of each edge (ascending).
        mines: Mines the edge puts in the group.
        dst: Target node in the next level (numbered in sorted order of its state).
        n_next: Nodes in the next level.
        by_dst: Edge indices sorted by target node (stable).
        into: Where each target node's edges start in :attr:`by_dst` order.
        out: Where each source node's edges start (only nodes with an edge).
    """

    group: int
    size: int
    src: np.ndarray
    mines: np.ndarray
    dst: np.ndarray
    n_next: int
    by_dst: np.ndarray
    into: np.ndarray
    out: np.ndarray

    @classmethod
    def build(cls, group: int, size: int, src, mines, dst, n_next: int) -> Level:
        """A level with its edge orders computed once (every pass reuses them)."""
        by_dst = np.argsort(dst, kind="stable")
        return cls(
            group, size, src, mines, dst, n_next, by_dst, _segments(dst[by_dst]), _segments(src)
        )


@dataclass(frozen=True)
class Mdd:
    """A compiled component: one :class:`Level` per group, root and terminal single nodes.

    A path from the root to the terminal is a solution at group level; the terminal is
    unreachable (or some level has no edge) when the component has no solution.
    """

    levels: list[Level]

    @property
    def empty(self) -> bool:
        """Whether no path reaches the terminal (the component has no solution)."""
        return not self.levels or self.levels[-1].n_next == 0

    @property
    def n_edges(self) -> int:
        return sum(len(level.src) for level in self.levels)


def compile_mdd(component: Component, check: Callable[[float], None] | None = None) -> Mdd:
    """Compiles the component's decision diagram, a whole level at a time.

    The size of the diagram depends on the sweep order, and neither of the two sweeps,
    :func:`~mscsp.backends.order.sweep_order` and
    :func:`~mscsp.backends.order.ranked_order`, is always the smaller, by up to two orders
    of magnitude on the lattices. So once the first has more than a few thousand edges,
    both are compiled in turn, a level of whichever has fewer edges so far, and the first
    to finish is kept: it is the smaller diagram, and the race costs at most twice its
    compilation.

    Args:
        component: The component.
        check: Called once per level with the seconds the last level took (a deadline
            check that raises to stop when the next level would end past the deadline).
    """
    first = sweep_order(component)
    runs = [_levels(component, first, check)]
    built: list[list[Level]] = [[]]
    edges = [0]
    while True:
        if len(runs) == 1 and edges[0] > _RACE_AFTER:  # not small: race the other sweep
            other = ranked_order(component)
            if other != first:
                runs.append(_levels(component, other, check))
                built.append([])
                edges.append(0)
        i = edges.index(min(edges))
        level = next(runs[i], None)
        if level is None:
            return Mdd(built[i])
        built[i].append(level)
        edges[i] += len(level.src)


#: Edges compiled over the first sweep before the second joins the race (small diagrams
#: are done by then, and need no second compilation).
_RACE_AFTER = 5000


def _levels(component: Component, order: list[int], check) -> Iterator[Level]:
    """The levels of the diagram over ``order``, one at a time."""
    sizes = component.sizes
    cons_of: list[list[int]] = [[] for _ in sizes]
    for ci, (groups, _) in enumerate(component.constraints):
        for g in groups:
            cons_of[g].append(ci)
    position = {g: i for i, g in enumerate(order)}
    last = [max(position[g] for g in groups) for groups, _ in component.constraints]
    targets = [t for _, t in component.constraints]
    cells_left = [sum(sizes[g] for g in groups) for groups, _ in component.constraints]
    open_now: list[int] = []
    states = np.zeros((1, 0), dtype=np.int16)
    took = 0.0  # seconds the last level took: the next, as wide or wider, takes about as long
    for i, g in enumerate(order):
        if check is not None:
            check(took)
        start = time.perf_counter()
        size, here = sizes[g], cons_of[g]
        column = {c: k for k, c in enumerate(open_now)}
        residual = np.empty((len(states), len(here)), dtype=np.int16)
        rest = np.empty(len(here), dtype=np.int16)
        for j, c in enumerate(here):
            cells_left[c] -= size
            residual[:, j] = states[:, column[c]] if c in column else targets[c]
            rest[j] = cells_left[c]
        # DSS bounds: at most the smallest residual; at least what the constraint's later
        # cells cannot hold.
        lo = np.maximum((residual - rest).max(axis=1, initial=0), 0)
        hi = np.minimum(residual.min(axis=1, initial=size), size)
        n_x = np.maximum(hi - lo + 1, 0)
        src = np.repeat(np.arange(len(states)), n_x)
        first = np.cumsum(n_x) - n_x
        mines = (lo[src] + np.arange(len(src)) - first[src]).astype(np.int16)
        after = [c for c in open_now if last[c] > i]
        after += [c for c in here if c not in column and last[c] > i]
        touched = {c: j for j, c in enumerate(here)}
        new = np.empty((len(src), len(after)), dtype=np.int16)
        for k, c in enumerate(after):
            if c in touched:
                new[:, k] = residual[src, touched[c]] - mines
            else:
                new[:, k] = states[src, column[c]]
        states, dst = _merge(new)
        level = Level.build(g, size, src, mines, dst, len(states))
        took = time.perf_counter() - start
        yield level
        open_now = after


def _merge(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and, for each row, the index of its distinct row (in sorted order)."""
    if rows.shape[1] == 0:
        return rows[:1], np.zeros(len(rows), dtype=np.int64)
    if rows.shape[1] <= _KEY_COLUMNS:
        # Residuals are 0..8: a row is a number in base 9, one int64 key.
        keys = rows.astype(np.int64) @ _RADIX[: rows.shape[1]]
    else:  # one byte per residual, a row compared as one opaque value
        packed = np.ascontiguousarray(rows.astype(np.uint8))
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


#: Rows of up to this many residuals fit one int64 key (9**19 < 2**63).
_KEY_COLUMNS = 19
_RADIX = 9 ** np.arange(_KEY_COLUMNS, dtype=np.int64)


def _segments(index: np.ndarray) -> np.ndarray:
    """Start of each run of equal values in a sorted index array."""
    if not len(index):
        return np.zeros(0, dtype=np.intp)
    starts = np.empty(len(index), dtype=bool)
    starts[0] = True
    np.not_equal(index[1:], index[:-1], out=starts[1:])
    return np.flatnonzero(starts)


def span_and_magnitude(mdd: Mdd) -> tuple[int, int, float]:
    """Fewest and most mines over the solutions, and their number as a float.

    One forward pass in three semirings (min-plus, max-plus and floating-point counting).
    """
    low = np.zeros(1, dtype=np.int64)
    high = np.zeros(1, dtype=np.int64)
    total = np.ones(1)
    for level in mdd.levels:
        perm = level.by_dst
        src, mines, starts = level.src[perm], level.mines[perm].astype(np.int64), level.into
        binom = np.array([math.comb(level.size, x) for x in range(level.size + 1)], dtype=float)
        low = np.minimum.reduceat(low[src] + mines, starts)
        high = np.maximum.reduceat(high[src] + mines, starts)
        with np.errstate(over="ignore"):
            total = np.add.reduceat(total[src] * binom[mines], starts)
    return int(low[0]), int(high[0]), float(total[0])


@lru_cache(maxsize=256)
def _inverse_vandermonde(points: int, p: int) -> np.ndarray:
    """Inverse modulo ``p`` of the Vandermonde matrix of ``t = 1..points`` (rows: powers)."""
    # Gauss-Jordan on [V | I] with int64 rows: every product of residues is below 2**62.
    t = np.arange(1, points + 1, dtype=np.int64)
    vander = np.ones((points, points), dtype=np.int64)  # vander[j, k] = t_j**k
    for k in range(1, points):
        vander[:, k] = vander[:, k - 1] * t % p
    work = np.concatenate([vander, np.eye(points, dtype=np.int64)], axis=1)
    for col in range(points):
        work[col] = work[col] * pow(int(work[col, col]), -1, p) % p
        factors = work[:, col].copy()
        factors[col] = 0
        work = (work - factors[:, None] * work[col][None, :]) % p
    return work[:, points:]


def _mulmod(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``a @ b % p`` for residues below ``2**31``, split so that no int64 sum overflows."""
    low = a & 0xFFFF
    high = a >> 16
    return ((low @ b) % p + ((high @ b) % p << 16)) % p


def count_mdd(
    mdd: Mdd, n_groups: int, n_cells: int, check: Callable[[], None] | None = None
) -> ComponentCount:
    """Exact counts of a compiled component (see the module docstring).

    Args:
        mdd: The compiled component.
        n_groups: Its groups.
        n_cells: Its cells.
        check: Called once per level and pass (a deadline check that raises to stop).
    """
    zero = tuple([0] * (n_cells + 1))
    if mdd.empty:
        return ComponentCount(zero, (zero,) * n_groups)
    kmin, kmax, total = span_and_magnitude(mdd)
    # Every coefficient is at most the number of solutions.
    bits = n_cells + 1 if not math.isfinite(total) else math.ceil(math.log2(total)) + 2
    primes = largest_primes(64)[: max(1, -(-bits // _PRIME_BITS))]
    points = kmax - kmin + 1
    mod = np.repeat(np.array(primes, dtype=np.int64), points)
    t = np.tile(np.arange(1, points + 1, dtype=np.int64), len(primes))
    # Columns are independent: on a large diagram, take them a block at a time so that the
    # stored forward values and each level's edge arrays stay within a memory budget.
    nodes = 1 + sum(level.n_next for level in mdd.levels)
    widest = max(len(level.src) for level in mdd.levels)
    block = max(1, min(_STORED // nodes, _PER_LEVEL // max(widest, 1)))
    values = np.concatenate(
        [
            _values_mod(mdd, n_groups, mod[j : j + block], t[j : j + block], kmin, check)
            for j in range(0, len(mod), block)
        ],
        axis=1,
    )
    coefficients = _crt(
        [
            _mulmod(
                _inverse_vandermonde(points, p), values[:, j * points : (j + 1) * points].T, p
            ).T
            for j, p in enumerate(primes)
        ],
        primes,
    )
    rows = []
    for row in coefficients:
        full = [0] * (n_cells + 1)
        full[kmin : kmax + 1] = row
        rows.append(tuple(full))
    return ComponentCount(rows[0], tuple(rows[1:]))


#: Most int64 values kept for the forward pass, and per edge array of one level (columns
#: are split into blocks beyond): 128 and 64 MiB.
_STORED = 1 << 24
_PER_LEVEL = 1 << 23


def _values_mod(
    mdd: Mdd, n_groups: int, mod: np.ndarray, t: np.ndarray, kmin: int, check
) -> np.ndarray:
    """``F(t) / t**kmin`` and every group's marginal the same way, one column per point
    ``t`` and prime ``mod``: ``1 + n_groups`` rows.

    All columns go through each array operation together (fewer, larger numpy calls).
    """
    powers = np.ones((1 + max(level.size for level in mdd.levels), len(mod)), dtype=np.int64)
    for x in range(1, len(powers)):
        powers[x] = powers[x - 1] * t % mod
    by_size = {}  # C(size, x) t**x, one row per x
    for size in {level.size for level in mdd.levels}:
        binom = np.array([math.comb(size, x) for x in range(size + 1)], dtype=object)
        by_size[size] = (binom[:, None] % mod).astype(np.int64) * powers[: size + 1] % mod
    weights = [by_size[level.size] for level in mdd.levels]
    # A given cell of a group is a mine in x / size of its C(size, x) layouts.
    share = {size: np.array([pow(size, -1, int(p)) for p in mod]) for size in by_size}
    alphas = [np.ones((1, len(mod)), dtype=np.int64)]
    for level, w in zip(mdd.levels, weights, strict=True):
        if check is not None:
            check()
        perm = level.by_dst
        edge = alphas[-1][level.src[perm]] * w[level.mines[perm]] % mod
        alphas.append(np.add.reduceat(edge, level.into, axis=0) % mod)
    out = np.zeros((1 + n_groups, len(mod)), dtype=np.int64)
    out[0] = alphas[-1][0]
    beta = np.ones((1, len(mod)), dtype=np.int64)
    for i in range(len(mdd.levels) - 1, -1, -1):
        if check is not None:
            check()
        level = mdd.levels[i]
        edge = weights[i][level.mines] * beta[level.dst] % mod
        both = alphas[i][level.src] * edge % mod * level.mines[:, None]
        out[1 + level.group] = both.sum(axis=0) % mod * share[level.size] % mod
        beta = np.zeros((len(alphas[i]), len(mod)), dtype=np.int64)
        beta[level.src[level.out]] = np.add.reduceat(edge, level.out, axis=0) % mod
    # Divide out t**kmin.
    shift = np.array([pow(int(v), -kmin, int(p)) for v, p in zip(t, mod, strict=True)])
    return out * shift % mod


def _crt(residues: list[np.ndarray], primes: tuple[int, ...]) -> list[list[int]]:
    """Rows of Python integers from their residues modulo each prime."""
    modulus = math.prod(primes)
    total = None
    for r, p in zip(residues, primes, strict=True):
        rest = modulus // p
        term = r.astype(object) * (rest * pow(rest, -1, p))
        total = term if total is None else total + term
    return (total % modulus).tolist()


class MddBackend(Backend):
    """Exact counting on a compiled decision diagram, evaluated modulo primes in numpy."""

    name = "mdd"
    description = "decision diagram compiled per level in numpy, counted at points modulo primes"

    def count(self, component: Component) -> ComponentCount:
        deadline = self._deadline()

        def check(ahead: float = 0.0) -> None:
            # A wide level takes seconds in one numpy call: one that would end past the
            # deadline is not started (a 30x30 lattice ran 1.6 s past a 10 s limit).
            self._check_deadline(None if deadline is None else deadline - ahead)

        mdd = compile_mdd(component, check)
        return count_mdd(mdd, component.n_groups, component.n_cells, check)
