"""Cost of ``mscsp probs --explain all`` on expert positions: ms per position and per certain
cell (a position's time over its certain cells; median and p95), the solve excluded, with
the kinds of step found.

Usage: ``python bench/solvers/explain_speed.py [--positions 100] [--seed 1]``. Positions come from
seeded CSP-played expert games (:func:`mscsp.evaluation.played_positions.sample_positions`).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter

import numpy as np

from mscsp import solve
from mscsp.evaluation.played_positions import sample_positions
from mscsp.explain import explain_certain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    boards = sample_positions(16, 30, 99, args.positions, seed=args.seed)
    per_cell, per_position, kinds = [], [], Counter()
    for board in boards:
        solution = solve(board)
        start = time.perf_counter()
        found = explain_certain(board, solution=solution)
        elapsed = 1000 * (time.perf_counter() - start)
        per_position.append(elapsed)
        if found:  # every certain cell of the position costs about the same
            per_cell.extend([elapsed / len(found)] * len(found))
        kinds.update(e.kind for e in found)
    print(
        json.dumps(
            {
                "positions": len(boards),
                "cells": len(per_cell),
                "ms_per_cell": {"median": np.median(per_cell), "p95": np.percentile(per_cell, 95)},
                "ms_per_position": {
                    "median": np.median(per_position),
                    "p95": np.percentile(per_position, 95),
                },
                "kinds": dict(kinds),
                "load": os.getloadavg(),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
