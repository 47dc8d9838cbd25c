"""Where a game of ``mscsp play`` spends its time, phase by phase (one core, in process).

Plays the harness's games (same seeds, same first click) with a CSP player, timing each
phase of :func:`mscsp.evaluation.harness.play_game` and of the compiled engine's game separately:

* set-up: the game's seeds, generators and :class:`~mscsp.game.Game`;
* first click: mine placement and the flood fill of the first reveal;
* engine set-up: the engine's arrays (:class:`~mscsp.players.compiled_play.CompiledGame`);
* engine: the compiled turns (single-point rules, reduction, counts, csp-minprob's guesses,
  flood fills), in numba;
* Python turns: the turns the engine hands back (counts beyond 64 bits weighed with Python
  integers, components too large for the kernel, and every guess of ``best``);
* result: writing the outcome back into the game and the
:class:`~mscsp.evaluation.harness.GameResult`.

The sum is compared with the same games through ``play_game`` itself. Start-up (Python,
imports, loading the kernel from numba's cache) and the CLI's log and summary are the
difference between ``mscsp play``'s wall time and this in-process time.

    taskset -c 0 python bench/players/play_profile.py --strategy csp-minprob --games 3000
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from mscsp.engine import compiled
from mscsp.evaluation.harness import GameResult, RunConfig, game_seeds, play_game
from mscsp.game import PRESETS, Game, first_move
from mscsp.players import get_player
from mscsp.players.compiled_play import CompiledGame

PHASES = ("set-up", "first click", "engine set-up", "engine", "Python turns", "result")


def _timed(spent: dict[str, float], phase: str, method):
    """``method``, adding the time of each call to ``spent[phase]``."""

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spent[phase] += time.perf_counter() - start

    return timed


def profile(strategy: str, preset: str, games: int, seed: int) -> dict[str, float]:
    """Seconds per phase over ``games`` games, and the same games through ``play_game``."""
    compiled.load()
    config = RunConfig(strategy, *PRESETS[preset], seed=seed)
    player = get_player(strategy)
    for index in range(games, games + 5):  # warm-up: lazy imports and first calls
        play_game(player, config, index)
    spent = dict.fromkeys(PHASES, 0.0)
    # The engine's own phases are timed inside the player's game; the rest of it is the
    # Python turns.
    saved = {name: getattr(CompiledGame, name) for name in ("__init__", "run", "finish")}
    for name, phase in (("__init__", "engine set-up"), ("run", "engine"), ("finish", "result")):
        setattr(CompiledGame, name, _timed(spent, phase, saved[name]))
    clock = time.perf_counter
    wins = 0
    try:
        for index in range(games):
            t0 = clock()
            layout_seed, player_seed, move_seed = game_seeds(seed, index)
            rng = np.random.default_rng(player_seed)
            game = Game(*PRESETS[preset], seed=layout_seed, first_click=config.first_click)
            player.new_game()
            t1 = clock()
            first = first_move(
                config.first_move, game.rows, game.cols, np.random.default_rng(move_seed)
            )
            game.reveal(*first)
            t2 = clock()
            inside = sum(spent[p] for p in ("engine set-up", "engine", "result"))
            moves, guesses = player.play(game, rng)
            t3 = clock()
            result = GameResult(
                index, game.state == "won", game.revealed / game.safe_cells, moves + 1, guesses, 0
            )
            t4 = clock()
            wins += result.won
            inside = sum(spent[p] for p in ("engine set-up", "engine", "result")) - inside
            spent["set-up"] += t1 - t0
            spent["first click"] += t2 - t1
            spent["Python turns"] += t3 - t2 - inside
            spent["result"] += t4 - t3
    finally:
        for name, method in saved.items():
            setattr(CompiledGame, name, method)
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
