"""Games per CPU second of ``best`` with different options, alternating in one process.

Each round plays the same seeded games once per option set, in turn, and the fastest round of
each set is kept (the least disturbed by other jobs on the machine)::

    PYTHONPATH=$PWD python bench/players/best_speed.py --preset expert --games 100 --rounds 3 \\
        --options "" "tree_layouts=1000" "offedge=true"
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mscsp.cli.play import parse_options  # noqa: E402
from mscsp.evaluation.harness import RunConfig, play_game  # noqa: E402
from mscsp.game import PRESETS, Game  # noqa: E402
from mscsp.players.best import BestPlayer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert", help="board")
    parser.add_argument("--games", type=int, default=100, help="games per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per option set")
    parser.add_argument("--seed", type=int, default=123, help="run seed")
    parser.add_argument(
        "--options", nargs="+", default=[""], help='option sets, e.g. "" "offedge=true blend=0.3"'
    )
    args = parser.parse_args()
    config = RunConfig("best", *PRESETS[args.preset], seed=args.seed)
    sets = [parse_options(tuple(text.split())) for text in args.options]
    # The flood fill loads scipy.ndimage on first use: not timed.
    Game(*PRESETS[args.preset], seed=0, first_click="opening").reveal(0, 0)
    best = [float("inf")] * len(sets)
    wins = [0] * len(sets)
    for _ in range(args.rounds):
        for k, options in enumerate(sets):
            player = BestPlayer(**options)
            start = time.process_time()
            wins[k] = sum(play_game(player, config, i).won for i in range(args.games))
            best[k] = min(best[k], time.process_time() - start)
    for text, seconds, won in zip(args.options, best, wins, strict=True):
        print(
            f"{text or 'default':30s} {args.games / seconds:6.1f} games/s "
            f"(ratio {best[0] / seconds:.3f} to the first set), {won} wins"
        )


if __name__ == "__main__":
    main()
