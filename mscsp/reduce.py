"""Deterministic reductions before search, and the split into independent components.

* Single-point rules and DSS propagation (seed paper 004, Algorithm 2), stated on groups:
  a constraint ``sum x_g = t`` bounds each group by ``t`` minus what the others can hold.
  With one-cell groups this is exactly DSS: ``t = 0`` clears every cell, ``t = #cells`` flags
  them all; with bounds it also covers the partial cases.
* The subset rule: if constraint A's groups are a subset of B's, then B minus A holds
  ``t_B - t_A`` mines (``a+b=1, a+b+c=2 => c=1``). Derived constraints feed propagation only;
  they are implied, so counting uses the original ones.

Both run as numpy rounds over the (constraint, group) membership pairs (Jacobi style: each
round applies every constraint once; the fixpoint is the same as one constraint at a time).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from .constraints import Component, System
from .errors import InconsistentBoardError


@dataclass(frozen=True)
class Reduction:
    """A system after propagation.

    Attributes:
        fixed: ``(group, mines)`` for every group whose mine count is the same in all solutions.
        components: Independent components over the groups that are still free.
    """

    fixed: list[tuple[int, int]]
    components: list[Component]


_NEAR = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if dr or dc]


def subset_rule(
    matrix: np.ndarray, targets: np.ndarray, numbers: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Constraints derived from every pair A, B where A's groups are a strict subset of B's.

    Only numbers at most two cells apart share cells, so just those pairs are tested.

    Args:
        matrix: 0/1 array (constraints x groups).
        targets: Mines each constraint needs.
        numbers: ``(row, col)`` of each constraint's number on the board.

    Returns:
        ``(pair_c, pair_g, targets)`` of the derived constraints ``B - A``, numbered from 0.
    """
    m = len(targets)
    empty = np.zeros(0, dtype=np.int64)
    if m < 2:
        return empty, empty, empty
    rows, cols = numbers[:, 0] + 2, numbers[:, 1] + 2
    width = int(cols.max()) + 3
    at = np.full((int(rows.max()) + 3) * width, -1, dtype=np.int64)
    at[rows * width + cols] = np.arange(m)
    near = at[(rows * width + cols)[:, None] + np.array([dr * width + dc for dr, dc in _NEAR])]
    a, k = np.nonzero(near >= 0)
    b = near[a, k]
    sizes = matrix.sum(axis=1)
    a, b = a[sizes[a] < sizes[b]], b[sizes[a] < sizes[b]]
    # A is inside B when no group of A is missing from B.
    inside = ~((matrix[a] > matrix[b]).any(axis=1))
    a, b = a[inside], b[inside]
    new_c, new_g = np.nonzero(matrix[b] - matrix[a])
    return new_c, new_g, targets[b] - targets[a]


