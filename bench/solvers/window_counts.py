"""Exact counts on windows of the factor graph, BP's messages at their borders (issue 34).

The region-based step that docs/estimators.md names as what ``learner:graph`` lacks, built
as an experiment to measure how far it goes before anything is built for speed:

1. Loopy BP (:func:`mscsp.estimators.bp.bp_messages`) on the group / number factor graph.
2. For each open group ``g`` its window: the numbers that hold it, and ``radius`` times
   over the numbers that share a group with those. Inside the window everything is summed
   exactly (a tensor contraction, ``opt_einsum``); each group's prior is ``C(size, x)
   lambda ** x`` times the messages of the numbers outside the window (BP's cavity, the
   only approximation left). ``g``'s odds are its exact marginal in that window.
3. The total: ``lambda`` is set again until the windows' expected mines equal the mines
   left (Newton steps with the windows' own variance, bisection once bracketed; BP is run
   again at each ``lambda``). ``--outer 1`` keeps BP's ``lambda``.

Radius 0 is BP's belief corrected for the loops among one group's numbers; a radius that
covers the whole graph is exact at the density ``lambda`` (the grand canonical ensemble),
which differs from the exact odds by the spread of the total. ``--floor`` measures that
difference where the whole graph contracts in memory: the error no density-based method
(BP, windows of any size, the learned net's inputs) can go below.

On the held-out positions of ``graph_curves.py`` (larger than any training board, exact
truth from ``bench/solvers/graph_heldout.py``'s ``truths.npz``), per family: mean and max
|dp| (cells of the family pooled) and the median seconds a board. Writes ``--out``
(JSON). Run it alone (it times)::

    python bench/solvers/window_counts.py --truths /path/truths.npz \\
        --out docs/estimators/graph/windows.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import opt_einsum

from mscsp import COVERED
from mscsp.estimators.bp import BpMessages, FactorGraph, bp_messages, factor_graph

#: Step in ``log lambda`` of the finite difference that gives ``E[mines in window | x_g]``.
EPS = 1e-4
#: Largest intermediate tensor (entries) the whole-graph contraction of ``--floor`` may make.
FLOOR_CELLS = 1 << 20
#: Most open groups of a board that ``--floor`` measures (one whole-graph contraction per
#: group and per ``lambda`` tried: larger boards take minutes each).
FLOOR_GROUPS = 80
#: The windows' expected total may miss the mines left by this much.
TOTAL_TOLERANCE = 0.01


class Underflow(ArithmeticError):
    """A window's sum left float64's range (a density far past what the numbers allow:
    the mines left are nearly the most, or the fewest, the numbers hold)."""


class Windows:
    """Each open group's window and the tensors its numbers contribute."""

    def __init__(self, graph: FactorGraph, radius: int | None):
        self.graph = graph
        self.factor_groups = [groups for groups, _ in graph.factors]
        self.holding: list[list[int]] = [[] for _ in graph.sizes]  # numbers of each group
        for f, groups in enumerate(self.factor_groups):
            for g in groups:
                self.holding[g].append(f)
        self.tensors = [self._indicator(f) for f in range(len(graph.factors))]
        everything = set(range(len(graph.factors)))
        self.members = [
            everything if radius is None else self._window(g, radius)
            for g in range(len(graph.sizes))
        ]

    def _indicator(self, f: int) -> np.ndarray:
        """Number ``f``'s factor: 1 where its groups' counts sum to what it needs."""
        groups, target = self.graph.factors[f]
        shape = [int(self.graph.sizes[g]) + 1 for g in groups]
        return (np.indices(shape).sum(axis=0) == target).astype(float)

    def _window(self, g: int, radius: int) -> set[int]:
        window = set(self.holding[g])
        rim = set(window)
        for _ in range(radius):
            rim = {f for h in self._groups_of(rim) for f in self.holding[h]} - window
            window |= rim
        return window

    def _groups_of(self, factors: set[int]) -> set[int]:
        return {g for f in factors for g in self.factor_groups[f]}

    def operands(self, g: int, state: BpMessages, shift: float) -> list:
        """The contraction of ``g``'s window at ``log lambda + shift``: opt_einsum's
        interleaved operands (a prior per group, an indicator per number)."""
        window = self.members[g]
        edges = state.edges
        with np.errstate(divide="ignore"):
            log_messages = np.log(state.to_group)
        outside = np.array([f not in window for f in edges.factor], dtype=bool)
        cavity = np.zeros((len(self.graph.sizes), edges.depth))
        np.add.at(cavity, edges.group[outside], log_messages[outside])
        ops: list = []
        for h in sorted(self._groups_of(window)):
            x = np.arange(int(self.graph.sizes[h]) + 1)
            logs = edges.log_ways[h, : len(x)] + x * (state.log_lambda + shift)
            logs = logs + cavity[h, : len(x)]
            ops += [np.exp(logs - logs.max()), [h]]
        for f in window:
            ops += [self.tensors[f], list(self.factor_groups[f])]
        return ops

    def marginal(self, g: int, state: BpMessages) -> tuple[np.ndarray, float]:
        """``g``'s exact distribution of mines in its window, and the covariance of its
        count with the window's total (for the density's Newton step)."""
        counts = opt_einsum.contract(*self.operands(g, state, 0.0), [g], optimize="greedy")
        shifted = opt_einsum.contract(*self.operands(g, state, EPS), [g], optimize="greedy")
        total, total_shifted = counts.sum(), shifted.sum()
        if not (0 < total < math.inf and 0 < total_shifted < math.inf):
            raise Underflow(f"group {g}'s window sums to {total!r} at this density")
        p = counts / total
        q = shifted / total_shifted
        live = p > 0
        given = np.zeros_like(p)  # E[window's mines | x_g] - E[window's mines]
        given[live] = (np.log(q[live]) - np.log(p[live])) / EPS
        x = np.arange(len(p))
        return p, float(p @ (x * given))

    def largest_intermediate(self, state: BpMessages) -> int:
        """Entries of the largest tensor the whole graph's contraction makes."""
        ops = self.operands(0, state, 0.0)
        _, info = opt_einsum.contract_path(*ops, [0], optimize="greedy")
        return int(info.largest_intermediate)


