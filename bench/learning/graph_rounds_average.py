"""Recipe: does ``learner:graph`` gain by averaging its odds over several round counts?
(issue 34).

On the held-out lattices, bands and strips of the hard corpus that ``mdd`` counts exactly
(``graph_curves.held_out_positions``: those the records mark larger than training), the
shipped net's odds at every even round count from 8 to 32, and their mean over a few
windows of counts, against the exact odds: cell-weighted mean and max |dp| per family.
Exact odds are cached in ``--out``/truths.npz. Accuracy only (nothing is timed)::

    python bench/learning/graph_rounds_average.py --out runs/graph-rounds
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from graph_curves import held_out_positions  # (this folder's: the same held-out positions)

from learners.graph.player import GraphPlayer
from mscsp import COVERED
from mscsp.estimators import get_estimator

ROUNDS = tuple(range(8, 33, 2))
WINDOWS = {"12-20": range(12, 21, 2), "14-18": (14, 16, 18), "16-24": range(16, 25, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--exact-limit", type=float, default=20.0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    positions = held_out_positions()
    cache = args.out / "truths.npz"
    truths = dict(np.load(cache)) if cache.exists() else {}
    for name, _, board in positions:
        if name not in truths:
            truths[name] = get_estimator("mdd", time_limit=args.exact_limit).estimate(board)
            np.savez(cache, **truths)
    odds = {}
    for rounds in ROUNDS:
        net = GraphPlayer("graph", iterations=rounds)
        for name, _, board in positions:
            odds[name, rounds] = net.estimate([board])[0]
    combos = {f"{r} rounds": (r,) for r in ROUNDS}
    combos.update({f"mean of {k}": tuple(v) for k, v in WINDOWS.items()})
    results = {}
    for label, counts in combos.items():
        sums: dict[str, list[float]] = {}
        for name, family, board in positions:
            covered = board.cells == COVERED
            mean = np.mean([odds[name, r] for r in counts], axis=0)
            diff = np.abs(mean - truths[name])[covered]
            row = sums.setdefault(family, [0.0, 0.0, 0.0])
            row[0] += diff.sum()
            row[1] += diff.size
            row[2] = max(row[2], float(diff.max()))
        results[label] = {f: {"mean": s / n, "max": top} for f, (s, n, top) in sums.items()}
        cells = " ".join(f"{f} {v['mean']:.4f}/{v['max']:.3f}" for f, v in results[label].items())
        print(f"{label:16s} {cells}", flush=True)
    (args.out / "rounds_average.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