def propagate(
    sizes: np.ndarray,
    pair_c: np.ndarray,
    pair_g: np.ndarray,
    targets: np.ndarray,
    lo: np.ndarray | None = None,
    hi: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``lo <= x <= hi`` on each group's mines, tightened to a fixpoint (DSS).

    Args:
        sizes: Cells per group.
        pair_c: Constraint of each (constraint, group) membership pair.
        pair_g: Group of each pair.
        targets: Mines each constraint needs.
        lo: Known lower bounds to start from (default 0).
        hi: Known upper bounds to start from (default the group sizes).

    Raises:
        InconsistentBoardError: Some constraint cannot be met within the bounds.
    """
    lo = np.zeros(len(sizes)) if lo is None else lo.astype(float)
    hi = np.asarray(sizes, dtype=float) if hi is None else hi.astype(float)
    if not len(pair_c):
        return lo.astype(np.int64), hi.astype(np.int64)
    order = np.argsort(pair_g, kind="stable")
    pair_c, pair_g = pair_c[order], pair_g[order]
    starts = np.flatnonzero(np.r_[True, pair_g[1:] != pair_g[:-1]])
    touched = pair_g[starts]
    m = len(targets)
    targets = targets.astype(float)
    while True:
        lo_p, hi_p = lo[pair_g], hi[pair_g]
        # Counts are small integers, exact in float64 (bincount's weights are floats).
        s_lo = np.bincount(pair_c, weights=lo_p, minlength=m)
        s_hi = np.bincount(pair_c, weights=hi_p, minlength=m)
        if ((targets < s_lo) | (targets > s_hi)).any():
            raise InconsistentBoardError("the revealed numbers contradict each other")
        raise_lo = np.maximum.reduceat((targets - s_hi)[pair_c] + hi_p, starts)
        cut_hi = np.minimum.reduceat((targets - s_lo)[pair_c] + lo_p, starts)
        grow = raise_lo > lo[touched]
        shrink = cut_hi < hi[touched]
        if not (grow.any() or shrink.any()):
            return lo.astype(np.int64), hi.astype(np.int64)
        lo[touched[grow]] = raise_lo[grow]
        hi[touched[shrink]] = cut_hi[shrink]
        if (lo > hi).any():
            raise InconsistentBoardError("the revealed numbers contradict each other")


def reduce_system(system: System) -> Reduction:
    """Propagates the system and splits the free groups into independent components."""
    matrix, targets = system.matrix, system.targets
    pair_c, pair_g = np.nonzero(matrix)
    lo, hi = propagate(system.sizes, pair_c, pair_g, targets)
    # The subset rule on what DSS left open: fewer constraints, and fixed groups removed
    # expose new subsets.
    is_fixed = lo == hi
    open_rows = np.flatnonzero(matrix[:, ~is_fixed].any(axis=1))
    residual_matrix = matrix[open_rows] * ~is_fixed
    new_c, new_g, new_targets = subset_rule(
        residual_matrix,
        targets[open_rows] - matrix[open_rows][:, is_fixed] @ lo[is_fixed],
        system.numbers[open_rows],
    )
    if len(new_c):
        lo, hi = propagate(
            system.sizes,
            np.concatenate([pair_c, new_c + len(targets)]),
            np.concatenate([pair_g, new_g]),
            np.concatenate([targets, new_targets]),
            lo,
            hi,
        )
    is_fixed = lo == hi
    fixed = [(g, int(lo[g])) for g in np.flatnonzero(is_fixed).tolist()]
    free = np.flatnonzero(~is_fixed)
    rest = (targets - matrix[:, is_fixed] @ lo[is_fixed]).tolist()

    rows, cols = np.nonzero(matrix[:, free])
    members: dict[int, list[int]] = {}
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        members.setdefault(r, []).append(c)
    residual: dict[tuple[int, ...], int] = {}
    for r, groups in members.items():
        key = tuple(groups)
        if residual.setdefault(key, rest[r]) != rest[r]:
            raise InconsistentBoardError("two numbers demand different mines of the same cells")

    graph = nx.Graph()
    graph.add_nodes_from(range(len(free)))
    graph.add_edges_from((groups[0], g) for groups in residual for g in groups[1:])
    parts = list(nx.connected_components(graph))
    part_of = {g: i for i, nodes in enumerate(parts) for g in nodes}
    part_cons: list[list[tuple[tuple[int, ...], int]]] = [[] for _ in parts]
    for groups, t in residual.items():
        part_cons[part_of[groups[0]]].append((groups, t))
    sizes = system.sizes[free].tolist()
    cells = [system.cells[g] for g in free.tolist()]
    components = []
    for nodes, cons in zip(parts, part_cons, strict=True):
        order = sorted(nodes, key=lambda g: cells[g][0])
        local = {g: i for i, g in enumerate(order)}
        components.append(
            Component(
                sizes=tuple(sizes[g] for g in order),
                constraints=tuple((tuple(local[g] for g in groups), t) for groups, t in cons),
                cells=tuple(cells[g] for g in order),
            )
        )
    components.sort(key=lambda comp: comp.cells[0][0])
    return Reduction(fixed=fixed, components=components)