def window_odds(
    graph: FactorGraph, radius: int | None, outer: int
) -> tuple[np.ndarray, float, int]:
    """Each open group's mine probability, the final ``log lambda`` and the BP runs."""
    state = bp_messages(graph)
    windows = Windows(graph, radius)
    lo, hi = -math.inf, math.inf
    for run in range(1, outer + 1):
        odds, variance = np.zeros(len(graph.sizes)), 0.0
        for g in range(len(graph.sizes)):
            p, cov = windows.marginal(g, state)
            odds[g] = p @ np.arange(len(p)) / graph.sizes[g]
            variance += cov
        density = state.report.density
        variance += graph.n_free * density * (1 - density)
        gap = float(odds @ graph.sizes) + graph.n_free * density - graph.left
        if abs(gap) < TOTAL_TOLERANCE or run == outer:
            return odds, state.log_lambda, run
        if gap > 0:
            hi = state.log_lambda
        else:
            lo = state.log_lambda
        step = state.log_lambda - gap / max(variance, 1e-3)
        step = min(max(step, state.log_lambda - 2.0), state.log_lambda + 2.0)
        if not lo < step < hi:
            step = (lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi) else step
        state = bp_messages(graph, log_lambda=step)
    raise AssertionError("unreachable")


def board_odds(board, radius: int | None, outer: int) -> np.ndarray:
    """The board's cell probabilities from :func:`window_odds` (``None``: BP's own)."""
    graph = factor_graph(board)
    if len(graph.sizes) == 0:
        return graph.paint(board, np.zeros(0), graph.left / max(graph.n_free, 1))
    if radius == -1:
        state = bp_messages(graph)
        beliefs = state.beliefs()
        group_p = beliefs @ np.arange(beliefs.shape[1]) / graph.sizes
        return graph.paint(board, group_p, state.report.density)
    group_p, log_lambda, _ = window_odds(graph, radius, outer)
    return graph.paint(board, group_p, 1.0 / (1.0 + math.exp(-log_lambda)))


