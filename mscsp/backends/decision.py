"""Deciding without counting: which cells are certainly safe or certainly mines.

Many players only need the certain cells. A backend that can *find* solutions (a SAT, CP or
ILP solver) answers that with a handful of feasibility calls instead of counting:

1. find any solution; it shows every group's mine count once;
2. for each group seen only empty, ask for a solution with a mine in it (none: the group
   is certainly safe); for each group seen only full, ask for one with a safe cell in it
   (none: certainly mines). Every solution found on the way widens what has been seen for
   *all* groups, so most groups never need their own call;
3. the fewest and most mines the frontier can hold (needed for the cells next to no number,
   which are certain only when the frontier's total is forced), by improving a solution's
   total until no better one exists.

:func:`mscsp.backends.position.decide_position` does this over a whole position: the
board's reductions first, then one call over the union of the components with the total
mine count as bounds, so the result equals the exact ``safe`` and ``mines`` sets of
:func:`mscsp.solve`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..constraints import Component, ComponentCount
from ..errors import InconsistentBoardError

Cell = tuple[int, int]

#: What :data:`Finder` may be asked: ``None`` (any solution), ``("mine", g)`` (a mine in
#: group ``g``), ``("safe", g)`` (a safe cell in ``g``), ``("at_most", k)`` or
#: ``("at_least", k)`` (mines in the whole component).
Condition = tuple[str, int] | None

#: A solution finder: mines per group of a solution meeting the condition, or ``None``.
Finder = Callable[[Condition], list[int] | None]


@dataclass(frozen=True)
class Decision:
    """Certain groups of a component and its range of mine totals.

    Attributes:
        safe: Groups with no mine in any solution.
        mines: Groups full of mines in every solution.
        fewest: Fewest mines over the solutions.
        most: Most mines over the solutions.
        calls: Solver calls used (0 when decided from counts).
    """

    safe: frozenset[int]
    mines: frozenset[int]
    fewest: int
    most: int
    calls: int = 0


def decide_from_counts(
    component: Component, count: ComponentCount, allowed: range | set[int]
) -> Decision:
    """The :class:`Decision` implied by exact counts, mine totals restricted to ``allowed``."""
    totals = [k for k, c in enumerate(count.counts) if c and k in allowed]
    if not totals:
        raise InconsistentBoardError("no solution of the frontier has an allowed mine total")
    safe, mines = set(), set()
    for g, row in enumerate(count.cell_counts):
        if not any(row[k] for k in totals):
            safe.add(g)
        elif all(row[k] == count.counts[k] for k in totals):
            mines.add(g)
    return Decision(frozenset(safe), frozenset(mines), totals[0], totals[-1])


def _totals(count: ComponentCount) -> int:
    """The mine totals a component can hold, as a bit mask."""
    return sum(1 << k for k, c in enumerate(count.counts) if c)


def _add(a: int, b: int) -> int:
    """Bit mask of every ``i + j`` with ``i`` in mask ``a`` and ``j`` in mask ``b``."""
    out, k = 0, 0
    while b:
        if b & 1:
            out |= a << k
        b >>= 1
        k += 1
    return out


def decide_components(
    components: list[Component], counts: list[ComponentCount], lo: int, hi: int
) -> list[Decision]:
    """Per component, the :class:`Decision` when the components' mine totals sum to
    ``lo..hi`` (each component's allowed totals follow from what the others can hold)."""
    prefix = [1]
    for count in counts:
        prefix.append(_add(prefix[-1], _totals(count)))
    suffix = [1]
    for count in reversed(counts):
        suffix.append(_add(suffix[-1], _totals(count)))
    suffix.reverse()
    out = []
    for i, (component, count) in enumerate(zip(components, counts, strict=True)):
        others = _add(prefix[i], suffix[i + 1])
        allowed = {
            k
            for k in range(len(count.counts))
            if any(others >> s & 1 for s in range(max(lo - k, 0), hi - k + 1))
        }
        out.append(decide_from_counts(component, count, allowed))
    return out


def decide_by_search(component: Component, find: Finder) -> Decision:
    """The :class:`Decision` of a component from a solution finder (see module doc).

    Raises:
        InconsistentBoardError: The component has no solution.
    """
    calls = 1
    first = find(None)
    if first is None:
        raise InconsistentBoardError("no solution of the frontier has an allowed mine total")
    low, high = list(first), list(first)
    fewest = most = sum(first)

    def seen(solution: list[int]) -> None:
        nonlocal fewest, most
        for g, x in enumerate(solution):
            low[g] = min(low[g], x)
            high[g] = max(high[g], x)
        fewest = min(fewest, sum(solution))
        most = max(most, sum(solution))

    safe, mines = set(), set()
    for g, size in enumerate(component.sizes):
        for kind, certain, undecided in (
            ("mine", safe, lambda g=g: high[g] == 0),
            ("safe", mines, lambda g=g, size=size: low[g] == size),
        ):
            if undecided():  # checked late: solutions found for other groups count too
                calls += 1
                found = find((kind, g))
                if found is None:
                    certain.add(g)
                else:
                    seen(found)
    for kind, step in (("at_most", -1), ("at_least", 1)):
        while True:
            bound = (fewest if kind == "at_most" else most) + step
            calls += 1
            found = find((kind, bound))
            if found is None:
                break
            seen(found)
    return Decision(frozenset(safe), frozenset(mines), fewest, most, calls)


def merge_components(components: list[Component]) -> tuple[Component, list[tuple[Cell, ...]]]:
    """One component holding every group and constraint of ``components`` (and its cells)."""
    sizes: list[int] = []
    constraints = []
    cells: list[tuple[Cell, ...]] = []
    for component in components:
        offset = len(sizes)
        sizes += component.sizes
        cells += component.cells
        constraints += [
            (tuple(g + offset for g in groups), t) for groups, t in component.constraints
        ]
    return Component(tuple(sizes), tuple(constraints), tuple(cells)), cells
