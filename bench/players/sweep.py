"""Win rates of strategies on the standard presets under both first-click rules.

Each (strategy, preset, rule) cell is a resumable harness log in ``--out``: running the
script again with a larger ``--games`` extends the runs instead of starting over.

    python bench/players/sweep.py --strategies csp-minprob csp-edge --games 2000 --workers 1
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mscsp.evaluation.harness import RunConfig, run
from mscsp.game import PRESETS

#: The two rules compared in docs/results.md: (first click, first move).
RULES = {"classic": ("safe", "corner"), "modern": ("opening", "3,3")}


def cell_config(strategy: str, preset: str, rule: str, seed: int) -> RunConfig:
    rows, cols, mines = PRESETS[preset]
    first_click, first_move = RULES[rule]
    return RunConfig(
        strategy, rows, cols, mines, first_click=first_click, first_move=first_move, seed=seed
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", nargs="+", required=True)
    parser.add_argument("--presets", nargs="+", default=list(PRESETS))
    parser.add_argument("--rules", nargs="+", default=list(RULES))
    parser.add_argument(
        "--games",
        type=int,
        nargs="+",
        default=[1000],
        help="games per cell, one value or one per preset",
    )
    parser.add_argument(
        "--step",
        type=int,
        nargs="+",
        default=None,
        help="round-robin: add this many games per cell and round (per preset)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    args = parser.parse_args()
    games = per_preset(args.presets, args.games)
    step = per_preset(args.presets, args.step or args.games)
    args.out.mkdir(parents=True, exist_ok=True)
    rounds = max(-(-games[p] // step[p]) for p in args.presets)
    for round_ in range(1, rounds + 1):
        for strategy in args.strategies:
            for preset in args.presets:
                target = min(games[preset], round_ * step[preset])
                for rule in args.rules:
                    config = cell_config(strategy, preset, rule, args.seed)
                    log = args.out / f"{strategy}_{preset}_{rule}.jsonl"
                    summary = run(
                        config, target, workers=args.workers, log=log, resume=log.exists()
                    )
                    print(
                        json.dumps(
                            {
                                "strategy": strategy,
                                "preset": preset,
                                "rule": rule,
                                **summary.to_dict(),
                            }
                        ),
                        flush=True,
                    )


def per_preset(presets: list[str], values: list[int]) -> dict[str, int]:
    """One value for every preset, or one value each."""
    values = values * len(presets) if len(values) == 1 else values
    return dict(zip(presets, values, strict=True))


if __name__ == "__main__":
    main()