def measure(positions: list, radius: int | None, outer: int) -> dict:
    """Per family: pooled mean and max |dp|, median seconds, boards (and boards skipped)."""
    out: dict[str, dict] = {}
    for family, board, truth in positions:
        row = out.setdefault(family, {"abs_sum": 0.0, "cells": 0, "max": 0.0, "seconds": []})
        if radius is None:
            graph = factor_graph(board)
            if len(graph.sizes) == 0:
                continue
            state = bp_messages(graph)
            too_large = len(graph.sizes) > FLOOR_GROUPS
            if too_large or Windows(graph, None).largest_intermediate(state) > FLOOR_CELLS:
                row["skipped"] = row.get("skipped", 0) + 1
                continue
        start = time.perf_counter()
        try:
            odds = board_odds(board, radius, outer)
        except Underflow:
            row["underflow"] = row.get("underflow", 0) + 1
            continue
        row["seconds"].append(time.perf_counter() - start)
        mask = board.cells == COVERED
        diff = np.abs(odds[mask] - truth[mask])
        row["abs_sum"] += float(diff.sum())
        row["cells"] += int(diff.size)
        row["max"] = max(row["max"], float(diff.max(initial=0.0)))
        row.setdefault("boards", []).append(
            [
                f"{board.cols}x{board.rows}",
                round(float(diff.mean()), 5),
                round(float(diff.max()), 4),
            ]
        )
    return {
        family: {
            "mean": row["abs_sum"] / row["cells"] if row["cells"] else None,
            "max": row["max"],
            "median_s": statistics.median(row["seconds"]) if row["seconds"] else None,
            "skipped": row.get("skipped", 0),
            "underflow": row.get("underflow", 0),
            "boards": row.get("boards", []),  # [size, mean, max] of each board measured
        }
        for family, row in out.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--truths", type=Path, required=True, help="graph_heldout's truths.npz")
    parser.add_argument("--out", type=Path, required=True, help="the JSON to write")
    parser.add_argument("--radii", default="0,1,2", help="window radii, comma-separated")
    parser.add_argument("--outer", type=int, default=6, help="most BP runs for lambda")
    parser.add_argument("--floor", action="store_true", help="also the whole-graph floor")
    parser.add_argument("--only-floor", action="store_true", help="the floor alone")
    args = parser.parse_args()
    # (graph_curves imports JAX: not needed by the windows, so not at import time)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "learning"))
    from graph_curves import FAMILIES, held_out

    positions = held_out(args.truths)
    runs = [("bp", -1, 1)]
    runs += [(f"window:{r}, BP's lambda", int(r), 1) for r in args.radii.split(",")]
    runs += [(f"window:{r}", int(r), args.outer) for r in args.radii.split(",")]
    if args.only_floor:
        runs = [("bp", -1, 1)]
    if args.floor or args.only_floor:
        runs.append(("whole graph at the density (floor)", None, 30))
    results = {}
    for name, radius, outer in runs:
        results[name] = measure(positions, radius, outer)
        cells = " | ".join(
            f"{results[name][f]['mean']:.4f} / {results[name][f]['max']:.3f} "
            f"({results[name][f]['median_s']:.2f} s)"
            if results[name].get(f, {}).get("mean") is not None
            else "-"
            for f in FAMILIES
        )
        print(f"| {name} | {cells} |", flush=True)
    args.out.write_text(json.dumps({"families": FAMILIES, "results": results}, indent=1))


if __name__ == "__main__":
    main()
