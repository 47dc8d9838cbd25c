"""Boards as factor graphs for ``learner:graph``, and the exact marginals it learns from.

A board is stated and propagated exactly first (:func:`mscsp.estimators.bp.factor_graph`,
the same graph ``bp`` runs on): what propagation settles is exact and never reaches the net.
What is left becomes a :class:`Graph`: one node per open group of cells (cells next to the
same numbers; every cell of a group has the same odds), one node per number still open,
an edge where a group touches a number, and per board the mines left and the covered cells
next to no number (the free cells, which share what the frontier leaves).

The training positions are drawn by seed from the families of :mod:`mscsp.evaluation.families`
(:data:`TRAIN_FAMILIES`, smaller than the hard corpus's held-out boards) and labelled with
the exact odds of the default counting backend; :func:`make_dataset` writes them as one
``.npz`` with every graph concatenated (:class:`Graphs`), so training never calls a solver.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.estimators.bp import FactorGraph, factor_graph
from mscsp.evaluation.families import Setting
from mscsp.validate import check_int

#: Features of a group node, a number node and an edge (see :func:`encode`).
VAR_FEATURES, FACTOR_FEATURES, EDGE_FEATURES, GLOBAL_FEATURES = 3, 5, 2, 3


@dataclass(frozen=True)
class Graph:
    """One board's open factor graph, as arrays.

    Attributes:
        var: ``(V, VAR_FEATURES)`` per open group.
        factor: ``(F, FACTOR_FEATURES)`` per open number.
        edge: ``(E, EDGE_FEATURES)`` per group-number pair.
        edge_var, edge_factor: ``(E,)`` the group and the number of each edge.
        size: ``(V,)`` cells per group.
        target: ``(F,)`` mines each number still needs among its groups.
        glob: ``(GLOBAL_FEATURES,)`` the board's mines left, free cells and density.
        left: Mines left for the open groups and the free cells.
        n_free: Covered cells next to no number.
    """

    var: np.ndarray
    factor: np.ndarray
    edge: np.ndarray
    edge_var: np.ndarray
    edge_factor: np.ndarray
    size: np.ndarray
    target: np.ndarray
    glob: np.ndarray
    left: int | np.ndarray
    n_free: int | np.ndarray


def encode(graph: FactorGraph) -> Graph:
    """The net's input for ``graph``: counts scaled so that board size does not show.

    Every feature is local (a group's size, a number's need and scope) or a ratio of the
    board's totals (the density of mines left, the share of free cells), so a net trained
    on small boards meets the same ranges of values on large ones.
    """
    size = graph.sizes.astype(np.float64)
    edge_var = np.array([g for groups, _ in graph.factors for g in groups], dtype=np.int32)
    edge_factor = np.array(
        [f for f, (groups, _) in enumerate(graph.factors) for _ in groups], dtype=np.int32
    )
    target = np.array([t for _, t in graph.factors], dtype=np.float64)
    scope = np.zeros(len(graph.factors))
    np.add.at(scope, edge_factor, size[edge_var])
    arity = np.bincount(edge_factor, minlength=len(graph.factors)).astype(np.float64)
    open_cells = float(size.sum()) + graph.n_free
    density = graph.left / open_cells if open_cells else 0.0
    free_share = graph.n_free / open_cells if open_cells else 0.0
    var = np.stack([np.log(size), 1.0 / size, np.full_like(size, density)], axis=1)
    factor = np.stack(
        [target / scope, target / 8.0, np.log(scope), arity / 8.0, (scope - target) / 8.0],
        axis=1,
    )
    edge = np.stack([size[edge_var] / scope[edge_factor], np.log(size[edge_var])], axis=1)
    glob = np.array([density, free_share, math.log1p(graph.n_free)])
    return Graph(
        var=var.astype(np.float32),
        factor=factor.reshape(-1, FACTOR_FEATURES).astype(np.float32),
        edge=edge.reshape(-1, EDGE_FEATURES).astype(np.float32),
        edge_var=edge_var,
        edge_factor=edge_factor,
        size=size.astype(np.float32),
        target=target.astype(np.float32),
        glob=glob.astype(np.float32),
        left=graph.left,
        n_free=graph.n_free,
    )


def group_labels(graph: FactorGraph, exact: np.ndarray) -> tuple[np.ndarray, float]:
    """Each open group's exact mine probability and a free cell's, from the exact map."""
    groups = np.array([exact[c[0, 0], c[0, 1]] for c in graph.cells], dtype=np.float32)
    free = float(exact[graph.free[0, 0], graph.free[0, 1]]) if graph.n_free else 0.0
    return groups, free


#: Training sizes per family: all below the held-out boards of the hard corpus (lattices
#: 12x12 and up, bands 9x30 / 13x16 / 7x60 / 5x30, strips 50 and 100, toollib 21x10,
#: games 30x30 and 100x100), so every test there is on a larger board.
TRAIN_FAMILIES: dict[str, dict[str, Sequence]] = {
    "lattice": {"rows": range(5, 12), "cols": range(5, 12), "density": (0.1, 0.5)},
    "band": {"rows": (3, 5, 7), "cols": range(8, 25), "density": (0.2, 0.6)},
    "toollib": {"rows": range(6, 16), "cols": range(6, 10), "density": (0.1, 0.5)},
    "strip": {"rows": (3,), "cols": range(8, 36), "density": (0.5, 0.5)},
    "game": {"rows": (9, 16), "cols": (9, 16, 30), "density": (0.12, 0.27)},
}


def specs(n: int, seed: int) -> Iterator[Setting]:
    """``n`` training positions, families in turn, knobs drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    names = list(TRAIN_FAMILIES)
    for i in range(n):
        family = names[i % len(names)]
        knobs = TRAIN_FAMILIES[family]
        lo, hi = knobs["density"]
        yield Setting(
            family,
            int(rng.choice(knobs["rows"])),
            int(rng.choice(knobs["cols"])),
            round(float(rng.uniform(lo, hi)), 3),
            int(rng.integers(2**31)),
            int(rng.integers(1, 12)) if family == "game" else 0,
        )


