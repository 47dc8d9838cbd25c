"""``dss``: the default exact counter (the DSScsp idea of seed paper 004, made exact and fast).

Backtracking assigns each group a mine count in a fixed order, with DSS bounds propagation
at every node: a group may take ``x`` mines only if every constraint it touches can still be
met by the groups that come after it. Nodes whose open constraints have the same residual
mine counts root identical sub-trees, so they are merged: the search tree becomes a DAG whose
width is the number of constraints open at once (small on a Minesweeper frontier).

A forward pass over the DAG counts partial solutions into each node, a backward pass counts
completions out of it, and their product on each edge gives per-group mine counts. Every
count is a polynomial in the number of mines; each polynomial is packed into one Python
integer (``B`` bits per coefficient, Kronecker substitution), so adding, shifting and
convolving polynomials are single big-integer operations.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, prod

import numpy as np

from ..constraints import Component, ComponentCount
from .base import Backend
from .order import ranked_order

#: Components with at most this many groups are searched in their own order.
_SMALL = 4
#: Components with at most this many assignments of mines to groups (the product of the
#: groups' sizes plus one, before any constraint) are first tried by enumeration.
_ENUMERATE = 1 << 20
#: Search nodes the enumeration may visit before it gives up for the merged search. On
#: real-game components it takes 0.4-0.7 of the merged search's time below 256 nodes and
#: 1.3-2.4 times it above (and loosely constrained ones, such as 16 cells under one number,
#: would need thousands of times more); the budget also bounds the time spent between two
#: deadline checks.
_NODES = 256


#: States (forward) or edges (backward) of one layer between two deadline checks, less one:
#: a wide lattice's layer holds millions, and one layer ran 10 s past a 60 s limit.
_CHECK_EVERY = (1 << 12) - 1


class _OverBudget(Exception):
    """The enumeration would visit more than :data:`_NODES` nodes."""


def _unpack(value: int, length: int, nbytes: int) -> tuple[int, ...]:
    data = value.to_bytes(length * nbytes, "little")
    if nbytes == 1:  # a bytes object already iterates as small integers
        return tuple(data)
    if nbytes <= 8:  # one numpy call; .tolist() gives Python ints
        return tuple(np.frombuffer(data, dtype=f"<u{nbytes}").tolist())
    # Wider slots are whole 64-bit words: join each slot's words as Python integers, one
    # column of words at a time (numpy object arrays loop in C).
    words = np.frombuffer(data, dtype="<u8").reshape(length, nbytes // 8).astype(object)
    joined = words[:, 0]
    for k in range(1, nbytes // 8):
        joined = joined + (words[:, k] << (64 * k))
    return tuple(joined.tolist())


@lru_cache(maxsize=1024)
def _terms(size: int, bits: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For ``x = 0 .. size`` mines in a group of ``size`` cells, shifted to coefficient
    ``x`` (``bits`` per coefficient): its layouts ``C(size, x)``, and those with one given
    cell a mine ``C(size - 1, x - 1)``."""
    layouts = tuple(comb(size, x) << (bits * x) for x in range(size + 1))
    with_cell = tuple(comb(size - 1, x - 1) << (bits * x) if x else 0 for x in range(size + 1))
    return layouts, with_cell


def _single_group(size: int, targets: set[int]) -> ComponentCount:
    counts = [0] * (size + 1)
    cell_counts = [0] * (size + 1)
    if len(targets) == 1:
        (x,) = targets
        if 0 <= x <= size:
            counts[x] = comb(size, x)
            cell_counts[x] = comb(size - 1, x - 1) if x else 0
    return ComponentCount(tuple(counts), (tuple(cell_counts),))


@lru_cache(maxsize=256)
def _binomials(size: int) -> tuple[int, ...]:
    return tuple(comb(size, x) for x in range(size + 1))


