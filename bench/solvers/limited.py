"""Accuracy/speed trade-off of limited traversal (``csp-limited``) against exact counting.

Same seeded games for every setting; speed in games per CPU second.

    PYTHONPATH=. python bench/solvers/limited.py --games 2000 --out bench/results/limited.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mscsp.evaluation.harness import RunConfig, Tally, play_batch
from mscsp.game import PRESETS
from mscsp.runtime.outlock import output_lock

#: (strategy, options): caps from tiny to generous, then exact counting.
SETTINGS = [
    ("csp-limited", {"max_solutions": 3, "max_nodes": 10}),
    ("csp-limited", {"max_solutions": 10, "max_nodes": 30}),
    ("csp-limited", {"max_solutions": 100, "max_nodes": 300}),
    ("csp-limited", {"max_solutions": 1000, "max_nodes": 3000}),
    ("csp-minprob", {}),
    ("csp-limited", {"max_solutions": 100, "max_nodes": 300, "heuristic": "edge"}),
    ("csp-edge", {}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--presets", nargs="+", default=["beginner", "intermediate"])
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with output_lock(args.out, "limited results"):
        for preset in args.presets:
            for strategy, options in SETTINGS:
                config = RunConfig(strategy, *PRESETS[preset], seed=args.seed, options=options)
                start = time.process_time()
                summary = Tally(play_batch(config, list(range(args.games)))).summary()
                cpu = time.process_time() - start
                line = json.dumps(
                    {
                        "preset": preset,
                        "strategy": strategy,
                        "options": options,
                        "games_per_cpu_s": round(args.games / cpu, 1),
                        **summary.to_dict(),
                    }
                )
                print(line, flush=True)
                if args.out is not None:
                    with args.out.open("a") as handle:
                        handle.write(line + "\n")


if __name__ == "__main__":
    main()
