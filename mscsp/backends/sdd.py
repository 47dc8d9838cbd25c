"""``sdd``: knowledge compilation to a Sentential Decision Diagram (``pysdd``), then counting.

One compilation per component, then two linear passes over the diagram give every count
(a #SAT approach done the compiled way, no counter call per mine total or per group):

1. **Compile.** One SDD variable per cell, cells ordered along a breadth-first sweep of the
   groups; each number is "exactly ``t`` of these cells", built bottom-up as a small
   cardinality diagram, and the numbers are conjoined in sweep order. The vtree is
   right-linear over that order by default (an ordered BDD in SDD clothing, whose size is
   bounded by the number of constraints open at once) or balanced (``vtree=balanced``,
   which follows a tree decomposition of the order instead).
2. **Bottom-up.** Each node's count of its models by number of mines, a polynomial in
   ``X`` (a mine literal weighs ``X``, a safe one ``1``), packed into one Python integer
   per node (Kronecker substitution, as in ``dss``): sums and products are big-integer
   operations. An SDD element may leave variables of its vtree unmentioned (a *gap*); each
   such variable is free and multiplies the count by ``1 + X``.
3. **Top-down.** The derivative of the root's count with respect to each node; a cell's
   marginal (solutions with it mined, by mine total) is the sum over its positive literal
   nodes of derivative times ``X``, plus, for every element where it is a gap variable,
   that element's contribution with its ``1 + X`` factor replaced by ``X``. Gap
   contributions are added to the vtree node spanning the gap and subtracted from the
   node that is not a gap, then pushed down the vtree once, so each element costs O(1).

The marginal of a group is that of any one of its cells (they are interchangeable).
"""

from __future__ import annotations

from typing import Any

from ..constraints import Component, ComponentCount
from ..errors import InvalidInputError
from .base import Backend
from .native import run_native
from .order import sweep_order

#: Vtree shapes the ``vtree`` option accepts.
VTREES = ("right", "balanced", "left", "vertical")
#: Components of at most this many cells are counted in this process even with a time limit.
IN_PROCESS_CELLS = 24


def _exactly(manager: Any, lits: list[Any], bound: int) -> Any:
    """SDD of "exactly ``bound`` of ``lits``" by the usual cardinality recursion."""
    # row[j]: "exactly j of the literals seen so far" (j = 0..bound).
    row = [manager.true()] + [manager.false()] * bound
    for lit in lits:
        neg = ~lit
        row = [row[0] & neg] + [(row[j] & neg) | (row[j - 1] & lit) for j in range(1, bound + 1)]
    return row[bound]


class Poly:
    """Packed polynomial arithmetic for one component (``bits`` per coefficient)."""

    def __init__(self, n_cells: int):
        self.bits = n_cells + 1
        self.length = n_cells + 1
        self.x = 1 << self.bits
        one_plus_x = 1 + self.x
        self.free = [1]  # free[j] = (1 + X)**j
        for _ in range(n_cells):
            self.free.append(self.free[-1] * one_plus_x)

    def unpack(self, value: int) -> tuple[int, ...]:
        mask = (1 << self.bits) - 1
        return tuple((value >> (self.bits * k)) & mask for k in range(self.length))


class SddBackend(Backend):
    """Compile each component to an SDD, then count every mine total and group in two passes.

    Options:
        vtree: Vtree shape over the sweep order: ``right`` (default), ``balanced``,
            ``left`` or ``vertical`` (also given as ``sdd:NAME``).
    """

    name = "sdd"
    extra = "compile"
    description = (
        "knowledge compilation to an SDD (pysdd), bottom-up and top-down polynomial passes"
    )
    requires = ("pysdd.sdd",)
    distribution = "pysdd"
    options_allowed = ("solver", "vtree")

    def __init__(self, time_limit: float | None = None, max_solutions: int | None = None, **opts):
        super().__init__(time_limit, max_solutions, **opts)
        self.vtree_type = opts.get("vtree", opts.get("solver", "right"))
        if self.vtree_type not in VTREES:
            raise InvalidInputError(
                f"unknown vtree {self.vtree_type!r}; choose from {', '.join(VTREES)}"
            )

    def count(self, component: Component) -> ComponentCount:
        # A library call (one conjunction) cannot be interrupted and can take seconds: with a
        # time limit the count runs in a child process killed at it. Small components
        # compile in milliseconds (at most 25 ms up to 24 cells on real games), less than a
        # child takes to start (10-20 ms), so they are counted here.
        end = self._deadline()
        if component.n_cells <= IN_PROCESS_CELLS:
            self._check_deadline(end)
            end = None
        return run_native(
            sdd_counts, component, self.vtree_type, end=end, on_limit=self._limit_error
        )


def sdd_counts(component: Component, vtree_type: str) -> ComponentCount:
    """The component compiled to an SDD over a ``vtree_type`` vtree, and its counts."""
    from pysdd.sdd import SddManager, Vtree

    sizes = component.sizes
    n = component.n_cells
    first = [0] * len(sizes)  # first SDD variable of each group
    order = sweep_order(component)
    top = 0
    for g in order:
        first[g] = top + 1
        top += sizes[g]
    vtree = Vtree(n, list(range(1, n + 1)), vtree_type)
    manager = SddManager.from_vtree(vtree)
    manager.auto_gc_and_minimize_off()
    lit = [None] + [manager.literal(i) for i in range(1, n + 1)]
    rank = {g: i for i, g in enumerate(order)}
    root = manager.true()
    for groups, t in sorted(component.constraints, key=lambda c: max(rank[g] for g in c[0])):
        cells = [lit[first[g] + j] for g in groups for j in range(sizes[g])]
        root = root & _exactly(manager, cells, t)
    return _counts(manager, root, n, [first[g] for g in range(len(sizes))])