def _enumerate(component: Component, nodes: int | None = None) -> ComponentCount:
    """Counts a small component by visiting every consistent assignment, one by one.

    The same DSS bounds as the merged search (a group takes ``x`` mines only if each of
    its constraints can still be met by the groups after it), without the merging: on a
    handful of groups building the DAG costs more than the few leaves it would share. A
    solution adds its layouts to the marginals of the groups holding mines only (kept on a
    stack as the search goes down), not to every group's.

    Raises:
        _OverBudget: More than ``nodes`` search nodes were needed (``None``: no limit).
    """
    budget = -1 if nodes is None else nodes
    sizes = component.sizes
    n = len(sizes)
    residual = []
    # For each group (in index order): its constraints, each with the cells it still has
    # in the groups after this one.
    plan: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for c, (groups, t) in enumerate(component.constraints):
        residual.append(t)
        after = 0
        for g in groups:
            after += sizes[g]
        for g in sorted(groups):  # in the order groups are visited
            after -= sizes[g]
            plan[g].append((c, after))
    binomials = [_binomials(size) for size in sizes]
    length = component.n_cells + 1
    counts = [0] * length
    cell_counts = [[0] * length for _ in range(n)]
    # (marginal row, mines, size) of each group holding mines above the current node.
    mined: list[tuple[list[int], int, int]] = []
    last = n - 1

    def visit(g: int, k: int, weight: int) -> None:
        nonlocal budget
        # Groups left a single choice are taken in this frame, one after the other (most
        # nodes are such), and given back at the end; a recursion only where it branches.
        taken: list[tuple[list[tuple[int, int]], int]] = []
        while True:
            budget -= 1
            if budget == 0:
                raise _OverBudget
            size = sizes[g]
            low, high = 0, size
            here = plan[g]
            for c, rest in here:
                need = residual[c]
                if need - rest > low:
                    low = need - rest
                if need < high:
                    high = need
            ways = binomials[g]
            if g == last:  # each x left meets every constraint exactly: a solution
                row = cell_counts[g]
                for x in range(low, high + 1):
                    layouts = weight * ways[x]
                    counts[k + x] += layouts
                    if x:
                        row[k + x] += layouts * x // size
                    for above, y, s in mined:
                        # One given cell of that group is a mine in y / s of the layouts.
                        above[k + x] += layouts * y // s
                break
            if low != high:  # several choices, or none
                for x in range(low, high + 1):
                    for c, _ in here:
                        residual[c] -= x
                    if x:
                        mined.append((cell_counts[g], x, size))
                        visit(g + 1, k + x, weight * ways[x])
                        mined.pop()
                    else:
                        visit(g + 1, k, weight)
                    for c, _ in here:
                        residual[c] += x
                break
            if low:
                for c, _ in here:
                    residual[c] -= low
                mined.append((cell_counts[g], low, size))
                taken.append((here, low))
                k += low
                weight *= ways[low]
            g += 1
        for here, x in taken:
            for c, _ in here:
                residual[c] += x
            mined.pop()

    visit(0, 0, 1)
    return ComponentCount(tuple(counts), tuple(map(tuple, cell_counts)))


def count_component(component: Component, backend: Backend | None = None) -> ComponentCount:
    """Exact counts of ``component``: one group directly, a few groups by enumeration
    (:func:`_enumerate`), the rest by the merged backtracking search (see module doc)."""
    sizes = component.sizes
    if len(sizes) == 1:  # common after reductions: one group under one or more constraints
        return _single_group(sizes[0], {t for _, t in component.constraints})
    if prod(size + 1 for size in sizes) <= _ENUMERATE:
        if backend is not None:  # as the merged search does before its first layer
            backend._check_deadline(backend._deadline())
        try:
            return _enumerate(component, _NODES)
        except _OverBudget:
            pass
    return merged_search(component, backend)


