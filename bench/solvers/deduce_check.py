"""The rules of ``mscsp.deduce`` on labelled positions: wrong cells, safe cells found, time.

For every ``--every``-th position of a data directory (``mscsp learn data``), each mode
(``rules``, ``cases``) is run on the whole board: every cell it settles is compared with the
exact probability (a wrong one is a bug), it counts the positions with a certain-safe cell
where it finds one, and times it on the positions without one (where the player's check
costs most: every assumption is tried). docs/learners.md::

    PYTHONPATH=$PWD python bench/solvers/deduce_check.py --data runs/data/expert-31m --every 10
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from learners.nets.data import load
from mscsp.board import Board
from mscsp.deduce import deduce


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="runs/data/expert-31m")
    parser.add_argument("--every", type=int, default=10, help="take every N-th position")
    args = parser.parse_args()
    positions = max(load([args.data]), key=len)
    taken = positions.take(np.arange(0, len(positions), args.every))
    rows = []
    for cases in (False, True):
        wrong = found = with_safe = 0
        guess_ms = []
        for cells, mines, probs in zip(taken.cells, taken.mines, taken.probs, strict=True):
            exact = np.where(cells == -1, probs, np.nan)
            has_safe = bool(np.nanmin(exact) == 0)
            start = time.perf_counter()
            settled = deduce(Board(cells, int(mines)), cases=cases)
            elapsed = time.perf_counter() - start
            wrong += sum(exact[c] != 0 for c in settled.safe)
            wrong += sum(exact[c] != 1 for c in settled.mines)
            with_safe += has_safe
            found += has_safe and bool(settled.safe)
            if not has_safe:
                guess_ms.append(elapsed * 1e3)
        rows.append(
            {
                "mode": "cases" if cases else "rules",
                "positions": len(taken),
                "wrong_cells": int(wrong),
                "certain_safe_positions": int(with_safe),
                "safe_found": int(found),
                "guess_positions": len(guess_ms),
                "ms_on_guess_positions": {
                    "median": float(np.median(guess_ms)),
                    "p90": float(np.percentile(guess_ms, 90)),
                    "max": float(np.max(guess_ms)),
                },
            }
        )
    print(json.dumps({"data": args.data, "every": args.every, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
