"""Experiment (issue 35's moonshot): `best`'s one-step look-ahead alone, on the engine.

`csp-minprob`'s compiled engine plays every certain move; at each guess this script reads
the engine's own answer (the probability map and what is certain, without building a
`Solution`) and picks the guess by `best`'s compiled probes (`mscsp._probe.probe_cells`,
the same scores and the same two rules that put a safer cell first), leaving out `best`'s
other rules (forced and pseudo 50/50s, the endgame search, looming 50/50s), and skipping
a candidate the kernel hands back (best probes it in Python; about one look-ahead in 40).
It asks what a
player between `csp-minprob` and `best` would win, and how fast, against PSEQ's 39.3 % at
430-500 expert games a second.

Alternating in one process on one core, rounds of ``--games`` expert games each (first
click safe in the corner, classic rule), CPU time after a warm-up; the three players play
the same games::

    taskset -c 1 python bench/players/lookahead_on_engine.py --games 3000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mscsp import _engine, _probe, compiled, compiled_play
from mscsp._kernel_status import APPROX, COUNTED, DONE, SURE_MINE
from mscsp.board import COVERED, FLAG
from mscsp.game import Game, first_move
from mscsp.harness import RunConfig, game_seeds, play_game, wilson
from mscsp.players import get_player
from mscsp.solver import solve

ROWS, COLS, MINES = 16, 30, 99
EPS = 1e-12


def guess(
    played: compiled_play.CompiledGame, tolerance: float, most: int, probe_scratch
) -> tuple[int, bool]:
    """The look-ahead's guess (a flat cell) on the position the engine stopped at, and
    whether a candidate was skipped (handed back by the kernel)."""
    n = ROWS * COLS
    out, probs, free, odds, flagged = played.scratch[:5]
    if played.status not in (_engine.GUESS, COUNTED):  # beyond the kernel
        r, c = solve(played.board()).best_move
        return r * COLS + c, False
    status = DONE if played.status == _engine.GUESS else APPROX
    now = probs.reshape(-1)
    x, e = _probe.weight_of(status, out)
    cells = flagged.copy()
    if status == DONE:
        sure_mine = (odds[:n] == odds[n:]) & (cells == COVERED)
    else:
        sure_mine = ((odds[n:] & SURE_MINE) != 0) & (cells == COVERED)
    unknown = (cells == COVERED) & ~sure_mine
    safety = np.where(unknown, 1.0 - now, -1.0)
    bound = (1.0 - tolerance) * safety.max()
    free_cells = free.reshape(-1) & unknown
    near = np.flatnonzero(unknown & ~free_cells & (safety >= bound))
    dead = _probe.dead_cells(cells, (cells == FLAG) | sure_mine, ROWS, COLS, near)
    living = near[~dead]
    candidates = living[np.lexsort((living, -safety[living]))].tolist()
    if free_cells.any() and safety[free_cells].max() >= bound:
        top = float(safety[free_cells].max())
        picks = compiled.representatives(
            cells.reshape(ROWS, COLS), free_cells.reshape(ROWS, COLS), 3
        )
        at = sum(1 for c in candidates if safety[c] > top)
        candidates[at:at] = [r * COLS + c for r, c in picks]
    candidates = candidates[:most]
    if not candidates:
        return int(np.argmax(safety)), False
    which = np.array(candidates, dtype=np.int64)
    found = np.empty((len(which), 5))
    implied = np.empty((len(which), n), dtype=np.bool_)
    weight, blend = 0.1, 0.2  # best's defaults
    at, score, skipped = 0, np.nan, False
    while at < len(which):
        # (A cell the kernel hands back is skipped, where best probes it in Python.)
        done, score = _probe.probe_cells(
            cells, ROWS, COLS, MINES, which[at:], np.ones(len(which) - at), now, x, e,
            score, 0.0, weight, blend, found[at:], implied[at:], probe_scratch,
        )  # fmt: skip
        if at + done < len(which):
            found[at + done, 2] = False
            skipped = True
        at += done + 1
    chosen, score = -1, -1.0
    for j in range(len(which)):
        if found[j, 2] and found[j, 3] > 1:
            value = found[j, 0] + weight * found[j, 1]
            if value > score + EPS:
                chosen, score = j, value
    if chosen < 0:
        return candidates[0], skipped
    cell = candidates[chosen]
    safer = np.flatnonzero(implied[chosen] & (safety > safety[cell] + EPS))
    if len(safer):  # best's "implied" rule
        return int(safer[np.lexsort((safer, -safety[safer]))][0]), skipped
    following = int(found[chosen, 4])
    if following >= 0 and safety[following] > safety[cell] + EPS:  # "dominated"
        return following, skipped
    return cell, skipped


def play_lookahead(seed: int, index: int, tolerance: float, most: int, probe_scratch) -> bool:
    layout, _, move = game_seeds(seed, index)
    game = Game(ROWS, COLS, MINES, seed=layout)
    game.reveal(*first_move("corner", ROWS, COLS, np.random.default_rng(move)))
    played = compiled_play.CompiledGame(game)
    while played.run(stop_at_guess=True):
        cell, _ = guess(played, tolerance, most, probe_scratch)
        played.click([divmod(cell, COLS)], guess=True)
    played.finish()
    return game.state == "won"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="games a round, each player")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="round r plays seed + r")
    parser.add_argument("--tolerance", type=float, default=0.1, help="as best's")
    parser.add_argument("--most", type=int, default=1000, help="candidates probed at most")
    args = parser.parse_args()
    compiled.load()
    probe_scratch = compiled.scratch(ROWS, COLS)

    def ours(name: str):
        player = get_player(name)
        return lambda seed, i: (
            play_game(player, RunConfig(name, ROWS, COLS, MINES, seed=seed), i).won
        )

    def lookahead(seed: int, i: int) -> bool:
        return play_lookahead(seed, i, args.tolerance, args.most, probe_scratch)

    runs = {"lookahead": lookahead, "csp-minprob": ours("csp-minprob"), "best": ours("best")}
    for play in runs.values():  # (warm-up: every compiled function loaded)
        for i in range(5):
            play(10**6, i)
    wins = dict.fromkeys(runs, 0)
    ms = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, play in runs.items():
            start = time.process_time()
            wins[name] += sum(play(args.seed + r, i) for i in range(args.games))
            ms[name].append(1000 * (time.process_time() - start) / args.games)
            print(f"round {r}: {name:12s} {ms[name][-1]:.2f} ms/game", flush=True)
    games = args.games * args.rounds
    for name in runs:
        low, high = wilson(wins[name], games)
        print(
            f"{name:12s} wins {wins[name]}/{games} = {100 * wins[name] / games:.2f} % "
            f"[{100 * low:.2f}, {100 * high:.2f}], median {statistics.median(ms[name]):.2f} "
            f"ms/game ({' / '.join(f'{x:.2f}' for x in ms[name])})"
        )


if __name__ == "__main__":
    main()