def merged_search(component: Component, backend: Backend | None = None) -> ComponentCount:
    """Exact counts of ``component`` by the merged backtracking search (see module doc)."""
    sizes = component.sizes
    cons = component.constraints
    n = len(sizes)
    if n == 1:
        return _single_group(sizes[0], {t for _, t in cons})
    cons_of: list[list[int]] = [[] for _ in range(n)]
    for ci, (groups, _) in enumerate(cons):
        for g in groups:
            cons_of[g].append(ci)
    # Up to a few groups, any order keeps few constraints open: their own is used.
    order = list(range(n)) if n <= _SMALL else ranked_order(component)
    position = [0] * n
    for i, g in enumerate(order):
        position[g] = i
    last = [max(position[g] for g in groups) for groups, _ in cons]
    targets = [t for _, t in cons]

    # Coefficients never exceed C(n_cells, k) < 2**n_cells: that many bits per slot suffice.
    # Up to 8 bytes, round to a numpy integer width so unpacking is one call; beyond, to
    # whole 64-bit words.
    nbytes = component.n_cells // 8 + 1
    nbytes = 1 << (nbytes - 1).bit_length() if nbytes <= 8 else 8 * (component.n_cells // 64 + 1)
    bits = 8 * nbytes
    length = component.n_cells + 1

    # One plan per layer: how a node's state (residuals of the open constraints) maps to
    # the group's bounds and to the next layer's state.
    plans = []
    open_now: list[int] = []
    cells_left = [sum(sizes[g] for g in groups) for groups, _ in cons]
    for i, g in enumerate(order):
        here = cons_of[g]
        slot = {c: k for k, c in enumerate(open_now)}
        # Each touched constraint: its slot in the state (or None when first touched here),
        # its target, and the cells it still has after this group.
        touched = []
        for c in here:
            cells_left[c] -= sizes[g]
            touched.append((slot.get(c), targets[c], cells_left[c]))
        # Constraints still open after this group: those already open, then the new ones.
        after = [c for c in open_now if last[c] > i]
        after += [c for c in here if c not in slot and last[c] > i]
        where = {c: k for k, c in enumerate(here)}
        layout = [(True, where[c]) if c in where else (False, slot[c]) for c in after]
        plans.append((sizes[g], touched, layout))
        open_now = after

    deadline = backend._deadline() if backend is not None else None
    alpha: list[dict[tuple, int]] = [{(): 1}]
    edges: list[list[tuple[tuple, int, tuple]]] = []
    for size, touched, layout in plans:
        if backend is not None:
            backend._check_deadline(deadline)
        terms = _terms(size, bits)[0]
        own = [p for p, (is_own, _) in enumerate(layout) if is_own]
        nxt: dict[tuple, int] = {}
        level_edges = []
        for k, (key, weight) in enumerate(alpha[-1].items()):
            if not k & _CHECK_EVERY and backend is not None:  # wide layers hold millions
                backend._check_deadline(deadline)
            lo = 0
            hi = size
            residual = []
            for s, t, rest in touched:
                res = t if s is None else key[s]
                residual.append(res)
                if res - rest > lo:
                    lo = res - rest
                if res < hi:
                    hi = res
            if lo > hi:
                continue
            base = [residual[k] if is_own else key[k] for is_own, k in layout]
            for x in range(lo, hi + 1):
                if x:
                    state = base.copy()
                    for p in own:
                        state[p] -= x
                    new = tuple(state)
                else:
                    new = tuple(base)
                nxt[new] = nxt.get(new, 0) + terms[x] * weight
                level_edges.append((key, x, new))
        alpha.append(nxt)
        edges.append(level_edges)

    beta: dict[tuple, int] = {(): 1} if () in alpha[-1] else {}
    marginals: list[int] = [0] * n
    for i in range(n - 1, -1, -1):
        if backend is not None:  # the backward pass costs about as much as the forward one
            backend._check_deadline(deadline)
        terms, cell_terms = _terms(plans[i][0], bits)
        prev: dict[tuple, int] = {}
        alpha_i = alpha[i]
        mass = 0
        for k, (key, x, new) in enumerate(edges[i]):
            if not k & _CHECK_EVERY and backend is not None:
                backend._check_deadline(deadline)
            b = beta.get(new)
            if not b:
                continue
            prev[key] = prev.get(key, 0) + terms[x] * b
            if x:
                mass += cell_terms[x] * alpha_i[key] * b
        marginals[order[i]] = mass
        beta = prev
    total = beta.get((), 0)
    return ComponentCount(
        counts=_unpack(total, length, nbytes),
        cell_counts=tuple(_unpack(m, length, nbytes) for m in marginals),
    )


class DssBackend(Backend):
    """Exact counting by merged backtracking with DSS propagation (pure Python, no extras)."""

    name = "dss"
    description = "backtracking with DSS propagation, identical sub-problems merged"

    def count(self, component: Component) -> ComponentCount:
        return count_component(component, self)
