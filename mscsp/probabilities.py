"""Combining component counts with the global mine count into exact cell probabilities."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from math import comb
from operator import mul
from types import ModuleType
from typing import NamedTuple

import numpy as np

from .board import FLAG, Board, neighbour_counts
from .constraints import Cell, Component, ComponentCount, System
from .errors import InconsistentBoardError
from .reduce import Reduction
from .runtime.deadline import Deadline

#: Below this many coefficient products, polynomials are multiplied term by term; above it,
#: by big-integer products (Kronecker substitution), which Python does in sub-quadratic time.
_SCHOOLBOOK = 64


@cache
def _gmpy2() -> ModuleType | None:
    """``gmpy2`` (GMP's FFT multiplication, extra ``fast``) when installed, else ``None``."""
    try:
        return importlib.import_module("gmpy2")
    except ImportError:
        return None


#: Up to this many cells, Python's own binomial is as fast as the round trip through GMP
#: (0.09 against 0.18 us for C(81, 10); 9.4 against 0.6 us for C(480, 99)).
_SMALL_BINOMIAL = 200

#: Bits of one factor per big-integer product: the slice between two deadline checks. GMP
#: multiplies a slice this size in well under a second; Python's Karatsuba needs a smaller one.
_SLICE_BITS = {True: 1 << 24, False: 1 << 20}


def multiply(a: Sequence[int], b: Sequence[int], deadline: Deadline | None = None) -> list[int]:
    """Product of two polynomials given as coefficient lists of non-negative Python integers.

    Args:
        a: Coefficients, lowest degree first.
        b: Coefficients, lowest degree first.
        deadline: Checked between the slices of a large product.
    """
    if len(a) * len(b) <= _SCHOOLBOOK:
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out
    # Pack each polynomial into one integer, a slot of `width` bytes per coefficient; the
    # slots are wide enough for every coefficient of the product, so nothing carries over.
    if len(a) < len(b):
        a, b = b, a
    bits = max(a).bit_length() + max(b).bit_length() + len(b).bit_length()
    width = bits // 8 + 1
    gmpy2 = _gmpy2()
    factor = _pack(b, width)
    if gmpy2 is not None:
        factor = gmpy2.mpz(factor)
    # The longer factor goes in slices, so a time limit can stop a huge product.
    step = max(1, _SLICE_BITS[gmpy2 is not None] // (8 * width))
    total = 0
    for start in range(0, len(a), step):
        if deadline is not None:
            deadline.check()
        piece = _pack(a[start : start + step], width)
        product = int(gmpy2.mpz(piece) * factor) if gmpy2 is not None else piece * factor
        total += product << (8 * width * start)
    data = total.to_bytes((len(a) + len(b) - 1) * width, "little")
    return [int.from_bytes(data[k : k + width], "little") for k in range(0, len(data), width)]


def _pack(coefficients: Sequence[int], width: int) -> int:
    return int.from_bytes(b"".join(x.to_bytes(width, "little") for x in coefficients), "little")


def middle_product(
    b: Sequence[int], g: Sequence[int], n: int, deadline: Deadline | None = None
) -> list[int]:
    """``out[j] = sum_t b[t] * g[j + t]`` for ``j < n`` (needs ``len(g) >= n + len(b) - 1``).

    The transposed product: if a polynomial ``A`` times ``b`` is paired with weights ``g``
    (``sum_s (A b)[s] g[s]``), ``out`` are the weights that pair with ``A`` alone.
    """
    full = multiply(b[::-1], g[: n + len(b) - 1], deadline)
    return full[len(b) - 1 : len(b) - 1 + n]


def free_ways(
    n_free: int, left: int, first: int, last: int, deadline: Deadline | None = None
) -> list[int]:
    """``C(n_free, left - s)`` for ``s = first .. last``: layouts of the unconstrained cells
    when the frontier holds ``s`` of the ``left`` mines (0 where impossible).

    Args:
        n_free: Unconstrained cells.
        left: Mines left for the frontier and the unconstrained cells.
        first: Fewest frontier mines asked for.
        last: Most frontier mines asked for.
        deadline: Checked every few hundred binomials (each can be huge on big boards).
    """
    out = [0] * (last - first + 1)
    m_hi = min(left - first, n_free)  # mines on free cells, from the most
    m_lo = max(left - last, 0)
    if m_hi < m_lo:
        return out
    # One big binomial (GMP's is much faster on big boards), then a ratio per step.
    gmpy2 = _gmpy2() if n_free > _SMALL_BINOMIAL else None
    value = int(gmpy2.comb(n_free, m_hi)) if gmpy2 is not None else comb(n_free, m_hi)
    timed = deadline is not None and deadline.end is not None
    index = left - m_hi - first
    for m in range(m_hi, m_lo, -1):
        if timed and m % 256 == 0:
            deadline.check()
        out[index] = value
        index += 1
        value = value * m // (n_free - m + 1)  # C(n, m - 1) from C(n, m)
    out[index] = value
    return out


class CellOdds(NamedTuple):
    """Cells sharing one exact mine probability ``num / den`` (an immutable named tuple)."""

    cells: tuple[Cell, ...] | np.ndarray
    num: int
    den: int


@dataclass
class Solution:
    """Exact mine probabilities of every covered cell of a board.

    Attributes:
        board: The solved position.
        odds: Cells with their exact probability as ``num / den`` (integers).
        components: The independent components with their counts.
        weight: Number of mine layouts consistent with the board (flags taken as mines).
    """

    board: Board
    odds: list[CellOdds]
    components: list[tuple[Component, ComponentCount]] = field(default_factory=list)
    weight: int = 0

    @property
    def approximate(self) -> bool:
        """True when an approximate backend counted some component (nothing is then exact)."""
        return not all(count.exact for _, count in self.components)

    @cached_property
    def probabilities(self) -> np.ndarray:
        """Float array (rows x cols): NaN on revealed cells, 1.0 on flags."""
        cells = self.board.cells
        odds = self.odds
        # The array is made once: from the last odds when given as a mask (as `combine`
        # gives the cells next to no number), else filled with NaN.
        if odds and isinstance(odds[-1].cells, np.ndarray):
            *odds, last = odds
            out = np.where(last.cells, last.num / last.den, np.nan)
        else:
            out = np.full(cells.shape, np.nan)
        # A search of the raw bytes finds a flag faster than a comparison over the array.
        if bytes((FLAG % 256,)) in cells.astype(np.int8, copy=False).tobytes():
            out[cells == FLAG] = 1.0
        for odd in odds:
            value = odd.num / odd.den
            if isinstance(odd.cells, np.ndarray):
                out[odd.cells] = value
            else:
                for r, c in odd.cells:
                    out[r, c] = value
        return out

    @cached_property
    def exact(self) -> dict[Cell, Fraction]:
        """Exact probability of every covered cell, as :class:`fractions.Fraction`."""
        result: dict[Cell, Fraction] = {}
        for odd in self.odds:
            value = Fraction(odd.num, odd.den)
            cells = odd.cells
            if isinstance(cells, np.ndarray):
                cells = [(int(r), int(c)) for r, c in np.argwhere(cells)]
            for cell in cells:
                result[cell] = value
        return result

    def _cells_where(self, pick) -> list[Cell]:
        found = []
        for odd in self.odds:
            if pick(odd):
                cells = odd.cells
                if isinstance(cells, np.ndarray):
                    cells = [(int(r), int(c)) for r, c in np.argwhere(cells)]
                found.extend(cells)
        return sorted(found)

    @cached_property
    def safe(self) -> list[Cell]:
        """Covered cells that hold no mine in any solution."""
        return self._cells_where(lambda odd: odd.num == 0)

    @cached_property
    def mines(self) -> list[Cell]:
        """Covered (unflagged) cells that hold a mine in every solution."""
        return self._cells_where(lambda odd: odd.num == odd.den)

    @cached_property
    def best_move(self) -> Cell | None:
        """The covered cell least likely to hold a mine.

        Exact ties go to the cell with the fewest neighbours (a corner or edge cell opens
        more often), then to the first in row-major order. ``None`` if nothing is covered.
        """
        if not self.odds:
            return None
        lowest = self.odds[0]
        for odd in self.odds[1:]:
            if odd.num * lowest.den < lowest.num * odd.den:  # exact comparison
                lowest = odd
        nbrs = neighbour_counts(*self.board.shape)
        best = None
        for odd in self.odds:
            if odd.num * lowest.den != lowest.num * odd.den:
                continue
            cells = odd.cells
            if isinstance(cells, np.ndarray):
                # The first minimum in row-major order of the neighbour counts on the mask.
                first = int(np.where(cells, nbrs, 9).argmin())
                cells = [divmod(first, self.board.cols)]
            for r, c in cells:
                key = (int(nbrs[r, c]), r, c)
                if best is None or key < best:
                    best = key
        return best[1], best[2]


def combine(
    board: Board,
    system: System,
    reduction: Reduction,
    counts: list[ComponentCount],
    deadline: Deadline | None = None,
) -> Solution:
    """Weights component counts by ``C(unconstrained cells, mines left)`` into probabilities.

    Each component is a polynomial in its number of mines. Their product, paired with the
    ways to place the other mines on the unconstrained cells, gives the number of layouts;
    for one component, the product of all the others paired the same way gives how many
    completions each of its mine counts has. A product tree does both for every component
    at once (products going up, transposed products going down), in time near-linear in the
    frontier where the pairwise approach is quadratic.

    Args:
        board: The position.
        system: Its constraint system.
        reduction: The reduced system.
        counts: Counts of ``reduction.components``, in order.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: No placement of the remaining mines satisfies the board.
    """
    odds: list[CellOdds] = []
    fixed_mines = 0
    fixed_weight = 1
    safe: list[Cell] = []
    mines: list[Cell] = []
    sizes, group_cells = system.sizes, system.cells
    for g, x in reduction.fixed:
        fixed_mines += x
        if not x:
            safe += group_cells[g]
        elif x == sizes[g]:
            mines += group_cells[g]
        else:
            odds.append(CellOdds(group_cells[g], x, sizes[g]))
            fixed_weight *= comb(sizes[g], x)
    if safe:
        odds.append(CellOdds(tuple(safe), 0, 1))
    if mines:
        odds.append(CellOdds(tuple(mines), 1, 1))
    return weigh_components(
        board,
        odds,
        list(zip(reduction.components, counts, strict=True)),
        system.remaining - fixed_mines,
        system.unconstrained,
        fixed_weight,
        deadline,
    )


def weigh_components(
    board: Board,
    odds: list[CellOdds],
    components: list[tuple[Component, ComponentCount]],
    left: int,
    unconstrained: np.ndarray,
    fixed_weight: int = 1,
    deadline: Deadline | None = None,
) -> Solution:
    """The second half of :func:`combine`: the components' counts weighed together.

    Args:
        board: The position.
        odds: The fixed groups' odds (extended in place with every other cell's).
        components: The free components with their counts.
        left: Mines not flagged nor fixed.
        unconstrained: Mask of the covered cells next to no number.
        fixed_weight: Layouts of the groups fixed at neither none nor all of their cells.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: No placement of the remaining mines satisfies the board.
    """
    n_free = int(np.count_nonzero(unconstrained))

    # Each component's counts without their zero ends: (fewest mines, coefficients).
    polys = []
    for _, count in components:
        nonzero = [k for k, w in enumerate(count.counts) if w]
        if not nonzero:
            raise InconsistentBoardError("the revealed numbers contradict each other")
        polys.append((nonzero[0], list(count.counts[nonzero[0] : nonzero[-1] + 1])))
    lowest = 0
    for first, _ in polys:
        lowest += first
    tree = _product_tree([coefficients for _, coefficients in polys], deadline)
    everything = tree[-1][0]
    free = free_ways(n_free, left, lowest, lowest + len(everything) - 1, deadline)
    layouts = list(map(mul, everything, free))  # by number of mines on the frontier
    weight = sum(layouts)
    if weight == 0:
        flags = int(np.count_nonzero(board.cells == FLAG))
        raise InconsistentBoardError(
            f"no placement of the {board.mines - flags} unflagged mines satisfies the numbers"
        )
    # ways[k]: completions of the rest of the board when a component holds first + k mines.
    ways = _weights_down(tree, free, deadline) if polys else []
    for (first, _), (comp, count), comp_ways in zip(polys, components, ways, strict=True):
        if deadline is not None:
            deadline.check()
        for cells, cell_count in zip(comp.cells, count.cell_counts, strict=True):
            num = sum(map(mul, cell_count[first:], comp_ways))
            odds.append(CellOdds(cells, num, weight))
    if n_free:
        # A given free cell is a mine in C(n - 1, m - 1) = C(n, m) m / n of the layouts,
        # where m = left - lowest - s mines are on the free cells.
        mines_free = range(left - lowest, left - lowest - len(layouts), -1)
        num = sum(map(mul, layouts, mines_free))
        odds.append(CellOdds(unconstrained, num // n_free, weight))
    return Solution(board=board, odds=odds, components=components, weight=weight * fixed_weight)


def _product_tree(polys: list[list[int]], deadline: Deadline | None) -> list[list[list[int]]]:
    """Levels of pairwise products, from the polynomials up to their single product."""
    levels = [polys or [[1]]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        if deadline is not None:
            deadline.check()
        up = [multiply(below[i], below[i + 1], deadline) for i in range(0, len(below) - 1, 2)]
        if len(below) % 2:
            up.append(below[-1])
        levels.append(up)
    return levels


def _weights_down(
    tree: list[list[list[int]]], free: list[int], deadline: Deadline | None
) -> list[list[int]]:
    """For every polynomial of the tree's first level, the weights of its coefficients.

    The root's weights are ``free``; a child's are the transposed product of its sibling
    with its parent's weights (its sibling's mines summed out).
    """
    weights = [free]
    for depth in range(len(tree) - 2, -1, -1):
        if deadline is not None:
            deadline.check()
        below = tree[depth]
        down = []
        for i, parent in enumerate(weights):
            pair = below[2 * i : 2 * i + 2]
            if len(pair) == 1:
                down.append(parent)
                continue
            a, b = pair
            down.append(middle_product(b, parent, len(a), deadline))
            down.append(middle_product(a, parent, len(b), deadline))
        weights = down
    return weights
