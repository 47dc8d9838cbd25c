"""Where a game of ``mscsp play`` spends its time, phase by phase (one core, in process).

Plays the harness's games (same seeds, same first click) with a CSP player, timing each
phase of :func:`mscsp.harness.play_game` and of the compiled engine's game separately:

* set-up: the game's seeds, generators and :class:`~mscsp.game.Game`;
* first click: mine placement and the flood fill of the first reveal;
* engine set-up: the engine's arrays (:class:`~mscsp.compiled_play.CompiledGame`);
* engine: the compiled turns (single-point rules, reduction, counts, csp-minprob's guesses,
  flood fills), in numba;
* Python turns: the turns the engine hands back (counts beyond 64 bits weighed with Python
  integers, components too large for the kernel, and every guess of ``best``);
* result: writing the outcome back into the game and the :class:`~mscsp.harness.GameResult`.

The sum is compared with the same games through ``play_game`` itself. Start-up (Python,
imports, loading the kernel from numba's cache) and the CLI's log and summary are the
difference between ``mscsp play``'s wall time and this in-process time.

    taskset -c 0 python bench/play_profile.py --strategy csp-minprob --games 3000
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from mscsp import compiled
from mscsp.compiled_play import CompiledGame
from mscsp.game import PRESETS, Game, first_move
from mscsp.harness import GameResult, RunConfig, game_seeds, play_game
from mscsp.players import get_player

PHASES = ("set-up", "first click", "engine set-up", "engine", "Python turns", "result")


def profile(strategy: str, preset: str, games: int, seed: int) -> dict[str, float]:
    """Seconds per phase over ``games`` games, and the same games through ``play_game``."""
    compiled.load()
    config = RunConfig(strategy, *PRESETS[preset], seed=seed)
    player = get_player(strategy)
    for index in range(games, games + 5):  # warm-up: lazy imports and first calls
        play_game(player, config, index)
    spent = dict.fromkeys(PHASES, 0.0)
    clock = time.perf_counter
    wins = 0
    for index in range(games):
        t0 = clock()
        layout_seed, player_seed, move_seed = game_seeds(seed, index)
        rng = np.random.default_rng(player_seed)
        game = Game(*PRESETS[preset], seed=layout_seed, first_click=config.first_click)
        player.new_game()
        t1 = clock()
        game.reveal(
            *first_move(config.first_move, game.rows, game.cols, np.random.default_rng(move_seed))
        )
        t2 = clock()
        played = CompiledGame(game)
        t3 = clock()
        engine = turns = 0.0
        while True:
            a = clock()
            more = played.run(stop_at_guess=not player.engine_guesses)
            b = clock()
            engine += b - a
            if not more:
                break
            solution = played.solution()
            played.remember(solution.mines)
            if solution.safe:
                played.click(solution.safe, guess=False)
            elif player.engine_guesses:
                played.click([solution.best_move], guess=True)
            else:
                board = game.board()
                player.memory.sync(board)
                player.memory.add(played.known_cells())
                played.click([player.guess(board, solution, rng)], guess=True)
            turns += clock() - b
        t4 = clock()
        moves, guesses = played.finish()
        result = GameResult(
            index, game.state == "won", game.revealed / game.safe_cells, moves + 1, guesses, 0.0
        )
        t5 = clock()
        wins += result.won
        for phase, seconds in zip(
            PHASES, (t1 - t0, t2 - t1, t3 - t2, engine, turns, t5 - t4), strict=True
        ):
            spent[phase] += seconds
    start = clock()
    harness_wins = sum(play_game(player, config, i).won for i in range(games))
    whole = clock() - start
    if harness_wins != wins:
        raise SystemExit(f"the phases played other games: {wins} wins against {harness_wins}")
    return spent | {"play_game": whole, "wins": wins}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="csp-minprob")
    parser.add_argument("--preset", default="expert")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spent = profile(args.strategy, args.preset, args.games, args.seed)
    if args.json:
        print(json.dumps(spent))
        return
    total = sum(spent[p] for p in PHASES)
    print("| phase | ms per game | share |\n|---|---:|---:|")
    for phase in PHASES:
        print(f"| {phase} | {1000 * spent[phase] / args.games:.3f} | {spent[phase] / total:.0%} |")
    print(f"| **sum** | {1000 * total / args.games:.3f} | 100% |")
    print(
        f"\n`play_game` on the same games: {1000 * spent['play_game'] / args.games:.3f} ms per "
        f"game; {spent['wins']} wins. {args.strategy}, {args.preset}, seed {args.seed}, "
        f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}."
    )


if __name__ == "__main__":
    main()
