"""Does the compiled engine play the pure player's games, move for move? (issue 35)

Plays the same seeded games of ``csp-minprob`` (or ``--strategy``) twice, on the batch
engine (what ``mscsp play`` runs) and on the pure path (numba off), and counts the games
whose result, clicks or guesses differ, on every preset and first-click rule::

    python bench/players/engine_identity.py --games 3000 1000 500 --seed 100
    python bench/players/engine_identity.py --strategy csp-lookahead --games 0 0 200 --seed 4242
"""

from __future__ import annotations

import argparse
import json
import time

from mscsp.engine import compiled
from mscsp.evaluation.harness import RunConfig, play_game, play_on_engine
from mscsp.game import PRESETS
from mscsp.players import get_player

RULES = [("safe", "corner"), ("opening", "center"), ("any", "random")]


def compare(
    strategy: str, preset: str, games: int, seed: int, first_click: str, first_move: str
) -> dict:
    """Both ways' results of one preset and rule, and where they differ."""
    config = RunConfig(
        strategy, *PRESETS[preset], seed=seed, first_click=first_click, first_move=first_move
    )
    start = time.perf_counter()
    batch = play_on_engine(config, list(range(games)))
    engine_s = time.perf_counter() - start
    player = get_player(strategy)
    compiled.enabled = False
    try:
        start = time.perf_counter()
        pure = [play_game(player, config, i) for i in range(games)]
        pure_s = time.perf_counter() - start
    finally:
        compiled.enabled = True

    def key(r):
        return (r.won, r.cleared, r.moves, r.guesses)

    differ = [a.index for a, b in zip(batch, pure, strict=True) if key(a) != key(b)]
    return {
        "strategy": strategy,
        "preset": preset,
        "first_click": first_click,
        "first_move": first_move,
        "games": games,
        "wins": sum(r.won for r in pure),
        "differ": differ,
        "engine_ms_per_game": 1000 * engine_s / games,
        "pure_ms_per_game": 1000 * pure_s / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games",
        type=int,
        nargs=3,
        default=[3000, 1000, 500],
        help="games on beginner, intermediate, expert (each rule)",
    )
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument(
        "--strategy",
        default="csp-minprob",
        choices=["csp-minprob", "csp-lookahead", "best"],
        help="the player (one the engine plays in batches)",
    )
    args = parser.parse_args()
    compiled.load()
    total = 0
    for preset, games in zip(("beginner", "intermediate", "expert"), args.games, strict=True):
        for first_click, first_move in RULES if games else ():
            row = compare(args.strategy, preset, games, args.seed, first_click, first_move)
            total += len(row["differ"])
            print(json.dumps(row), flush=True)
    print(f"games that differ: {total}")
    raise SystemExit(1 if total else 0)


if __name__ == "__main__":
    main()