@dataclass(frozen=True)
class Graphs(Graph):
    """Many graphs concatenated (node indices offset), with per-graph ranges and labels.

    The arrays of :class:`Graph` are stacked: ``glob``, ``left`` and ``n_free`` hold one row
    per graph. ``var_ptr[i]:var_ptr[i + 1]`` are graph ``i``'s groups, and likewise for
    numbers and edges; ``label`` is each group's exact probability, ``free_label`` each
    graph's free cell's (0 when it has none).
    """

    var_ptr: np.ndarray
    factor_ptr: np.ndarray
    edge_ptr: np.ndarray
    label: np.ndarray
    free_label: np.ndarray
    family: np.ndarray

    def __len__(self) -> int:
        return len(self.glob)

    def head(self, k: int) -> Graphs:
        """The first ``k`` graphs (positions are drawn family by family in turn, so a
        prefix keeps the families' shares).

        Raises:
            InvalidInputError: ``k`` is not a count from 0 to the graphs held.
        """
        if check_int(k, "k") > len(self):
            raise InvalidInputError(f"k must be at most {len(self)} (the graphs held), not {k}")
        v, f, e = int(self.var_ptr[k]), int(self.factor_ptr[k]), int(self.edge_ptr[k])
        return Graphs(
            var=self.var[:v],
            factor=self.factor[:f],
            edge=self.edge[:e],
            edge_var=self.edge_var[:e],
            edge_factor=self.edge_factor[:e],
            size=self.size[:v],
            target=self.target[:f],
            glob=self.glob[:k],
            left=self.left[:k],
            n_free=self.n_free[:k],
            var_ptr=self.var_ptr[: k + 1],
            factor_ptr=self.factor_ptr[: k + 1],
            edge_ptr=self.edge_ptr[: k + 1],
            label=self.label[:v],
            free_label=self.free_label[:k],
            family=self.family[:k],
        )

    def save(self, path: str) -> None:
        np.savez_compressed(path, **{k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: str) -> Graphs:
        with np.load(path) as data:
            return cls(**{k: data[k] for k in cls.__dataclass_fields__})


def concat(
    graphs: Sequence[Graph],
    labels: Sequence[np.ndarray],
    free_labels: Sequence[float],
    families: Sequence[str],
) -> Graphs:
    """``graphs`` with their labels as one :class:`Graphs` (edge indices made global)."""
    v = np.cumsum([0] + [len(g.var) for g in graphs])
    f = np.cumsum([0] + [len(g.factor) for g in graphs])
    e = np.cumsum([0] + [len(g.edge) for g in graphs])
    return Graphs(
        var=np.concatenate([g.var for g in graphs]),
        factor=np.concatenate([g.factor for g in graphs]),
        edge=np.concatenate([g.edge for g in graphs]),
        edge_var=np.concatenate([g.edge_var + v[i] for i, g in enumerate(graphs)]),
        edge_factor=np.concatenate([g.edge_factor + f[i] for i, g in enumerate(graphs)]),
        size=np.concatenate([g.size for g in graphs]),
        target=np.concatenate([g.target for g in graphs]),
        glob=np.stack([g.glob for g in graphs]),
        left=np.array([g.left for g in graphs], dtype=np.float32),
        n_free=np.array([g.n_free for g in graphs], dtype=np.float32),
        var_ptr=v,
        factor_ptr=f,
        edge_ptr=e,
        label=np.concatenate(labels).astype(np.float32),
        free_label=np.array(free_labels, dtype=np.float32),
        family=np.array(families),
    )


def label_spec(spec: Setting, time_limit: float) -> tuple[Graph, np.ndarray, float, str] | None:
    """The encoded graph of ``spec``'s position and its exact labels.

    ``None`` when the position has nothing open after propagation, its game ended, or the
    exact count did not finish within ``time_limit`` (such boards are what the net is for,
    but without the exact odds they cannot teach it).
    """
    from mscsp.errors import SolverLimitError
    from mscsp.estimators import get_estimator

    board = spec.board()
    if board is None:
        return None
    graph = factor_graph(board)
    if len(graph.sizes) == 0:
        return None
    try:
        exact = get_estimator(time_limit=time_limit).estimate(board)
    except SolverLimitError:
        return None
    labels, free = group_labels(graph, exact)
    return encode(graph), labels, free, spec.family


def make_dataset(
    n: int, seed: int, out: str, time_limit: float = 5.0, workers: int = 1, log=print
) -> Graphs:
    """Labels ``n`` positions drawn from ``seed`` and saves them at ``out`` (``.npz``)."""
    import concurrent.futures as cf
    import functools
    import time

    work = list(specs(n, seed))
    rows = []
    start = time.monotonic()
    label = functools.partial(label_spec, time_limit=time_limit)
    with cf.ProcessPoolExecutor(workers) as pool:
        for i, row in enumerate(pool.map(label, work, chunksize=8), 1):
            if row is not None:
                rows.append(row)
            if i % 200 == 0 or i == n:
                rate = i / (time.monotonic() - start)
                log(f"{i}/{n} positions ({len(rows)} kept), {rate:.1f}/s")
    graphs = concat(*zip(*rows, strict=True))
    graphs.save(out)
    return graphs