def _counts(manager: Any, root: Any, n: int, cells: list[int]) -> ComponentCount:
    """Counts by mine total and the marginals of variables ``cells`` (see module doc)."""
    poly = Poly(n)
    free, x = poly.free, poly.x
    if root.is_false():
        zeros = (0,) * poly.length
        return ComponentCount(zeros, tuple(zeros for _ in cells))

    # The vtree: variables below each node (by position), parent links for the push-down.
    vtree_vars: dict[int, int] = {}
    children: dict[int, tuple[int, int]] = {}
    leaf_var: dict[int, int] = {}
    stack = [manager.vtree()]
    while stack:
        v = stack.pop()
        p = v.position()
        vtree_vars[p] = v.var_count()
        if v.is_leaf():
            leaf_var[p] = v.var()
        else:
            left, right = v.left(), v.right()
            children[p] = (left.position(), right.position())
            stack += [left, right]
    root_pos = manager.vtree().position()

    # Topological order of the diagram's nodes (children before parents).
    nodes: dict[int, Any] = {}
    post: list[int] = []
    stack2: list[tuple[Any, bool]] = [(root, False)]
    while stack2:
        node, done = stack2.pop()
        if done:
            post.append(node.id)
            continue
        if node.id in nodes:
            continue
        nodes[node.id] = node
        stack2.append((node, True))
        if node.is_decision():
            for prime, sub in node.elements():
                if prime.id not in nodes:
                    stack2.append((prime, False))
                if sub.id not in nodes:
                    stack2.append((sub, False))

    def width(node: Any) -> int:
        """Variables of the node's own vtree (0 for true/false)."""
        return 0 if node.is_true() or node.is_false() else vtree_vars[node.vtree().position()]

    # Bottom-up: value[id] counts models over the node's own vtree variables.
    value: dict[int, int] = {}
    elements: dict[int, list] = {}
    for nid in post:
        node = nodes[nid]
        if node.is_true():
            value[nid] = 1
        elif node.is_false():
            value[nid] = 0
        elif node.is_literal():
            value[nid] = x if node.literal > 0 else 1
        else:
            lpos, rpos = children[node.vtree().position()]
            nl, nr = vtree_vars[lpos], vtree_vars[rpos]
            total = 0
            items = []
            for prime, sub in node.elements():
                if sub.is_false() or prime.is_false():
                    continue
                gp, gs = nl - width(prime), nr - width(sub)
                items.append((prime.id, sub.id, gp, gs, lpos, rpos))
                total += value[prime.id] * value[sub.id] * free[gp + gs]
            elements[nid] = items
            value[nid] = total
    root_gap = n - width(root)
    counts = value[root.id] * free[root_gap]

    # Top-down: derivative of the root count by each node's value; gap marks per vtree node.
    deriv: dict[int, int] = {root.id: free[root_gap]}
    gap_mark: dict[int, int] = {}

    def mark(span: int, inner: int | None, amount: int) -> None:
        # Gap variables: those under vtree node ``span`` but not under ``inner``.
        gap_mark[span] = gap_mark.get(span, 0) + amount
        if inner is not None:
            gap_mark[inner] = gap_mark.get(inner, 0) - amount

    if root_gap:
        mark(
            root_pos,
            None if root.is_true() else root.vtree().position(),
            value[root.id] * free[root_gap - 1] * x,
        )
    marginal_lit: dict[int, int] = {}
    for nid in reversed(post):
        d = deriv.get(nid)
        if not d:
            continue
        node = nodes[nid]
        if node.is_literal():
            if node.literal > 0:
                marginal_lit[node.literal] = marginal_lit.get(node.literal, 0) + d * x
            continue
        for pid, sid, gp, gs, lpos, rpos in elements.get(nid, ()):
            vp, vs = value[pid], value[sid]
            deriv[pid] = deriv.get(pid, 0) + d * vs * free[gp + gs]
            deriv[sid] = deriv.get(sid, 0) + d * vp * free[gp + gs]
            if gp or gs:
                # Models of this element with one given gap variable mined.
                one = d * vp * vs * free[gp + gs - 1] * x
                if gp:
                    prime = nodes[pid]
                    mark(lpos, None if prime.is_true() else prime.vtree().position(), one)
                if gs:
                    sub = nodes[sid]
                    mark(rpos, None if sub.is_true() else sub.vtree().position(), one)

    # Push the gap marks down to the leaves: a variable gets the sum over its ancestors.
    from_gaps: dict[int, int] = {}
    stack3 = [(root_pos, 0)]
    while stack3:
        p, acc = stack3.pop()
        acc += gap_mark.get(p, 0)
        if p in leaf_var:
            from_gaps[leaf_var[p]] = acc
        else:
            stack3 += [(c, acc) for c in children[p]]
    marginals = [marginal_lit.get(v, 0) + from_gaps.get(v, 0) for v in cells]
    return ComponentCount(poly.unpack(counts), tuple(poly.unpack(m) for m in marginals))
