"""Deterministic reductions before search, and the split into independent components.

* Single-point rules and DSS propagation (seed paper 004, Algorithm 2), stated on groups:
  a constraint ``sum x_g = t`` bounds each group by ``t`` minus what the others can hold.
  With one-cell groups this is exactly DSS: ``t = 0`` clears every cell, ``t = #cells`` flags
  them all; with bounds it also covers the partial cases.
* The subset rule: if constraint A's open groups are a subset of B's, then B minus A holds
  ``t_B - t_A`` mines (``a+b=1, a+b+c=2 => c=1``). Derived constraints feed propagation only;
  they are implied, so counting uses the original ones.

Propagation works from a queue of constraints to revisit (only those next to a group whose
bounds just changed), so its cost follows the frontier, not the board. Everything here is
plain Python integers and lists: on Minesweeper frontiers (a few groups per constraint)
that is faster than array code, and exact.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

from .constraints import Component, System
from .errors import InconsistentBoardError
from .runtime.deadline import Deadline

Constraint = tuple[tuple[int, ...], int]

#: Constraints propagated between two deadline checks.
_CHECK_EVERY = 4096


@dataclass(frozen=True)
class Reduction:
    """A system after propagation.

    Attributes:
        fixed: ``(group, mines)`` for every group whose mine count is the same in all solutions.
        system: The system reduced.
        residual: The constraints left on free groups, ``{groups: mines}``.
    """

    fixed: list[tuple[int, int]]
    system: System
    residual: dict[tuple[int, ...], int]

    @cached_property
    def components(self) -> list[Component]:
        """Independent components over the groups that are still free (split on first use:
        a player that finds safe cells in :attr:`fixed` never needs them)."""
        return split_components(self.system, self.residual)


def _contradiction() -> InconsistentBoardError:
    return InconsistentBoardError("the revealed numbers contradict each other")


def propagate(
    constraints: list[Constraint],
    lo: list[int],
    hi: list[int],
    deadline: Deadline | None = None,
    first: int = 0,
    touching: list[list[int]] | None = None,
) -> bool:
    """Tightens the bounds ``lo <= x <= hi`` on each group's mines to a fixpoint (DSS).

    Args:
        constraints: ``(groups, mines)`` pairs.
        lo: Lower bounds per group, tightened in place.
        hi: Upper bounds per group, tightened in place.
        deadline: Checked every few thousand constraints.
        first: Constraints before this one are known to be at their fixpoint with the
            given bounds; only the others are visited first.
        touching: The constraints of each group (:func:`touching_lists`), if at hand.

    Returns:
        Whether any bound changed.

    Raises:
        InconsistentBoardError: Some constraint cannot be met within the bounds.
    """
    changed = False
    if touching is None:
        touching = touching_lists(constraints, len(lo))
    n = len(constraints)
    queued = [False] * first + [True] * (n - first)
    queue = deque(range(first, n))
    timed = deadline is not None and deadline.end is not None
    done = 0
    while queue:
        c = queue.popleft()
        queued[c] = False
        if timed:
            done += 1
            if done % _CHECK_EVERY == 0:
                deadline.check()
        groups, t = constraints[c]
        s_lo = s_hi = 0
        for g in groups:
            s_lo += lo[g]
            s_hi += hi[g]
        if t < s_lo or t > s_hi:
            raise _contradiction()
        if s_lo == s_hi:  # every group already fixed
            continue
        # The other groups hold between s_lo - lo[g] and s_hi - hi[g] mines, so g holds
        # between t - s_hi + hi[g] and t - s_lo + lo[g].
        below, above = t - s_hi, t - s_lo
        for g in groups:
            low, high = lo[g], hi[g]
            least = below + high
            most = above + low
            if least > low or most < high:
                lo[g] = low = max(low, least)
                hi[g] = high = min(high, most)
                if low > high:
                    raise _contradiction()
                changed = True
                for other in touching[g]:
                    if not queued[other]:
                        queued[other] = True
                        queue.append(other)
    return changed


def touching_lists(
    constraints: list[Constraint],
    n_groups: int,
    start: int = 0,
    lists: list[list[int]] | None = None,
) -> list[list[int]]:
    """The constraints of each group (from constraint ``start`` on, added to ``lists``)."""
    touching = lists if lists is not None else [[] for _ in range(n_groups)]
    for c in range(start, len(constraints)):
        for g in constraints[c][0]:
            touching[g].append(c)
    return touching


def open_part(constraints: list[Constraint], lo: list[int], hi: list[int]) -> list[Constraint]:
    """Each constraint on its still-open groups, minus the mines of its fixed groups.

    Constraints left without open groups are dropped (propagation checked them).
    """
    out = []
    for groups, t in constraints:
        open_groups = []
        for g in groups:
            low = lo[g]
            if low < hi[g]:
                open_groups.append(g)
            else:
                t -= low
        if open_groups:
            out.append((tuple(open_groups), t))
    return out


def subset_rule(constraints: list[Constraint]) -> list[Constraint]:
    """Constraints ``B - A`` derived from every pair where A's groups are a strict subset of B's.

    Only constraints sharing A's first group can contain A, so each A looks at a handful.
    """
    if len(constraints) < 2:
        return []
    # The constraints holding each group that is some constraint's first.
    holding: dict[int, list[int]] = {groups[0]: [] for groups, _ in constraints}
    for c, (groups, _) in enumerate(constraints):
        for g in groups:
            found = holding.get(g)
            if found is not None:
                found.append(c)
    sets = [frozenset(groups) for groups, _ in constraints]
    derived = []
    for a, (groups_a, t_a) in enumerate(constraints):
        for b in holding[groups_a[0]]:
            if len(sets[b]) > len(groups_a) and sets[a] < sets[b]:
                groups_b, t_b = constraints[b]
                derived.append((tuple([g for g in groups_b if g not in sets[a]]), t_b - t_a))
    return derived


def reduce_system(system: System, deadline: Deadline | None = None) -> Reduction:
    """Propagates the system and splits the free groups into independent components.

    Args:
        system: The board's constraint system.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: The numbers contradict each other.
    """
    constraints = system.constraints
    if not constraints:  # no number with an undecided cell: only the settled groups
        return Reduction(fixed=list(system.settled), system=system, residual={})
    lo = [0] * len(system.sizes)
    hi = list(system.sizes)
    for g, mines in system.settled:
        lo[g] = hi[g] = mines
    touching = touching_lists(constraints, len(lo))
    # The subset rule on what DSS left open: fewer constraints, and fixed groups removed
    # expose new subsets. (Every group of a constraint starts open: with no bound changed,
    # the open part is the whole system.)
    changed = propagate(constraints, lo, hi, deadline, touching=touching)
    if lo == hi:  # every group fixed (common late in a game): nothing left to derive
        return Reduction(fixed=list(enumerate(lo)), system=system, residual={})
    remaining = open_part(constraints, lo, hi) if changed else constraints
    derived = subset_rule(remaining)
    if derived:
        every = constraints + derived
        touching_lists(every, len(lo), len(constraints), touching)
        if propagate(every, lo, hi, deadline, first=len(constraints), touching=touching):
            # Bounds only tighten: the open part of the open part is the system's.
            remaining = open_part(remaining, lo, hi)
    fixed = [(g, lo[g]) for g in range(len(lo)) if lo[g] == hi[g]]

    # Numbers that see the same open groups must agree on their mines; keep one of each.
    residual: dict[tuple[int, ...], int] = {}
    for groups, t in remaining:
        if residual.setdefault(groups, t) != t:
            raise InconsistentBoardError("two numbers demand different mines of the same cells")
    if deadline is not None:
        deadline.check()
    return Reduction(fixed=fixed, system=system, residual=residual)


def split_components(system: System, residual: dict[tuple[int, ...], int]) -> list[Component]:
    """Groups linked by a constraint, as components (union-find over the constraints).

    Groups are numbered by their first cell, so sorting by group index keeps each
    component's groups, and the components, in row-major order of their first cells; the
    constraints are sorted too, so the same shape anywhere on a board gives an equal
    :class:`Component` (the key of :class:`mscsp.solver.CountCache`).
    """
    if not residual:
        return []
    # Each group's component, merging the smaller into the larger when a constraint links
    # two of them.
    label = [-1] * len(system.sizes)
    members: list[list[int]] = []
    for groups in residual:
        own = -1
        for g in groups:
            k = label[g]
            if k < 0:
                if own < 0:
                    own = len(members)
                    members.append([])
                label[g] = own
                members[own].append(g)
            elif own < 0:
                own = k
            elif k != own:
                if len(members[k]) > len(members[own]):
                    k, own = own, k
                for h in members[k]:
                    label[h] = own
                members[own] += members[k]
                members[k] = []
    constraints_of: list[list[Constraint]] = [[] for _ in members]
    for item in residual.items():
        constraints_of[label[item[0][0]]].append(item)
    sizes, cells = system.sizes, system.cells
    found = [
        (sorted(groups), constraints)
        for groups, constraints in zip(members, constraints_of, strict=True)
        if groups
    ]
    if len(found) > 1:
        found.sort()
    components = []
    for groups, constraints in found:
        local = {g: i for i, g in enumerate(groups)}
        stated = [(tuple([local[g] for g in gs]), t) for gs, t in constraints]
        stated.sort()
        components.append(
            Component(
                sizes=tuple([sizes[g] for g in groups]),
                constraints=tuple(stated),
                cells=tuple([cells[g] for g in groups]),
            )
        )
    return components
