"""Exactly uniform samples of whole-board mine layouts, drawn from the compiled diagrams.

Once a component's decision diagram is built (:func:`mscsp.backends.mdd.compile_mdd`: the
DAG ``dss`` searches, one node per vector of residual mine counts), a forward pass of exact
Python-integer polynomials gives, for every node, the number of partial layouts reaching
it with each number of mines. A layout is then drawn backwards from the terminal: with
``r`` mines still to place, the edge into the current node that puts ``x`` mines in its
group is taken with probability proportional to ``C(size, x)`` times the partial layouts of
its source with ``r - x`` mines. Over the whole board the number of mines of each component
and of the cells next to no number is drawn first, with exact weights from the global mine
count (each component's counts convolved with the others' and with ``C(free cells, m)``);
then the cells inside each group are a uniform choice. Every draw uses exact integer
weights (:meth:`random.Random.randrange`), so each consistent layout of the whole board is
equally likely: the only error of the sampled probabilities is statistical.

The probabilities reported are the average, over the samples, of each cell's chance of a
mine given the sample's group counts (``x / size``; a Rao-Blackwellised frequency, never
further from the truth than the raw one). Each is within
``sqrt(ln(2 / delta) / (2 n))`` of the exact probability with probability at least
``1 - delta`` (Hoeffding). Every result is marked approximate.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from .backends.mdd import Mdd, compile_mdd
from .board import FLAG, Board, check_board
from .constraints import Component, build_system
from .errors import InconsistentBoardError
from .probabilities import free_ways, multiply
from .reduce import reduce_system
from .runtime.deadline import Deadline
from .validate import check_int, check_time_limit


@dataclass(frozen=True)
class LayoutSample:
    """Layouts drawn uniformly from all mine layouts consistent with a board.

    Attributes:
        board: The position.
        layouts: ``(samples, rows, cols)`` booleans, True where the layout has a mine
            (flags included).
        probabilities: Estimated mine probability of every covered cell (NaN on revealed
            cells, 1.0 on flags): sampled, not exact.
        seed: The seed the samples were drawn with.
        approximate: Always true: the probabilities carry sampling error.
    """

    board: Board
    layouts: np.ndarray
    probabilities: np.ndarray
    seed: int
    approximate: bool = True

    @property
    def samples(self) -> int:
        return len(self.layouts)

    def bound(self, delta: float = 0.05, cells: int = 1) -> float:
        """Half-width that ``cells`` probabilities all lie within, with chance ``1 - delta``.

        Hoeffding's bound for the mean of ``n`` independent values in ``[0, 1]``, with a
        union bound over ``cells`` probabilities.
        """
        return math.sqrt(math.log(2 * cells / delta) / (2 * self.samples))


class ComponentSampler:
    """Draws group-level solutions of one component with a given number of mines.

    Args:
        component: The component.
        mdd: Its compiled diagram.
        check: Called once per level of the forward pass (a deadline check).
    """

    def __init__(self, component: Component, mdd: Mdd, check: Callable[[], None] | None = None):
        self.component = component
        n_cells = component.n_cells
        self.width = n_cells // 8 + 1  # bytes per coefficient: every one is below 2**n_cells
        bits = 8 * self.width
        # alphas[i][v]: partial layouts into node v of level i, a polynomial in the mines
        # packed into one integer (``bits`` per coefficient).
        self.alphas: list[list[int]] = [[1]]
        self.into = []  # per level: edge indices by target node, and each node's first one
        for level in mdd.levels:
            if check is not None:
                check()
            shifted = [math.comb(level.size, x) << (bits * x) for x in range(level.size + 1)]
            here = self.alphas[-1]
            nxt = [0] * level.n_next
            for s, x, d in zip(
                level.src.tolist(), level.mines.tolist(), level.dst.tolist(), strict=True
            ):
                nxt[d] += shifted[x] * here[s]
            self.alphas.append(nxt)
            perm = level.by_dst
            firsts = np.append(level.into, len(perm))
            # Per target node, its in-edges as (source, mines, layouts of the group).
            edges = [
                (s, x, math.comb(level.size, x))
                for s, x in zip(level.src[perm].tolist(), level.mines[perm].tolist(), strict=True)
            ]
            self.into.append((level.group, edges, firsts.tolist()))
        final = self.alphas[-1][0] if self.alphas[-1] else 0
        self.counts = self._coefficients(final) if final else [0] * (n_cells + 1)
        self._cache: dict[tuple[int, int], list[int]] = {}
        # (level, node, mines left): the node's in-edges and their cumulative weights.
        self._tables: dict[tuple[int, int, int], tuple[list, list[int]]] = {}

    def _coefficients(self, packed: int) -> list[int]:
        n = self.component.n_cells + 1
        data = packed.to_bytes(n * self.width, "little")
        w = self.width
        return [int.from_bytes(data[k * w : (k + 1) * w], "little") for k in range(n)]

    def _alpha(self, i: int, node: int) -> list[int]:
        key = (i, node)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._coefficients(self.alphas[i][node])
        return found

    def draw(self, mines: int, rng: random.Random) -> list[int]:
        """Mines per group of one solution with ``mines`` mines, drawn with probability
        proportional to its cell-level layouts."""
        xs = [0] * self.component.n_groups
        node, left = 0, mines
        for i in range(len(self.into) - 1, -1, -1):
            group = self.into[i][0]
            into, cumulative = self._table(i, node, left)
            node, x, _ = into[_pick(cumulative, rng)]
            xs[group] = x
            left -= x
        return xs

    def _table(self, i: int, node: int, left: int) -> tuple[list, list[int]]:
        key = (i, node, left)
        found = self._tables.get(key)
        if found is None:
            _, edges, firsts = self.into[i]
            into = edges[firsts[node] : firsts[node + 1]]
            weights = [
                ways * self._alpha(i, src)[left - x] if left >= x else 0 for src, x, ways in into
            ]
            found = self._tables[key] = (into, list(accumulate(weights)))
        return found


def _pick(cumulative: list[int], rng: random.Random) -> int:
    """Index drawn with probability proportional to the increments of ``cumulative``."""
    return bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))


def sample_layouts(
    board: Board, samples: int = 1000, seed: int = 0, time_limit: float | None = None
) -> LayoutSample:
    """Draws ``samples`` mine layouts uniformly from all those consistent with the board.

    Args:
        board: The position.
        samples: Layouts to draw (at least 1).
        seed: Seed of the draws (same seed, same layouts).
        time_limit: Seconds for the whole call (``None``: no limit).

    Raises:
        InvalidTypeError: ``board`` is not a Board, or an argument not a number.
        InvalidInputError: ``samples`` below 1, ``seed`` or ``time_limit`` below 0.
        InconsistentBoardError: No layout satisfies the board.
        SolverLimitError: The time limit was hit.
    """
    check_board(board)
    samples, seed = check_int(samples, "samples", minimum=1), check_int(seed, "seed")
    check_time_limit(time_limit)
    deadline = Deadline(time_limit)
    system = build_system(board, deadline)
    reduction = reduce_system(system, deadline)
    samplers = [
        ComponentSampler(c, compile_mdd(c, deadline.check), deadline.check)
        for c in reduction.components
    ]
    left = system.remaining - sum(x for _, x in reduction.fixed)
    free = [tuple(cell) for cell in np.argwhere(system.unconstrained).tolist()]
    # after[c][j]: layouts of components c+1.. and the free cells with j mines in all.
    after = [free_ways(len(free), left, 0, left, deadline)[::-1]] if left >= 0 else [[0]]
    for sampler in reversed(samplers[1:]):
        after.append(multiply(sampler.counts, after[-1], deadline)[: left + 1])
    after.reverse()
    rng = random.Random(seed)  # exact draws with big-integer weights
    cells_rng = np.random.default_rng(seed)  # which cells of a group hold its mines
    # Every set of interchangeable cells: the components' groups, the fixed groups, the
    # free cells (last); per sample, the mines each holds.
    targets = [
        np.array(cells, dtype=np.intp).reshape(-1, 2)
        for s in samplers
        for cells in s.component.cells
    ]
    targets += [np.array(system.cells[g], dtype=np.intp) for g, _ in reduction.fixed]
    targets.append(np.array(free, dtype=np.intp).reshape(-1, 2))
    mines = np.zeros((samples, len(targets)), dtype=np.int64)
    mines[:, len(targets) - 1 - len(reduction.fixed) : -1] = [x for _, x in reduction.fixed]
    tables: dict[tuple[int, int], list[int]] = {}
    for n in range(samples):
        deadline.check()
        j, t = left, 0
        for c, sampler in enumerate(samplers):
            table = tables.get((c, j))
            if table is None:
                weights = [w * after[c][j - k] for k, w in enumerate(sampler.counts[: j + 1])]
                table = tables[(c, j)] = list(accumulate(weights))
            if not table or not table[-1]:
                raise InconsistentBoardError(_NO_LAYOUT.format(system.remaining))
            k = _pick(table, rng)
            xs = sampler.draw(k, rng)
            mines[n, t : t + len(xs)] = xs
            t += len(xs)
            j -= k
        if not 0 <= j <= len(free):
            raise InconsistentBoardError(_NO_LAYOUT.format(system.remaining))
        mines[n, -1] = j
    layouts = np.zeros((samples, *board.shape), dtype=bool)
    layouts[:, board.cells == FLAG] = True
    probabilities = np.where(board.cells == FLAG, 1.0, np.nan)
    for cells, column in zip(targets, mines.T, strict=True):
        if not len(cells):
            continue
        layouts[:, cells[:, 0], cells[:, 1]] = _choose(len(cells), column, cells_rng)
        probabilities[cells[:, 0], cells[:, 1]] = column.sum() / (samples * len(cells))
    return LayoutSample(board, layouts, probabilities, seed)


def _choose(size: int, mines: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per sample, a uniform choice of ``mines[n]`` of ``size`` cells: a boolean row each."""
    if size == 1:
        return mines[:, None] > 0
    if size <= 64:  # all samples at once: the cells whose random rank is below the count
        ranks = rng.random((len(mines), size)).argsort(axis=1).argsort(axis=1)
        return ranks < mines[:, None]
    chosen = np.zeros((len(mines), size), dtype=bool)
    for n, x in enumerate(mines.tolist()):
        chosen[n, rng.choice(size, x, replace=False)] = True
    return chosen


_NO_LAYOUT = "no placement of the {} unflagged mines satisfies the numbers"
