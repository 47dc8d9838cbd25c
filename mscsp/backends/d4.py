"""``d4``: knowledge compilation to d-DNNF with D4 (``d4solver``, imported as ``py_d4``).

One compilation per component; every count is then read off the compiled circuit:

1. **CNF.** The cell-level CNF of :func:`~mscsp.formats.cnf.cell_cnf`: one variable per
   cell, each number "exactly ``t``" encoded directly (no auxiliary variable). A
   constraint too large for that gets a sequential counter, whose auxiliary variables the
   cells determine once the count is exact, so each cell-level solution still has exactly
   one model and no projection is needed.
2. **Compile** with D4 to a d-DNNF (decomposable ANDs, deterministic ORs, literals on the
   edges), exported in its NNF text.
3. **Count** in Python, one bottom-up pass over the circuit in the polynomial semiring of
   ``sdd`` (a polynomial in the number of mines ``X`` packed into one Python integer): a
   mine literal weighs ``X``, a safe one ``1``; a variable an OR child does not mention is
   free there and multiplies it by ``1 + X`` (``2`` for an auxiliary variable). The pass
   gives ``counts``; the same pass with the first cell of group ``g`` conditioned mined
   (its safe literal weighs 0, and where free it contributes ``X``) gives
   ``cell_counts[g]``. That is ``1 + groups`` passes over one compilation, no count per
   mine total.

Why not D4's own queries: its compiled circuit counts under assumptions, exactly, but
only unweighted; with weights (the only way to get counts by mine total from one
compilation) it computes in floating point of about 40 digits, which rounds the packed
polynomials of any component past a dozen cells (checked: a 15-cell component's packed
count came back off in its low digits).

D4 runs each compilation to its end, so with a time limit a component larger than
:data:`IN_PROCESS_CELLS` is compiled and counted in a child process killed at the deadline
(:func:`~mscsp.backends.native.run_native`, which also silences the progress lines D4
prints on descriptor 1).
"""

from __future__ import annotations

import functools
import json
from math import prod

from ..constraints import Component, ComponentCount
from ..formats.cnf import cell_cnf
from .base import Backend
from .native import run_native
from .sdd import Poly

#: Components of at most this many cells are compiled in this process even with a time
#: limit: D4 compiles them in about a millisecond, less than a child takes to start.
IN_PROCESS_CELLS = 24


class D4Backend(Backend):
    """Compile each component to a d-DNNF once (D4), then read every count off it with
    ``1 + groups`` polynomial passes."""

    name = "d4"
    extra = "d4"
    description = "knowledge compilation to d-DNNF (D4), then polynomial passes over the circuit"
    requires = ("py_d4",)
    distribution = "d4solver"

    def count(self, component: Component) -> ComponentCount:
        end = self._deadline()
        if component.n_cells <= IN_PROCESS_CELLS:
            self._check_deadline(end)
            end = None
        return run_native(d4_counts, component, end=end, on_limit=self._limit_error)


def d4_counts(component: Component) -> ComponentCount:
    """The component's counts by mine total and per group, from one D4 compilation."""
    import py_d4

    n = component.n_cells
    clauses, top, first = cell_cnf(component)
    circuit = Circuit(py_d4.Solver(clauses, top, _config()).compile().getNNFString(), top)
    poly = Poly(n)
    total, marginals = circuit.count(poly, n, first)
    return ComponentCount(poly.unpack(total), tuple(poly.unpack(marginals[f]) for f in first))


#: Bytes of D4's cache that it reserves at first, and then at a time. D4's own 4 GiB first
#: page counts in full against a memory ceiling (``RLIMIT_DATA``: the bench's and the web
#: workers') although a component touches a few MB of it; pages are added as it grows.
CACHE_PAGE = 64 * 2**20


@functools.cache
def _config() -> object:
    """D4's default options with :data:`CACHE_PAGE` pages."""
    import py_d4

    options = json.loads(py_d4.dump_options_to_json(py_d4.OptionDpllStyleMethod()))
    options["cache"]["bucket"]["sizeFirstPage"] = str(CACHE_PAGE)
    options["cache"]["bucket"]["sizeAdditionalPage"] = str(CACHE_PAGE)
    return py_d4.load_options_from_json(json.dumps(options))


