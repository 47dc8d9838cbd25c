"""What the ``learner`` player's guesses cost against the exact ones, read six ways.

On the held-out positions of a data directory (games with ``seed % 10 == 0``; ``--all`` for
every game, on a directory the model never trained on), the model's predictions are read
with one view or the mean of the board's symmetric views, each with or without the
exchangeable cells pooled (:mod:`learners.nets.player`), and the last reading also with the
player's check before a guess (``rules``, ``cases``: :mod:`mscsp.deduce`). On positions that need
a guess (no certain-safe cell), the *regret* of a guess is the exact probability of the cell
the player picks minus the exact minimum. On positions with a certain-safe cell, it counts
how often the pick is one, and, for the misses, whether the ``certain`` channel's
deterministic reductions prove any cell safe (if they never do, a hard readout of that
channel cannot help). The tables of docs/learners.md::

    PYTHONPATH=$PWD python bench/learning/learner_regret.py --data runs/data/expert \
        --positions 12000
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from learners.nets.channels import certain
from learners.nets.data import encode, load
from learners.nets.player import (
    LearnerPlayer,
    choose_moves,
    exchangeable_mean,
    mean_of_views,
    symmetric_views,
)


def readouts(learner: LearnerPlayer, cells: np.ndarray, mines: np.ndarray) -> dict:
    """The six readings of one batch: one view or all, pooled or not, checked or not."""
    x = encode(cells, mines, learner.inputs)
    one = np.asarray(learner.predict(x))
    views = mean_of_views(np.asarray(learner.predict(symmetric_views(x))), len(x))
    pooled = exchangeable_mean(views, cells)
    out = {
        "one view": one,
        "views": views,
        "one view, pooled": exchangeable_mean(one, cells),
        "views, pooled": pooled,
    }
    for deduce in ("rules", "cases"):
        learner.deduce = deduce
        out[f"views, pooled, {deduce}"] = learner.check_before_guess(pooled, cells, mines)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--data", default="runs/data/expert")
    parser.add_argument("--positions", type=int, default=12000, help="0: every held-out one")
    parser.add_argument("--all", action="store_true", help="every game's positions, not 1 in 10")
    args = parser.parse_args()
    learner = LearnerPlayer(args.model, symmetric=False)
    data = max(load([args.data]), key=len)
    val = data if args.all else data.split()[1]
    if args.positions:
        val = val.take(np.arange(min(args.positions, len(val))))
    regret: dict[str, list[float]] = {}
    found: dict[str, int] = {}
    with_safe = misses_provable = 0
    for start in range(0, len(val), 256):
        part = val.take(np.arange(start, min(start + 256, len(val))))
        reads = readouts(learner, part.cells, part.mines)
        proven_safe = certain(part.cells, part.mines)[..., 0].any(axis=(1, 2))
        for k, cells in enumerate(part.cells):
            exact = np.where(cells == -1, part.probs[k], np.inf)
            lowest = exact.min()
            with_safe += lowest == 0
            for name, pred in reads.items():
                pick = exact[choose_moves(pred[k], cells, safe_below=0.0)[0]]
                if lowest > 0:
                    regret.setdefault(name, []).append(float(pick - lowest))
                elif pick == 0:
                    found[name] = found.get(name, 0) + 1
                elif name == "views, pooled":
                    misses_provable += bool(proven_safe[k])
    report = {
        "positions": len(val),
        "guess_positions": len(regret["one view"]),
        "certain_safe_positions": int(with_safe),
        "rows": [
            {
                "readout": name,
                "mean_regret": float(np.mean(r)),
                "regret_above_0.005": float(np.mean(np.array(r) > 0.005)),
                "certain_safe_found": found.get(name, 0) / max(with_safe, 1),
                "certain_safe_missed": int(with_safe - found.get(name, 0)),
            }
            for name, r in regret.items()
        ],
        "misses_where_reductions_prove_a_safe_cell": int(misses_provable),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
