"""Recipe: the training data and the training run of ``learner:graph`` (issue 34).

Labels ``--positions`` training positions and 2,000 validation ones (drawn by seed from
:data:`learners.graph.data.TRAIN_FAMILIES`, exact odds from the default backend), then
trains the ``--model`` config for ``--steps`` steps (with ``--max-rounds``, at a random round
count each step, and the rounds it plays with are then chosen on the validation positions).
Both stages resume: the data files are reused when present, and a killed run continues from
its last checkpoint (every 500 steps) with the same batches. Run it alone on the machine
(training times are reported).

Usage: ``python bench/learning/learn_graph.py --out runs/graph`` then, to ship,
``cp runs/graph/model.msgpack learners/weights/graph.msgpack``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from learners.graph.data import Graphs, make_dataset
from learners.graph.train import TrainConfig, choose_rounds, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="run directory")
    parser.add_argument("--positions", type=int, default=30000)
    parser.add_argument("--model", default="base")
    parser.add_argument("--steps", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-rounds",
        type=int,
        default=0,
        help="0: every step runs the config's rounds; else a random count per step, from "
        "half the config's rounds to this",
    )
    parser.add_argument("--workers", type=int, default=2, help="labelling processes")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    sets = {}
    for name, n, seed in (("train", args.positions, 20261126), ("val", 2000, 777)):
        path = args.out / f"{name}.npz"
        if not path.exists():
            print(f"labelling {n} {name} positions")
            make_dataset(n, seed, str(path), workers=args.workers)
        sets[name] = Graphs.load(str(path))
    print(f"{len(sets['train'])} training graphs, {len(sets['val'])} validation graphs")
    cfg = TrainConfig(
        model=args.model, steps=args.steps, seed=args.seed, max_rounds=args.max_rounds
    )
    model = train(cfg, sets["train"], sets["val"], args.out)
    if args.max_rounds:
        rounds = choose_rounds(model, sets["val"])
        print(f"plays with {rounds} rounds (the fewest within 2 % of the best on validation)")
    print(f"wrote {model} in {(time.monotonic() - start) / 60:.1f} min")


if __name__ == "__main__":
    main()
