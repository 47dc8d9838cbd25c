"""Deterministic reductions before search, and the split into independent components.

* Single-point rules and DSS propagation (seed paper 004, Algorithm 2), stated on groups:
  a constraint ``sum x_g = t`` bounds each group by ``t`` minus what the others can hold.
  With one-cell groups this is exactly DSS: ``t = 0`` clears every cell, ``t = #cells`` flags
  them all; with bounds it also covers the partial cases.
* The subset rule: if constraint A's groups are a subset of B's, then B minus A holds
  ``t_B - t_A`` mines (``a+b=1, a+b+c=2 => c=1``). Derived constraints feed propagation only;
  they are implied, so counting uses the original ones.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import networkx as nx

from .constraints import Component, System
from .errors import InconsistentBoardError

Constraint = tuple[tuple[int, ...], int]


@dataclass(frozen=True)
class Reduction:
    """A system after propagation.

    Attributes:
        fixed: ``(group, mines)`` for every group whose mine count is the same in all solutions.
        components: Independent components over the groups that are still free.
    """

    fixed: list[tuple[int, int]]
    components: list[Component]


def subset_constraints(constraints: list[Constraint]) -> list[Constraint]:
    """Constraints derived by the subset rule from every pair sharing a group."""
    by_group: dict[int, list[int]] = {}
    for ci, (groups, _) in enumerate(constraints):
        for g in groups:
            by_group.setdefault(g, []).append(ci)
    sets = [frozenset(groups) for groups, _ in constraints]
    seen = set(sets)
    derived = []
    for a, (groups_a, t_a) in enumerate(constraints):
        partners = {b for g in groups_a for b in by_group[g] if b != a}
        for b in partners:
            if sets[a] < sets[b]:
                rest = sets[b] - sets[a]
                if rest not in seen:
                    seen.add(rest)
                    derived.append((tuple(sorted(rest)), constraints[b][1] - t_a))
    return derived


def propagate(sizes: list[int], constraints: list[Constraint], lo: list[int], hi: list[int]) -> None:
    """Tightens the bounds ``lo[g] <= x_g <= hi[g]`` to a fixpoint (DSS), in place.

    Raises:
        InconsistentBoardError: Some constraint cannot be met within the bounds.
    """
    cons_of: list[list[int]] = [[] for _ in sizes]
    for ci, (groups, _) in enumerate(constraints):
        for g in groups:
            cons_of[g].append(ci)
    queue = deque(range(len(constraints)))
    queued = [True] * len(constraints)
    while queue:
        ci = queue.popleft()
        queued[ci] = False
        groups, t = constraints[ci]
        s_lo = sum(lo[g] for g in groups)
        s_hi = sum(hi[g] for g in groups)
        if not s_lo <= t <= s_hi:
            raise InconsistentBoardError("the revealed numbers contradict each other")
        if s_lo == s_hi:
            continue
        for g in groups:
            # Bounds from the sums taken above stay valid while they go stale; requeueing
            # the touched constraints reaches the fixpoint.
            new_lo = max(lo[g], t - (s_hi - hi[g]))
            new_hi = min(hi[g], t - (s_lo - lo[g]))
            if new_lo != lo[g] or new_hi != hi[g]:
                lo[g], hi[g] = new_lo, new_hi
                for cj in cons_of[g]:
                    if not queued[cj]:
                        queued[cj] = True
                        queue.append(cj)


def reduce_system(system: System) -> Reduction:
    """Propagates the system and splits the free groups into independent components."""
    sizes = system.sizes
    lo = [0] * len(sizes)
    hi = list(sizes)
    constraints = system.constraints
    propagate(sizes, constraints + subset_constraints(constraints), lo, hi)

    fixed = [(g, lo[g]) for g in range(len(sizes)) if lo[g] == hi[g]]
    residual: dict[tuple[int, ...], int] = {}
    for groups, t in constraints:
        free = tuple(g for g in groups if lo[g] != hi[g])
        if free:
            rest = t - sum(lo[g] for g in groups if lo[g] == hi[g])
            if residual.setdefault(free, rest) != rest:
                raise InconsistentBoardError("two numbers demand different mines of the same cells")

    graph = nx.Graph()
    graph.add_nodes_from(g for g in range(len(sizes)) if lo[g] != hi[g])
    for groups in residual:
        nx.add_path(graph, groups)
    components = []
    for nodes in nx.connected_components(graph):
        order = sorted(nodes, key=lambda g: system.cells[g][0])
        local = {g: i for i, g in enumerate(order)}
        cons = tuple(
            (tuple(local[g] for g in groups), t)
            for groups, t in residual.items()
            if groups[0] in local
        )
        components.append(
            Component(
                sizes=tuple(sizes[g] for g in order),
                constraints=cons,
                cells=tuple(system.cells[g] for g in order),
            )
        )
    components.sort(key=lambda comp: comp.cells[0][0])
    return Reduction(fixed=fixed, components=components)
