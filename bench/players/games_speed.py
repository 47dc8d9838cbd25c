"""Games per second on one core, optionally against another checkout of mscsp, alternating.

Each round is a fresh process that plays the same seeded games with a fresh player and
reports its CPU time; rounds alternate between the checkouts, and the fastest round of each
is kept (the least disturbed by other jobs on the machine). The games played are the same
in every round, so wins must agree when both checkouts play alike.

    PYTHONPATH=. python bench/players/games_speed.py --strategies csp-minprob best \\
        --preset expert --games 100 --rounds 3 --against /work/main

With ``--check``, nothing is timed: each checkout plays the games once more (untimed),
recording every cell each game uncovers, in order, and the clicks and guesses counted; the
games must be identical move for move (exit status 1 otherwise): a faster engine must not
play differently. (The compiled engine plays without returning move lists, so the game's
own record is what is compared.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def one_round(strategy: str, preset: str, games: int, seed: int) -> dict:
    """Plays ``games`` games in this process; CPU seconds and wins."""
    from mscsp.evaluation.harness import RunConfig, play_game
    from mscsp.game import PRESETS, Game
    from mscsp.players import get_player

    config = RunConfig(strategy, *PRESETS[preset], seed=seed)
    # Imports and lazy set-up are not timed: a few games, and one that surely opens a
    # region of zeros (the flood fill loads scipy.ndimage, seconds on a busy machine).
    Game(*PRESETS[preset], seed=0, first_click="opening").reveal(0, 0)
    warm = get_player(strategy)
    for index in range(games, games + 3):
        play_game(warm, config, index)
    player = get_player(strategy)
    start = time.process_time()
    wins = sum(play_game(player, config, i).won for i in range(games))
    return {"seconds": time.process_time() - start, "wins": wins}


def recorded_games(strategy: str, preset: str, games: int, seed: int) -> list[str]:
    """Plays ``games`` games; per game, a digest of every cell it uncovered, in order (the
    game's own record), and of the result (clicks counted, guesses, outcome)."""
    from mscsp.engine import compiled
    from mscsp.evaluation import harness
    from mscsp.evaluation.harness import RunConfig, play_game
    from mscsp.game import PRESETS
    from mscsp.players import get_player

    played = []

    class Recorded(harness.Game):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            played.append(self)

    harness.Game = Recorded  # (this process only plays these games)
    compiled.load()  # every game on the compiled road where the checkout has one
    config = RunConfig(strategy, *PRESETS[preset], seed=seed)
    player = get_player(strategy)
    digests = []
    for index in range(games):
        result = play_game(player, config, index)
        moves = [[int(r), int(c)] for _, r, c in played[-1].moves]
        text = json.dumps([moves, result.won, result.moves, result.guesses])
        digests.append(hashlib.sha256(text.encode()).hexdigest()[:16])
    return digests


def run_round(root: Path, args: argparse.Namespace, strategy: str, mode: str = "--one-round"):
    env = dict(os.environ, PYTHONPATH=str(root))
    command = [sys.executable, __file__, mode, strategy, "--preset", args.preset]
    command += ["--games", str(args.games), "--seed", str(args.seed)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def check(trees: dict[str, Path], args: argparse.Namespace) -> bool:
    """Whether every checkout plays every game move for move alike; prints a table."""
    alike = True
    print("| strategy | games | identical to the first checkout |")
    print("|---|---:|---:|")
    for strategy in args.strategies:
        played = [run_round(root, args, strategy, "--record") for root in trees.values()]
        same = sum(all(p[i] == played[0][i] for p in played) for i in range(args.games))
        alike &= same == args.games
        print(f"| {strategy} | {args.games} | {same} |")
    return alike


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", nargs="+", default=["csp-minprob"])
    parser.add_argument("--preset", default="expert")
    parser.add_argument("--games", type=int, default=100, help="games per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per checkout")
    parser.add_argument("--seed", type=int, default=123)
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument(
        "--check", action="store_true", help="assert identical games instead of timing"
    )
    parser.add_argument("--one-round", metavar="STRATEGY", help=argparse.SUPPRESS)
    parser.add_argument("--record", metavar="STRATEGY", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_round:
        print(json.dumps(one_round(args.one_round, args.preset, args.games, args.seed)))
        return
    if args.record:
        print(json.dumps(recorded_games(args.record, args.preset, args.games, args.seed)))
        return
    here = Path(__file__).resolve().parents[2]
    trees = {"this": here} | ({"against": args.against.resolve()} if args.against else {})
    if args.check:
        sys.exit(0 if check(trees, args) else 1)
    print("| strategy | checkout | games/s (best round) | games/s (each round) | wins |")
    print("|---|---|---:|---|---:|")
    for strategy in args.strategies:
        rounds: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, root in trees.items():
                rounds[name].append(run_round(root, args, strategy))
        for name, results in rounds.items():
            rates = [args.games / r["seconds"] for r in results]
            print(
                f"| {strategy} | {name} | {max(rates):.1f} "
                f"| {', '.join(f'{r:.1f}' for r in rates)} | {results[0]['wins']}/{args.games} |"
            )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{args.preset}, seed {args.seed}, one core per process; load average {load}.")


if __name__ == "__main__":
    main()