class Circuit:
    """A d-DNNF in D4's NNF text, children before parents, for counting passes.

    The text has one line per node (``o ID 0``, ``a ID 0``, ``t ID 0``, ``f ID 0``: or,
    and, true, false; node 1 is the root) and one per edge (``PARENT CHILD LIT... 0``: the
    child conjoined with the literals).
    """

    def __init__(self, text: str, variables: int):
        self.variables = variables
        kinds: dict[int, str] = {}
        edges: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        for line in text.splitlines():
            words = line.split()
            if not words or words[0] == "c":
                continue
            if words[0] in ("o", "a", "t", "f"):
                kinds[int(words[1])] = words[0]
            else:
                values = [int(w) for w in words[:-1]]
                edges.setdefault(values[0], []).append((values[1], tuple(values[2:])))
        self.kinds, self.edges = kinds, edges
        # Children before parents: a depth-first post-order, without recursion (circuits
        # can be deep). A node is expanded once; its finish mark lies below its children's.
        self.order: list[int] = []
        expanded: set[int] = set()
        stack = [(1, False)]
        while stack:
            node, done = stack.pop()
            if done:
                self.order.append(node)
            elif node not in expanded:
                expanded.add(node)
                stack.append((node, True))
                stack += [(child, False) for child, _ in edges.get(node, ())]
        # Variables each node mentions, as a bit mask (bit v: variable v).
        self.mask: dict[int, int] = {}
        for node in self.order:
            mask = 0
            for child, lits in edges.get(node, ()):
                mask |= self.mask[child]
                for lit in lits:
                    mask |= 1 << abs(lit)
            self.mask[node] = mask

    def count(self, poly: Poly, cells: int, wanted: list[int]) -> tuple[int, dict[int, int]]:
        """The packed count polynomial of the circuit's models over all its variables
        (variables ``1..cells`` are cells, a mine weighing ``X``), and that of the models
        with each ``wanted`` cell mined.

        Bottom-up, each node's value; top-down, each node's derivative ``D`` (the root's
        value per unit of the node's). The models through an edge weigh ``D(parent)`` times
        the parent's value (AND) or the edge's smoothed term (OR); a wanted cell is mined
        in all of them when its literal is on the edge, and in the share ``X / (1 + X)``
        when it is free there.
        """
        x, free = poly.x, poly.free
        cell_bits = ((1 << cells) - 1) << 1
        want_bits = sum(1 << v for v in wanted)
        power = [1]  # power[m] = X**m: an edge with m mine literals weighs it
        for _ in range(cells):
            power.append(power[-1] * x)

        def smooth(missing: int) -> int:
            # A free cell is mine or safe (1 + X), a free auxiliary variable either value (2).
            return free[(missing & cell_bits).bit_count()] << (missing & ~cell_bits).bit_count()

        # Per edge: (child, literal weight, smoothing factor, wanted cells free below it).
        edges: dict[int, list[tuple[int, int, int, int]]] = {}
        value: dict[int, int] = {}
        for node in self.order:
            kind = self.kinds[node]
            if kind in ("t", "f"):
                value[node] = int(kind == "t")
                continue
            rows = []
            for child, lits in self.edges.get(node, ()):
                weight = power[sum(1 for lit in lits if 0 < lit <= cells)]
                factor, gap = 1, 0
                if kind == "o":
                    mask = self.mask[child]
                    for lit in lits:
                        mask |= 1 << abs(lit)
                    missing = self.mask[node] & ~mask
                    factor = smooth(missing)
                    gap = missing & want_bits
                rows.append((child, weight, factor, gap))
            edges[node] = rows
            terms = [value[child] * weight * factor for child, weight, factor, _ in rows]
            value[node] = prod(terms) if kind == "a" else sum(terms)

        every = ((1 << self.variables) - 1) << 1
        root_gap = every & ~self.mask[1]
        derivative = dict.fromkeys(self.order, 0)
        derivative[1] = smooth(root_gap)
        marginal = dict.fromkeys(wanted, 0)
        self._add_free(marginal, value[1] * derivative[1], root_gap & want_bits, x)
        for node in reversed(self.order):
            kind, d = self.kinds[node], derivative[node]
            if kind in ("t", "f") or not d:
                continue
            rows = edges[node]
            lits_of = self.edges[node]
            if kind == "a":
                terms = [value[child] * weight for child, weight, _, _ in rows]
                # Product of the other terms: prefix times suffix (a term may be 0).
                after = [1] * (len(terms) + 1)
                for i in range(len(terms) - 1, -1, -1):
                    after[i] = after[i + 1] * terms[i]
                before, through = 1, d * value[node]
                for i, (child, weight, _, _) in enumerate(rows):
                    derivative[child] += d * weight * before * after[i + 1]
                    before *= terms[i]
                    for lit in lits_of[i][1]:
                        if lit in marginal:
                            marginal[lit] += through
                continue
            for (child, weight, factor, gap), (_, lits) in zip(rows, lits_of, strict=True):
                derivative[child] += d * weight * factor
                through = d * value[child] * weight * factor
                for lit in lits:
                    if lit in marginal:
                        marginal[lit] += through
                self._add_free(marginal, through, gap, x)
        return value[1] * derivative[1], marginal

    @staticmethod
    def _add_free(marginal: dict[int, int], through: int, gap: int, x: int) -> None:
        """Adds the mined share ``X / (1 + X)`` of ``through`` to each cell of ``gap``
        (exact: ``through`` has a factor ``1 + X`` for each of them)."""
        if not gap:
            return
        share = through // (1 + x) * x
        while gap:
            low = gap & -gap
            marginal[low.bit_length() - 1] += share
            gap ^= low
