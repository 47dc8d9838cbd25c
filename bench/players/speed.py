"""Games per second per core for each strategy and preset (one process, classic rule).

Timed in process CPU time, so other load on the machine does not distort it much.

PYTHONPATH=. python bench/players/speed.py --out bench/results/speed.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mscsp.evaluation.harness import RunConfig, play_batch
from mscsp.game import PRESETS
from mscsp.players import PLAYERS
from mscsp.runtime.outlock import output_lock

#: Games timed per preset; ``best`` plays a fifth as many.
GAMES = {"beginner": 300, "intermediate": 150, "expert": 100}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", nargs="+", default=list(PLAYERS))
    parser.add_argument("--seed", type=int, default=123)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with output_lock(args.out, "speed results"):
        for strategy in args.strategies:
            for preset, games in GAMES.items():
                games = games // 5 if strategy == "best" else games
                config = RunConfig(strategy, *PRESETS[preset], seed=args.seed)
                play_batch(config, [games])  # warm-up: imports and caches
                start = time.process_time()
                play_batch(config, list(range(games)))
                rate = games / (time.process_time() - start)
                line = json.dumps(
                    {
                        "strategy": strategy,
                        "preset": preset,
                        "games": games,
                        "games_per_s": round(rate, 2),
                    }
                )
                print(line, flush=True)
                if args.out is not None:
                    with args.out.open("a") as handle:
                        handle.write(line + "\n")


if __name__ == "__main__":
    main()
